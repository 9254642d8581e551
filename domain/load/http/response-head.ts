// What a load tester needs of an HTTP/1.x response head, read in one pass over its bytes: whether the
// connection closes after it, whether its body is chunked, and its Content-Length. A load thread reads
// a head a request, so this makes no string and no object (docs/benchmarks.md has what regular
// expressions over the head as a string cost it).

/** The facts of one head: one object per connection, rewritten by each read. */
export interface HeadFacts {
  /** A `Connection` header whose value starts with close. */
  close: boolean;
  /** A `Connection` header whose value starts with keep-alive (what keeps an HTTP/1.0 answer's connection). */
  keepAlive: boolean;
  /** A `Transfer-Encoding` header that names chunked. */
  chunked: boolean;
  /** The first `Content-Length` whose value starts with digits (those digits); -1 when there is none. */
  contentLength: number;
}

export const newHeadFacts = (): HeadFacts => ({ close: false, keepAlive: false, chunked: false, contentLength: -1 });

const bytes = (word: string) => Uint8Array.from(word, (c) => c.charCodeAt(0));
const CONNECTION = bytes('connection:');
const CONTENT_LENGTH = bytes('content-length:');
const TRANSFER_ENCODING = bytes('transfer-encoding:');
const CLOSE = bytes('close');
const KEEP_ALIVE = bytes('keep-alive');
const CHUNKED = bytes('chunked');
const LF = 10;
const CR = 13;

/** A byte in lower case when it is an ASCII capital, else itself (-1 past the data). */
const lower = (b: number | undefined) => (b === undefined ? -1 : b >= 65 && b <= 90 ? b | 0x20 : b);

/** Whether `data` holds `word` (lower case) at `at`, before `end`, in any case. */
function holds(data: Uint8Array, at: number, end: number, word: Uint8Array): boolean {
  if (at + word.length > end) return false;
  for (let i = 0; i < word.length; i++) if (lower(data[at + i]) !== word[i]) return false;
  return true;
}

/** Past the spaces and tabs from `at`. */
function skipBlanks(data: Uint8Array, at: number, end: number): number {
  while (at < end && (data[at] === 32 || data[at] === 9)) at++;
  return at;
}

/**
 * Reads the header lines of the head that starts (its status line) at `start` in `data` and whose
 * blank line starts at `end` (the index of its CR LF CR LF) into `facts`, and returns it.
 */
export function readHead(data: Uint8Array, start: number, end: number, facts: HeadFacts): HeadFacts {
  facts.close = false;
  facts.keepAlive = false;
  facts.chunked = false;
  facts.contentLength = -1;
  let at = start;
  while (at < end && data[at] !== LF) at++;
  // `at` is the LF before a header line; the last line ends at `end`.
  while (at < end) {
    const line = at + 1;
    let lineEnd = line;
    while (lineEnd < end && data[lineEnd] !== CR && data[lineEnd] !== LF) lineEnd++;
    const first = lower(data[line]);
    if (first === 0x63 /* c */) {
      if (holds(data, line, lineEnd, CONNECTION)) {
        const value = skipBlanks(data, line + CONNECTION.length, lineEnd);
        if (holds(data, value, lineEnd, CLOSE)) facts.close = true;
        else if (holds(data, value, lineEnd, KEEP_ALIVE)) facts.keepAlive = true;
      } else if (facts.contentLength < 0 && holds(data, line, lineEnd, CONTENT_LENGTH)) {
        let digit = skipBlanks(data, line + CONTENT_LENGTH.length, lineEnd);
        let length = -1;
        for (; digit < lineEnd; digit++) {
          const value = (data[digit] ?? 0) - 48;
          if (value < 0 || value > 9) break;
          length = Math.max(0, length) * 10 + value;
        }
        facts.contentLength = length;
      }
    } else if (first === 0x74 /* t */ && !facts.chunked && holds(data, line, lineEnd, TRANSFER_ENCODING)) {
      for (let i = line + TRANSFER_ENCODING.length; i < lineEnd && !facts.chunked; i++)
        facts.chunked = holds(data, i, lineEnd, CHUNKED);
    }
    at = lineEnd;
    while (at < end && data[at] !== LF) at++;
  }
  return facts;
}
