import { describe, expect, it } from 'vitest';
import { decodeBody, queryObject } from '../../../api/capture.ts';

describe('capture formatting', () => {
  it('keeps UTF-8 text as text and an empty body as null', () => {
    expect(decodeBody(Buffer.from('héllo ✓'))).toEqual({ body: 'héllo ✓', encoding: 'utf8' });
    expect(decodeBody(Buffer.alloc(0))).toEqual({ body: null, encoding: 'utf8' });
  });

  it('keeps invalid UTF-8 and NUL bytes as base64', () => {
    const invalid = Buffer.from([0xc3, 0x28]);
    expect(decodeBody(invalid)).toEqual({ body: invalid.toString('base64'), encoding: 'base64' });
    const withNul = Buffer.from('a\u0000b');
    expect(decodeBody(withNul)).toEqual({ body: withNul.toString('base64'), encoding: 'base64' });
  });

  it('keeps as base64 a body that starts with a byte order mark (text readers drop it), only there', () => {
    for (const bom of [Buffer.from('\uFEFF{"a":1}'), Buffer.from([0xef, 0xbb, 0xbf])])
      expect(decodeBody(bom)).toEqual({ body: bom.toString('base64'), encoding: 'base64' });
    // Its first two bytes begin other characters too (U+FEC0), and a mark further in is text.
    for (const text of ['\uFEC0', 'a\uFEFF'])
      expect(decodeBody(Buffer.from(text))).toEqual({ body: text, encoding: 'utf8' });
  });

  it('turns repeated query names into arrays and keeps odd names as data', () => {
    const q = queryObject('a=1&a=2&b=&c=%E2%9C%93&__proto__=x');
    expect(JSON.stringify(q)).toBe('{"a":["1","2"],"b":"","c":"✓","__proto__":"x"}');
  });
});
