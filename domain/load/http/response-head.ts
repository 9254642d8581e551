// What a load tester needs of an HTTP/1.x response head: whether the connection closes after it,
// whether its body is chunked, and its Content-Length. A load thread reads a head a request: one string
// of the head, its lines found by indexOf, no regular expression and no other object (docs/benchmarks.md
// has what each way costs). A line ends at LF, its CR before it dropped: a bare LF ends a line too, as
// lenient HTTP/1.1 readers take it (RFC 9112 section 2.2), and a CR elsewhere is part of the line.

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

const CONNECTION = 'connection:';
const CONTENT_LENGTH = 'content-length:';
const TRANSFER_ENCODING = 'transfer-encoding:';
const CLOSE = 'close';
const KEEP_ALIVE = 'keep-alive';
const CHUNKED = 'chunked';
const CR = 13;

/** A character code in lower case when it is an ASCII capital, else itself (NaN past the end). */
const lower = (c: number) => (c >= 65 && c <= 90 ? c | 0x20 : c);

/** Whether `head` holds `word` (lower case) at `at`, before `end`, in any case. */
function holds(head: string, at: number, end: number, word: string): boolean {
  if (at + word.length > end) return false;
  for (let i = 0; i < word.length; i++) if (lower(head.charCodeAt(at + i)) !== word.charCodeAt(i)) return false;
  return true;
}

/** Past the spaces and tabs from `at`. */
function skipBlanks(head: string, at: number, end: number): number {
  while (at < end && (head.charCodeAt(at) === 32 || head.charCodeAt(at) === 9)) at++;
  return at;
}

/**
 * Reads the header lines of the head that starts (its status line) at `start` in `data` and whose
 * blank line starts at `end` (the index of its CR LF CR LF) into `facts`, and returns it.
 */
export function readHead(data: Buffer, start: number, end: number, facts: HeadFacts): HeadFacts {
  facts.close = false;
  facts.keepAlive = false;
  facts.chunked = false;
  facts.contentLength = -1;
  // One string of the head: a string's indexOf finds each line faster than a loop over the bytes.
  const head = data.toString('latin1', start, end);
  // `at`: the LF before a header line; only lines that start with c or t are read further.
  for (let at = head.indexOf('\n'); at >= 0; at = head.indexOf('\n', at + 1)) {
    const line = at + 1;
    const first = lower(head.charCodeAt(line));
    if (first !== 0x63 /* c */ && first !== 0x74 /* t */) continue;
    let lineEnd = head.indexOf('\n', line);
    if (lineEnd < 0) lineEnd = head.length;
    else if (head.charCodeAt(lineEnd - 1) === CR) lineEnd -= 1;
    if (holds(head, line, lineEnd, CONNECTION)) {
      const value = skipBlanks(head, line + CONNECTION.length, lineEnd);
      if (holds(head, value, lineEnd, CLOSE)) facts.close = true;
      else if (holds(head, value, lineEnd, KEEP_ALIVE)) facts.keepAlive = true;
    } else if (facts.contentLength < 0 && holds(head, line, lineEnd, CONTENT_LENGTH)) {
      let digit = skipBlanks(head, line + CONTENT_LENGTH.length, lineEnd);
      let length = -1;
      for (; digit < lineEnd; digit++) {
        const value = head.charCodeAt(digit) - 48;
        if (!(value >= 0 && value <= 9)) break;
        length = Math.max(0, length) * 10 + value;
      }
      facts.contentLength = length;
    } else if (!facts.chunked && holds(head, line, lineEnd, TRANSFER_ENCODING)) {
      for (let i = line + TRANSFER_ENCODING.length; i < lineEnd && !facts.chunked; i++)
        facts.chunked = holds(head, i, lineEnd, CHUNKED);
    }
  }
  return facts;
}
