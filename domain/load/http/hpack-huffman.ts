// HPACK's Huffman code (RFC 7541 5.2, Appendix B) read back: answers' strings as text, or only how
// many characters they hold (what the dynamic table's size counts), walked four bits at a time.
import { HUFFMAN_CODES, HUFFMAN_LENGTHS } from './hpack-tables.ts';

/** A header block that breaks HPACK: the connection ends with COMPRESSION_ERROR. */
export class HpackError extends Error {
  readonly code = 'http2_compression_error';
}

/** The Huffman code as a binary tree: node i's children at 2i and 2i+1 of `tree`; a leaf holds -(symbol + 1). */
const tree = (() => {
  const t: number[] = [0, 0];
  for (let sym = 0; sym < 257; sym++) {
    const code = HUFFMAN_CODES[sym] ?? 0;
    const len = HUFFMAN_LENGTHS[sym] ?? 0;
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
        node = t[at] ?? 0;
      }
    }
  }
  return Int32Array.from(t);
})();

/** The tree's inner nodes: a decoder's states (0 the root). */
const STATES = tree.length / 2;
/** Set in NIBBLE_NEXT: the nibble ends on EOS or off the code, which no string may. */
const NIBBLE_FAILS = 0x8000;

/**
 * The tree walked four bits at a time (as nghttp2 does, and for the same reason: a bit at a time was
 * most of a response's decoding): for state s and nibble n at s * 16 + n, the state after it (or
 * NIBBLE_FAILS) and the symbol it completes (-1: none; a code is at least 5 bits, so at most one).
 */
const [NIBBLE_NEXT, NIBBLE_SYMBOL] = (() => {
  const next = new Uint16Array(STATES * 16);
  const symbol = new Int16Array(STATES * 16).fill(-1);
  for (let state = 0; state < STATES; state++) {
    for (let nibble = 0; nibble < 16; nibble++) {
      let node = state;
      for (let b = 3; b >= 0; b--) {
        const child = tree[node * 2 + ((nibble >> b) & 1)] ?? 0;
        if (child === -257 || child === 0) {
          next[state * 16 + nibble] = NIBBLE_FAILS;
          break;
        }
        if (child < 0) {
          symbol[state * 16 + nibble] = -child - 1;
          node = 0;
        } else node = child;
        if (b === 0) next[state * 16 + nibble] = node;
      }
    }
  }
  return [next, symbol];
})();

/**
 * The states a string may end in (RFC 7541 5.2: padding is fewer than 8 bits, all ones): the root,
 * and the nodes of the all-ones path up to 7 bits deep.
 */
const ENDS = (() => {
  const ends = new Uint8Array(STATES);
  ends[0] = 1;
  for (let node = 0, depth = 1; depth <= 7; depth++) {
    node = tree[node * 2 + 1] ?? 0;
    if (node <= 0) break;
    ends[node] = 1;
  }
  return ends;
})();

/**
 * Walks Huffman-coded bytes: their text when `text` is true, else only how many characters they hold
 * (what the dynamic table's size counts). Refuses EOS, bits off the code and bad padding.
 */
function huffman(buf: Buffer, start: number, end: number, text: true): string;
function huffman(buf: Buffer, start: number, end: number, text: false): number;
function huffman(buf: Buffer, start: number, end: number, text: boolean): string | number {
  let out = '';
  let count = 0;
  let state = 0;
  for (let i = start; i < end; i++) {
    const byte = buf[i] ?? 0;
    for (let at = (state << 4) | (byte >> 4), half = 0; half < 2; half++, at = (state << 4) | (byte & 15)) {
      const symbol = NIBBLE_SYMBOL[at] ?? -1;
      state = NIBBLE_NEXT[at] ?? NIBBLE_FAILS;
      if (state === NIBBLE_FAILS) throw new HpackError('HPACK: EOS or not a Huffman code in a string');
      if (symbol >= 0) {
        count += 1;
        if (text) out += String.fromCharCode(symbol);
      }
    }
  }
  if (!ENDS[state]) throw new HpackError('HPACK: bad Huffman padding');
  return text ? out : count;
}

/** Huffman-coded bytes as text. */
export const huffmanText = (buf: Buffer, start: number, end: number): string => huffman(buf, start, end, true);
/** How many characters Huffman-coded bytes hold. */
export const huffmanLength = (buf: Buffer, start: number, end: number): number => huffman(buf, start, end, false);
