// HPACK (RFC 7541) as a load tester needs it. Requests: each header block is encoded once per test
// (or per scenario step and its values), without Huffman coding: as literals, or (encodeIndexing)
// inserted once into a connection's dynamic table, then indexed. Answers: every block is decoded in
// order, since the server's dynamic table must be followed, but only a status is turned into text: the
// other strings are measured (the table's size counts their characters) or skipped.
import { HpackError, huffmanLength, huffmanText } from './hpack-huffman.ts';
import { STATIC_TABLE } from './hpack-tables.ts';

/** The dynamic table size a decoder starts with (SETTINGS_HEADER_TABLE_SIZE's default, which we keep). */
export const HEADER_TABLE_SIZE = 4096;

export { HpackError };

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
 * One header of a request's block (RFC 7541 section 6): the static table's entry when one matches it
 * exactly (`:method: GET`, an index of 7 bits), returning that index; else a literal naming a static
 * entry where one has its name (an index of `prefixBits`, under `flags`: without indexing 4 and 0, with
 * incremental indexing 6 and 0x40), returning 0. Names must be lower case.
 */
function pushHeader(out: number[], name: string, value: string, prefixBits: number, flags: number): number {
  const exact = STATIC_TABLE.findIndex(([n, v], i) => i > 0 && n === name && v === value);
  if (exact > 0) {
    pushInteger(out, exact, 7, 0x80);
    return exact;
  }
  const named = STATIC_TABLE.findIndex(([n], i) => i > 0 && n === name);
  pushInteger(out, Math.max(named, 0), prefixBits, flags);
  if (named <= 0) pushString(out, name);
  pushString(out, value);
  return 0;
}

/** A request's header block: each header from the static table, else a literal without indexing. */
export function encodeHeaders(headers: ReadonlyArray<readonly [string, string]>): Buffer {
  const out: number[] = [];
  for (const [name, value] of headers) pushHeader(out, name, value, 4, 0);
  return Buffer.from(out);
}

/**
 * A request's header blocks for a connection that keeps its headers in the server's dynamic table
 * (RFC 7541 section 2.3.2), as HTTP/2 clients do: sent once as literals with incremental indexing, then
 * as an index each, so every later request opens its stream in a few bytes whatever its headers' length
 * (a token, cookies), and the server reads no literal. Every header is indexed, secrets too: all the
 * headers on a load test's connection are its owner's, so none can serve as a compression oracle.
 */
export interface IndexedBlocks {
  /** A connection's first block: what the static table lacks, as literals with incremental indexing. */
  inserting: Buffer;
  /** Every later block on that connection: an index a header, into the static table or the dynamic one. */
  indexed: Buffer;
  /** The room its entries take in the dynamic table: each one's name and value in octets, and 32 (section 4.1). */
  size: number;
}

/** `headers`' blocks for a connection whose dynamic table holds them (names lower case); see IndexedBlocks. */
export function encodeIndexing(headers: ReadonlyArray<readonly [string, string]>): IndexedBlocks {
  const inserting: number[] = [];
  // Each header's static index, or its place among the inserted entries (a negative number: -1 the first).
  const refs: number[] = [];
  let inserted = 0;
  let size = 0;
  for (const [name, value] of headers) {
    const exact = pushHeader(inserting, name, value, 6, 0x40);
    if (exact) {
      refs.push(exact);
      continue;
    }
    size += Buffer.byteLength(name, 'latin1') + Buffer.byteLength(value, 'latin1') + 32;
    inserted += 1;
    refs.push(-inserted);
  }
  // After the first block, the newest entry is index 62 (just past the static table), the oldest 61 + their count.
  const indexed: number[] = [];
  for (const ref of refs) pushInteger(indexed, ref > 0 ? ref : STATIC_TABLE.length + inserted + ref, 7, 0x80);
  return { inserting: Buffer.from(inserting), indexed: Buffer.from(indexed), size };
}

/** A dynamic table size update (RFC 7541 section 6.3) to `size`: what begins a block after the server shrank it. */
export function tableSizeUpdate(size: number): Buffer {
  const out: number[] = [];
  pushInteger(out, size, 5, 0x20);
  return Buffer.from(out);
}

const STATUS = ':status';
/** The static table's entries named :status. */
const STATIC_STATUS = new Set(STATIC_TABLE.flatMap(([name], i) => (name === STATUS ? [i] : [])));
/** The most entries a table of HEADER_TABLE_SIZE holds (each counts at least 32 bytes). */
const MOST_ENTRIES = HEADER_TABLE_SIZE / 32;

/**
 * Decodes answers' header blocks in order, keeping the server's dynamic table. Only a status is ever
 * read, so the table keeps of each entry its size and, for a :status entry, its value: the rest is
 * measured (the table's size counts characters), never turned into text.
 */
