// HPACK as the HTTP/2 client uses it: answers' header blocks decoded in order for their status (the
// vectors: RFC 7541 Appendix C.6's three answers, Huffman-coded with a 256-byte table, then a value
// too large for the table, as python-hyper's hpack 4.0.0 encodes them), and requests' blocks encoded
// once, without Huffman: as literals, or inserted into the dynamic table and then indexed.
import { describe, expect, it } from 'vitest';
import {
  encodeHeaders,
  encodeIndexing,
  HpackDecoder,
  HpackError,
  tableSizeUpdate,
} from '../../../../../domain/load/http/hpack.ts';
import { http2Request } from '../../../../../domain/load/http/request.ts';
import { huffmanLength, huffmanText } from '../../../../../domain/load/http/hpack-huffman.ts';
import { HUFFMAN_CODES, HUFFMAN_LENGTHS } from '../../../../../domain/load/http/hpack-tables.ts';

const hex = (s: string) => Buffer.from(s.replace(/\s+/g, ''), 'hex');

/** `text` Huffman-coded by RFC 7541's table, padded with `pad` (ones, as the RFC has it, unless a test says). */
function huffman(text: string, pad: 'ones' | 'zeros' = 'ones'): Buffer {
  let bits = '';
  for (const c of Buffer.from(text, 'latin1')) bits += HUFFMAN_CODES[c]!.toString(2).padStart(HUFFMAN_LENGTHS[c]!, '0');
  bits += (pad === 'ones' ? '1' : '0').repeat((8 - (bits.length % 8)) % 8);
  return Buffer.from(bits.match(/.{8}/g)?.map((b) => Number.parseInt(b, 2)) ?? []);
}
/** :status 201 and `x-long` of 300 v's, Huffman-coded, too large for a 256-byte table (python-hyper's hpack). */
const LONG =
  '488210034085f2b507aa6fff8801efdfbf7efdfbf7efdfbf7efdfbf7efdfbf7efdfbf7efdfbf7efdfbf7efdfbf7efdfbf7efdfbf' +
  '7efdfbf7efdfbf7efdfbf7efdfbf7efdfbf7efdfbf7efdfbf7efdfbf7efdfbf7efdfbf7efdfbf7efdfbf7efdfbf7efdfbf7efdfb' +
  'f7efdfbf7efdfbf7efdfbf7efdfbf7efdfbf7efdfbf7efdfbf7efdfbf7efdfbf7efdfbf7efdfbf7efdfbf7efdfbf7efdfbf7efdf' +
  'bf7efdfbf7efdfbf7efdfbf7efdfbf7efdfbf7efdfbf7efdfbf7efdfbf7efdfbf7efdfbf7efdfbf7efdfbf7efdfbf7efdfbf7efd' +
  'fbf7efdfbf7efdfbf7efdfbf7efdfbf7efdfbf7efdfbf7efdfbf7efdfbf7efdfbf7efdfbf7efdfbf7efdfbf7efdfbf7efdfbf7ef' +
  'dfbf7efdfbf7efdfbf7efdfbf7efdfbf7f';

