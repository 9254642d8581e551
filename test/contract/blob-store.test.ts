// One contract, every blob store: the folder store always, S3/MinIO when S3_ENDPOINT is set.
import { randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import { text } from 'node:stream/consumers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BlobTooLargeError, FolderBlobStore, S3BlobStore, type BlobStore } from '../../lib/blob/index.ts';
import { tempDir } from '../support/processes.ts';

const stores: Array<[string, () => Promise<BlobStore>]> = [
  ['folder', async () => new FolderBlobStore(await tempDir('blobs')).init()],
];
if (process.env.S3_ENDPOINT) {
  stores.push([
    's3',
    () =>
      new S3BlobStore({
        endpoint: process.env.S3_ENDPOINT!,
        accessKey: process.env.S3_ACCESS_KEY!,
        secretKey: process.env.S3_SECRET_KEY!,
        bucket: process.env.S3_BUCKET!,
      }).init(),
  ]);
}

describe.each(stores)('blob store contract (%s)', (_kind, make) => {
  let store: BlobStore;
  const prefix = `test-${randomUUID()}`;
  beforeAll(async () => {
    store = await make();
  });
  afterAll(async () => {
    for (const key of await store.list(prefix)) await store.delete(key);
    await store.close();
  });

  it('puts a buffer and gets it back with its size and content type', async () => {
    const info = await store.put(`${prefix}/a.txt`, Buffer.from('hello blob'), { contentType: 'text/plain' });
    expect(info).toEqual({ key: `${prefix}/a.txt`, size: 10, contentType: 'text/plain' });
    expect(await store.stat(`${prefix}/a.txt`)).toEqual(info);
    const got = await store.get(`${prefix}/a.txt`);
    expect(got!.info).toEqual(info);
    expect(await text(got!.stream)).toBe('hello blob');
  });

  it('streams a body in and serves byte ranges', async () => {
    const chunks = Array.from({ length: 64 }, (_, i) => Buffer.alloc(1024, 65 + (i % 26)));
    const info = await store.put(`${prefix}/big.bin`, Readable.from(chunks));
    expect(info.size).toBe(64 * 1024);
    expect(info.contentType).toBe('application/octet-stream');
    const range = await store.get(`${prefix}/big.bin`, { start: 1020, end: 1027 });
    expect(await text(range!.stream)).toBe('AAAABBBB');
    const tail = await store.get(`${prefix}/big.bin`, { start: 64 * 1024 - 3 });
    expect((await text(tail!.stream)).length).toBe(3);
  });

  it('accepts a body of exactly maxBytes and refuses one byte more, keeping nothing', async () => {
    await expect(
      store.put(`${prefix}/edge`, Readable.from([Buffer.alloc(1000)]), { maxBytes: 1000 }),
    ).resolves.toMatchObject({ size: 1000 });
    const over = store.put(`${prefix}/over`, Readable.from([Buffer.alloc(600), Buffer.alloc(401)]), { maxBytes: 1000 });
    await expect(over).rejects.toBeInstanceOf(BlobTooLargeError);
    await expect(store.put(`${prefix}/over-buffer`, Buffer.alloc(1001), { maxBytes: 1000 })).rejects.toBeInstanceOf(
      BlobTooLargeError,
    );
    expect(await store.stat(`${prefix}/over`)).toBeNull();
    expect(await store.stat(`${prefix}/over-buffer`)).toBeNull();
    expect(await store.list(prefix)).not.toContain(`${prefix}/over`);
  });

  it('rejects a put whose body fails midway (a cut-off upload), with or without a limit, keeping nothing', async () => {
    for (const [name, options] of [
      ['failing', {}],
      ['failing-limited', { maxBytes: 10_000 }],
    ] as const) {
      const body = new Readable({ read() {} });
      body.push(Buffer.alloc(2000, 1));
      setTimeout(() => body.destroy(new Error('the client went away')), 20);
      await expect(store.put(`${prefix}/${name}`, body, options)).rejects.toThrow(/the client went away/);
      expect(await store.stat(`${prefix}/${name}`)).toBeNull();
    }
  });

  it('answers null for a missing key, and deleting it is not an error', async () => {
    expect(await store.get(`${prefix}/missing`)).toBeNull();
    expect(await store.stat(`${prefix}/missing`)).toBeNull();
    await expect(store.delete(`${prefix}/missing`)).resolves.toBeUndefined();
  });

  it('lists keys under a prefix, sorted, and forgets deleted ones', async () => {
    const p = `${prefix}/list`;
    for (const name of ['c', 'a', 'b/d']) await store.put(`${p}/${name}`, Buffer.from(name));
    expect(await store.list(p)).toEqual([`${p}/a`, `${p}/b/d`, `${p}/c`]);
    await store.delete(`${p}/a`);
    expect(await store.list(p)).toEqual([`${p}/b/d`, `${p}/c`]);
  });

  it('refuses keys that could escape or confuse the store', async () => {
    for (const key of ['../etc/passwd', '/abs', 'a/../b', 'a//b', '', 'a/./b', 'sp ace']) {
      await expect(store.put(key, Buffer.from('x')), key).rejects.toThrow(/Invalid blob key/);
    }
  });
});