export class HpackDecoder {
  /**
   * A ring of entries, the newest at `newest`: whether each is named :status, its value if so, the
   * length of its name and its size.
   */
  private readonly named: boolean[] = new Array(MOST_ENTRIES).fill(false);
  private readonly statuses: string[] = new Array(MOST_ENTRIES).fill('');
  private readonly nameLengths = new Int32Array(MOST_ENTRIES);
  private readonly sizes = new Int32Array(MOST_ENTRIES);
  private newest = 0;
  private count = 0;
  private size = 0;
  private maxSize = HEADER_TABLE_SIZE;
  private pos = 0;
  private buf: Buffer = Buffer.alloc(0);
  private end = 0;
  /**
   * The last string read: its bytes, and whether Huffman-coded (three fields, not a tuple: a tuple was
   * allocated for each string of each answer, the largest share of what a load thread allocated).
   */
  private lastStart = 0;
  private lastEnd = 0;
  private lastHuffman = false;

  /** The `:status` of the block in `block` from `start` to `end` (0 when it has none). */
  status(block: Buffer, start = 0, end = block.length): number {
    this.buf = block;
    this.pos = start;
    this.end = end;
    let status = 0;
    while (this.pos < this.end) {
      const first = block[this.pos]!;
      if (first & 0x80) {
        // Indexed field.
        const index = this.integer(7);
        if (this.isStatus(index)) status = Number(this.statusAt(index));
      } else if (first & 0x40) {
        // Literal with incremental indexing: kept in the table.
        const index = this.integer(6);
        const nameLength = index ? this.nameLength(index) : this.length();
        const isStatus = index ? this.isStatus(index) : this.lastWas(STATUS, nameLength);
        let value = '';
        let valueLength: number;
        if (isStatus) {
          value = this.text();
          valueLength = value.length;
          status = Number(value);
        } else valueLength = this.length();
        this.add(isStatus, value, nameLength, valueLength);
      } else if (first & 0x20) {
        // Dynamic table size update.
        const size = this.integer(5);
        if (size > HEADER_TABLE_SIZE) throw new HpackError('HPACK: table size above our setting');
        this.maxSize = size;
        this.evict(0);
      } else {
        // Literal without indexing, or never indexed: text only for the status.
        const index = this.integer(4);
        const isStatus = index ? this.isStatus(index) : this.lastWas(STATUS, this.length());
        if (isStatus) status = Number(this.text());
        else this.stringBounds();
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

  /** Skips the next string, remembered as the last string. */
  private stringBounds(): void {
    if (this.pos >= this.end) throw new HpackError('HPACK: string cut short');
    const huffman = (this.buf[this.pos]! & 0x80) !== 0;
    const length = this.integer(7);
    const start = this.pos;
    if (start + length > this.end) throw new HpackError('HPACK: string cut short');
    this.pos = start + length;
    this.lastStart = start;
    this.lastEnd = start + length;
    this.lastHuffman = huffman;
  }

  /** The last string's text. */
  private lastText(): string {
    const { buf, lastStart, lastEnd } = this;
    return this.lastHuffman ? huffmanText(buf, lastStart, lastEnd) : buf.toString('latin1', lastStart, lastEnd);
  }

  private text(): string {
    this.stringBounds();
    return this.lastText();
  }

  /** The next string's length in characters. */
  private length(): number {
    this.stringBounds();
    return this.lastHuffman ? huffmanLength(this.buf, this.lastStart, this.lastEnd) : this.lastEnd - this.lastStart;
  }

  /** Whether the string just measured (`length` characters) is `text`. */
  private lastWas(text: string, length: number): boolean {
    return length === text.length && this.lastText() === text;
  }

  /** The ring's slot of dynamic entry `index` (RFC 7541 2.3.3: 62 the newest). */
  private slot(index: number): number {
    const age = index - STATIC_TABLE.length;
    if (age >= this.count) throw new HpackError(`HPACK: no entry ${index}`);
    return (this.newest - age + MOST_ENTRIES) % MOST_ENTRIES;
  }

  private isStatus(index: number): boolean {
    if (index === 0) throw new HpackError('HPACK: index 0');
    return index < STATIC_TABLE.length ? STATIC_STATUS.has(index) : this.named[this.slot(index)] === true;
  }

  private statusAt(index: number): string {
    return (index < STATIC_TABLE.length ? STATIC_TABLE[index]?.[1] : this.statuses[this.slot(index)]) ?? '';
  }

  /** The length of entry `index`'s name: of a static one known, of a dynamic one its size less its value and 32. */
  private nameLength(index: number): number {
    if (index === 0) throw new HpackError('HPACK: index 0');
    return (index < STATIC_TABLE.length ? STATIC_TABLE[index]?.[0].length : this.nameLengths[this.slot(index)]) ?? 0;
  }

  /** A new entry (RFC 7541 4.1: its size is its name's and value's characters and 32). */
  private add(isStatus: boolean, value: string, nameLength: number, valueLength: number) {
    const size = nameLength + valueLength + 32;
    this.evict(size);
    if (size > this.maxSize) return;
    this.newest = (this.newest + 1) % MOST_ENTRIES;
    this.named[this.newest] = isStatus;
    this.statuses[this.newest] = value;
    this.nameLengths[this.newest] = nameLength;
    this.sizes[this.newest] = size;
    this.count += 1;
    this.size += size;
  }

  /** Evicts the oldest entries until `room` more fits (all of them when it cannot). */
  private evict(room: number) {
    while (this.count && this.size + room > this.maxSize) {
      this.size -= this.sizes[(this.newest - this.count + 1 + MOST_ENTRIES) % MOST_ENTRIES] ?? 0;
      this.count -= 1;
    }
  }
}