describe('HPACK', () => {
  it(
    'follows the server’s dynamic table through RFC 7541 ' + 'C.6’s answers (a table size update, Huffman, eviction)',
    () => {
      const d = new HpackDecoder();
      // C.6.1, after a size update to 256 (3fe101): :status 302 and three literals kept in the table.
      expect(
        d.status(
          hex(
            '3fe101 4882 6402 5885 aec3 771a 4b61 96d0 7abe 9410 54d4 44a8 2005 9504 0b81 66e0 82a6 2d1b ' +
              'ff6e 919d 29ad 1718 63c7 8f0b 97c8 e9ae 82ae 43d3',
          ),
        ),
      ).toBe(302);
      // C.6.2: :status 307 as a literal with an indexed name; the rest indexed from the dynamic table.
      expect(d.status(hex('4883 640e ffc1 c0bf'))).toBe(307);
      // C.6.3: :status 200 indexed from the static table; a new date, content-encoding and set-cookie evict older
      // entries.
      expect(
        d.status(
          hex(
            '88c1 6196 d07a be94 1054 d444 a820 0595 040b 8166 e084 a62d 1bff c05a 839b d9ab 77ad 94e7 821d ' +
              'd7f2 e6c7 b335 dfdf cd5b 3960 d5af 2708 7f36 72c1 ab27 0fb5 291f 9587 3160 65c0 03ed 4ee5 b106 ' +
              '3d50 07',
          ),
        ),
      ).toBe(200);
    },
  );

  it('decodes a block inside a larger buffer, never reading past its end', () => {
    const d = new HpackDecoder();
    // Before it, bytes of another frame; after it, an indexed :status 200 that the block does not hold.
    const frames = hex('ffff 8d 88');
    expect(d.status(frames, 2, 3)).toBe(404);
    // A literal whose value runs past the block's end is cut short, not read on into what follows.
    expect(() => d.status(hex('00 4003 782d 6105 6262 6262 62'), 1, 8)).toThrow(/cut short/);
  });

  it('reads a status that is a literal and long values with multi-byte lengths, in and out of the table', () => {
    const d = new HpackDecoder();
    expect(d.status(hex('8d 4003 782d 6101 62'))).toBe(404); // indexed :status 404, then x-a: b kept
    expect(d.status(hex('be'))).toBe(0); // x-a: b, from the dynamic table: no status
    // A 300-byte value: its length in several bytes; too large for the table, so nothing is kept.
    const small = new HpackDecoder();
    expect(small.status(hex('3fe101'))).toBe(0); // the table set to 256 bytes
    expect(small.status(hex(LONG))).toBe(201);
    // An entry larger than the table empties it (RFC 7541 4.4): :status 201, added before, is gone too.
    expect(() => small.status(hex('be'))).toThrow(/no entry 62/);
  });

  it('decodes every byte value and measures strings without reading them', () => {
    const every = Array.from({ length: 256 }, (_, i) => String.fromCharCode(i)).join('');
    for (const text of [every, 'www.example.com', 'Mon, 21 Oct 2013 20:13:21 GMT', '', '0', 'a\u00ff\u0000z']) {
      const coded = huffman(text);
      expect(huffmanText(coded, 0, coded.length)).toBe(text);
      expect(huffmanLength(coded, 0, coded.length)).toBe(text.length);
    }
    // Padding is at most 7 bits, all ones: zeros, or a whole byte of ones, are refused.
    const zeros = huffman('0', 'zeros'); // 5 bits of '0', 3 of padding
    expect(() => huffmanLength(zeros, 0, zeros.length)).toThrow(/padding/);
    const longPad = Buffer.concat([huffman('0'), Buffer.from([0xff])]);
    expect(() => huffmanLength(longPad, 0, longPad.length)).toThrow(/padding/);
  });

  it('sizes the table by characters, not by the Huffman bytes that carry them (RFC 7541 4.1)', () => {
    const d = new HpackDecoder();
    // The table set to 100 bytes (3f45); x: 30 x's kept, 1 + 30 + 32 = 63 bytes.
    expect(d.status(Buffer.concat([hex('3f45 4001 78 1e'), Buffer.from('x'.repeat(30))]))).toBe(0);
    // y: "00000", 5 characters in 4 Huffman bytes: 1 + 5 + 32 = 38, so 101 in all: x is evicted. Counting the bytes,
    // 100 would have fitted and kept it.
    const value = huffman('00000');
    expect(value.length).toBe(4);
    expect(d.status(Buffer.concat([hex('4001 79'), Buffer.from([0x80 | value.length]), value]))).toBe(0);
    expect(d.status(hex('be'))).toBe(0);
    expect(() => d.status(hex('bf'))).toThrow(/no entry 63/);
  });

  it('refuses blocks that break the format', () => {
    expect(() => new HpackDecoder().status(hex('80'))).toThrow(HpackError); // index 0
    expect(() => new HpackDecoder().status(hex('be'))).toThrow(/no entry 62/); // an empty dynamic table
    expect(() => new HpackDecoder().status(hex('0f'))).toThrow(/cut short/);
    expect(() => new HpackDecoder().status(hex('4084 ffff ffff 00'))).toThrow(/EOS|Huffman/);
    expect(() => new HpackDecoder().status(hex('3fe21f'))).toThrow(/table size above/); // 31 + 98 + 31 * 128 = 4097
  });

  it('encodes a request once: static entries where they match, literals without indexing or Huffman otherwise', () => {
    const block = encodeHeaders([
      [':method', 'GET'],
      [':scheme', 'https'],
      [':path', '/'],
      [':authority', 'www.example.com'],
      ['x-long', 'v'.repeat(200)],
    ]);
    expect(block.subarray(0, 20).toString('hex')).toBe(`828784010f${Buffer.from('www.example.com').toString('hex')}`);
    // x-long: a new name (0x00, length 6), then 200 as 0x7f 0x49 (127 + 73).
    expect(block.subarray(20, 30).toString('hex')).toBe(`0006${Buffer.from('x-long').toString('hex')}7f49`);
    expect(block.length).toBe(30 + 200);
  });
});

describe('HPACK blocks for a dynamic table', () => {
  it('inserts what the static table lacks, then names each by its index, the newest 62', () => {
    const blocks = encodeIndexing([
      [':method', 'GET'],
      [':scheme', 'https'],
      [':authority', 'a.test'],
      [':path', '/x'],
      ['x-token', 't'],
    ]);
    expect(blocks.inserting.toString('hex')).toBe(
      `8287` +
        `41${'06'}${Buffer.from('a.test').toString('hex')}` +
        `44${'02'}${Buffer.from('/x').toString('hex')}` +
        `40${'07'}${Buffer.from('x-token').toString('hex')}${'01'}${Buffer.from('t').toString('hex')}`,
    );
    // :authority inserted first (now 64), :path (63), x-token last (62).
    expect(blocks.indexed.toString('hex')).toBe('8287c0bfbe');
    expect(blocks.size).toBe(10 + 6 + 32 + (5 + 2 + 32) + (7 + 1 + 32));
  });

  it('gives the blocks for the table only to a request built to be sent again and again', () => {
    const spec = { url: new URL('https://a.test/x'), method: 'GET', headers: { 'x-token': 't' } };
    expect(http2Request(spec).indexing?.indexed.toString('hex')).toBe('8287c0bfbe');
    expect(http2Request(spec, false).indexing).toBeUndefined();
    expect(http2Request(spec, false).block).toEqual(http2Request(spec).block);
  });

  it('writes a table size update with a five-bit prefix', () => {
    expect(tableSizeUpdate(0).toString('hex')).toBe('20');
    expect(tableSizeUpdate(100).toString('hex')).toBe('3f45'); // 31, then 69
  });
});
