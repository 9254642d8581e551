// What both blob stores write for a put: the body held to its limit, and its content type.
import { Readable } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import { describe, expect, it } from 'vitest';
import { BlobTooLargeError, DEFAULT_CONTENT_TYPE, putBody } from '../../../../lib/blob/blob-store.ts';

describe('putBody', () => {
  it('refuses a buffer past the limit at once, and passes one within it as it is', () => {
    expect(() => putBody(Buffer.from('12345'), { maxBytes: 4 })).toThrow(BlobTooLargeError);
    const fits = Buffer.from('1234');
    const put = putBody(fits, { maxBytes: 4, contentType: 'text/plain' });
    expect(put).toMatchObject({ body: fits, contentType: 'text/plain' });
    expect(put.tooLarge()).toBeUndefined();
  });

  it('cuts a stream off past the limit, and says so once it is written', async () => {
    const put = putBody(Readable.from([Buffer.from('123'), Buffer.from('456')]), { maxBytes: 4 });
    expect(put.contentType).toBe(DEFAULT_CONTENT_TYPE);
    expect((await buffer(put.body as Readable)).toString()).toBe('123');
    expect(put.tooLarge()).toBeInstanceOf(BlobTooLargeError);
    expect(put.tooLarge()?.message).toMatch(/limit of 4 bytes/);
  });

  it('lets a stream within the limit, or without one, through whole', async () => {
    const within = putBody(Readable.from([Buffer.from('1234')]), { maxBytes: 4 });
    expect((await buffer(within.body as Readable)).toString()).toBe('1234');
    expect(within.tooLarge()).toBeUndefined();
    const source = Readable.from([Buffer.from('12345')]);
    expect(putBody(source, {}).body).toBe(source);
  });
});
