// HPACK (RFC 7541) as a load tester needs it. Requests: each header block is encoded once per test
// (or per scenario step and its values), with no dynamic table and no Huffman coding, so the same
// bytes open every stream. Answers: every block is decoded in order, since the server's dynamic table
// must be followed, but a string is turned into text only when the table keeps it or it is the
// status; the rest are skipped by their length.
import { HUFFMAN_CODES, HUFFMAN_LENGTHS, STATIC_TABLE } from './hpack-tables.ts';

/** The dynamic table size a decoder starts with (SETTINGS_HEADER_TABLE_SIZE's default, which we keep). */
export const HEADER_TABLE_SIZE = 4096;

export class HpackError extends Error {
  readonly code = 'http2_compression_error';
}

/** RFC 7541 5.1: `value` with an N-bit prefix, the prefix's other bits `flags`. */
function pushInteger(out: number[], value: number, prefixBits: number, flags: number) {
  const max = (1 << prefixBits) - 1;
  if (value < max) {
    out.push(flags | value);
    return;
  }
  out.push(flags | max);
  let rest = value - max;
  while (rest >= 128) {
    out.push((rest % 128) + 128);
    rest = Math.floor(rest / 128);
  }
  out.push(rest);
}

function pushString(out: number[], text: string) {
  const bytes = Buffer.from(text, 'latin1');
  pushInteger(out, bytes.length, 7, 0);
  for (const b of bytes) out.push(b);
}

/**
 * A request's header block: a static-table entry where one matches exactly (`:method: GET`), else a
 * literal without indexing, naming a static entry where one has the name. Names must be lower case.
 */
export function encodeHeaders(headers: ReadonlyArray<readonly [string, string]>): Buffer {
  const out: number[] = [];
  for (const [name, value] of headers) {
    const exact = STATIC_TABLE.findIndex(([n, v], i) => i > 0 && n === name && v === value);
    if (exact > 0) {
      pushInteger(out, exact, 7, 0x80);
      continue;
    }
    const named = STATIC_TABLE.findIndex(([n], i) => i > 0 && n === name);
    if (named > 0) pushInteger(out, named, 4, 0);
    else {
      out.push(0);
      pushString(out, name);
    }
    pushString(out, value);
  }
  return Buffer.from(out);
}

/** The Huffman code as a binary tree: node i's children at 2i and 2i+1 of `tree`; a leaf holds -(symbol + 1). */
const tree = (() => {
  const t: number[] = [0, 0];
  for (let sym = 0; sym < 257; sym++) {
    const code = HUFFMAN_CODES[sym]!;
    const len = HUFFMAN_LENGTHS[sym]!;
    let node = 0;
    for (let i = len - 1; i >= 0; i--) {
      const bit = Math.floor(code / 2 ** i) % 2;
      const at = node * 2 + bit;
      if (i === 0) t[at] = -(sym + 1);
      else {
        if (!t[at]) {
          t[at] = t.length / 2;
          t.push(0, 0);
        }
        node = t[at]!;
      }
    }
  }
  return Int32Array.from(t);
})();

/** Huffman-coded bytes as text (RFC 7541 5.2: at most 7 bits of padding, all ones, and never EOS). */
function huffmanText(buf: Buffer, start: number, end: number): string {
  let out = '';
  let node = 0;
  let depth = 0;
  let ones = true;
  for (let i = start; i < end; i++) {
    const byte = buf[i]!;
    for (let b = 7; b >= 0; b--) {
      const bit = (byte >> b) & 1;
      const next = tree[node * 2 + bit]!;
      depth += 1;
      ones &&= bit === 1;
      if (next < 0) {
        if (next === -257) throw new HpackError('HPACK: EOS in a string');
        out += String.fromCharCode(-next - 1);
        node = 0;
        depth = 0;
        ones = true;
      } else if (next === 0) throw new HpackError('HPACK: not a Huffman code');
      else node = next;
    }
  }
  if (depth > 7 || !ones) throw new HpackError('HPACK: bad Huffman padding');
  return out;
}

/** Decodes answers' header blocks in order, keeping the server's dynamic table. */
export class HpackDecoder {
  /** Newest first: [name, value, size]. */
  private readonly table: Array<[string, string, number]> = [];
  private size = 0;
  private maxSize = HEADER_TABLE_SIZE;
  private pos = 0;
  private buf: Buffer = Buffer.alloc(0);
  private end = 0;

  /** The block's `:status` (0 when it has none). */
  status(block: Buffer): number {
    this.buf = block;
    this.pos = 0;
    this.end = block.length;
    let status = 0;
    while (this.pos < this.end) {
      const first = block[this.pos]!;
      if (first & 0x80) {
        // Indexed field.
        const [name, value] = this.entry(this.integer(7));
        if (name === ':status') status = Number(value);
      } else if (first & 0x40) {
        // Literal with incremental indexing: kept in the table.
        const index = this.integer(6);
        const name = index ? this.entry(index)[0] : this.text();
        const value = this.text();
        if (name === ':status') status = Number(value);
        this.add(name, value);
      } else if (first & 0x20) {
        // Dynamic table size update.
        const size = this.integer(5);
        if (size > HEADER_TABLE_SIZE) throw new HpackError('HPACK: table size above our setting');
        this.maxSize = size;
        this.evict(0);
      } else {
        // Literal without indexing, or never indexed: text only for the status.
        const index = this.integer(4);
        const isStatus = index ? this.entry(index)[0] === ':status' : this.text() === ':status';
        if (isStatus) status = Number(this.text());
        else this.skip();
      }
    }
    return status;
  }

  private integer(prefixBits: number): number {
    const max = (1 << prefixBits) - 1;
    let value = this.buf[this.pos++]! & max;
    if (value < max) return value;
    let shift = 1;
    for (;;) {
      if (this.pos >= this.end) throw new HpackError('HPACK: integer cut short');
      const b = this.buf[this.pos++]!;
      value += (b & 127) * shift;
      if (!(b & 128)) return value;
      shift *= 128;
      if (shift > 2 ** 28) throw new HpackError('HPACK: integer too large');
    }
  }

  private stringBounds(): [start: number, end: number, huffman: boolean] {
    if (this.pos >= this.end) throw new HpackError('HPACK: string cut short');
    const huffman = (this.buf[this.pos]! & 0x80) !== 0;
    const length = this.integer(7);
    const start = this.pos;
    if (start + length > this.end) throw new HpackError('HPACK: string cut short');
    this.pos = start + length;
    return [start, start + length, huffman];
  }

  private text(): string {
    const [start, end, huffman] = this.stringBounds();
    return huffman ? huffmanText(this.buf, start, end) : this.buf.toString('latin1', start, end);
  }

  private skip() {
    this.stringBounds();
  }

  private entry(index: number): readonly [string, string, ...number[]] {
    if (index === 0) throw new HpackError('HPACK: index 0');
    if (index < STATIC_TABLE.length) return STATIC_TABLE[index]!;
    const entry = this.table[index - STATIC_TABLE.length];
    if (!entry) throw new HpackError(`HPACK: no entry ${index}`);
    return entry;
  }

  private add(name: string, value: string) {
    const size = name.length + value.length + 32;
    this.evict(size);
    if (size <= this.maxSize) {
      this.table.unshift([name, value, size]);
      this.size += size;
    }
  }

  /** Evicts the oldest entries until `room` more fits (all of them when it cannot). */
  private evict(room: number) {
    while (this.table.length && this.size + room > this.maxSize) this.size -= this.table.pop()![2];
  }
}
