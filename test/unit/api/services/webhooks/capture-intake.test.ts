// A capture's body is kept as text only when text readers give back its very bytes: UTF-8 without
// a NUL (which Postgres text cannot hold) and without a leading byte order mark (which readers drop);
// every other body is kept as base64, byte for byte.
import { describe, expect, it } from 'vitest';
import { decodeBody } from '../../../../../api/services/webhooks/capture-intake.ts';

describe('decodeBody', () => {
  it('keeps UTF-8 as text, and nothing for an empty body', () => {
    expect(decodeBody(Buffer.from('{"amount":"4 200 €"}'))).toEqual({ body: '{"amount":"4 200 €"}', encoding: 'utf8' });
    expect(decodeBody(Buffer.from('\u00ef\u00bb'))).toEqual({ body: '\u00ef\u00bb', encoding: 'utf8' });
    expect(decodeBody(Buffer.alloc(0))).toEqual({ body: null, encoding: 'utf8' });
  });

  it('keeps as base64 a body with a byte order mark, a NUL, or bytes that are not UTF-8', () => {
    for (const bytes of [
      [0xef, 0xbb, 0xbf, 0x7b, 0x7d],
      [0xef, 0xbb, 0xbf],
      [0x61, 0x00, 0x62],
      [0xff, 0xfe, 0x41],
      [0xef, 0xbb],
    ]) {
      const raw = Buffer.from(bytes);
      expect(decodeBody(raw), raw.toString('hex')).toEqual({ body: raw.toString('base64'), encoding: 'base64' });
    }
  });
});
