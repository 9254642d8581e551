import { createReadStream, createWriteStream } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { assertBlobKey, DEFAULT_CONTENT_TYPE, putBody } from './blob-store.ts';
import type { BlobInfo, BlobStore, ByteRange, PutOptions } from './blob-store.ts';

/** Blobs as files under `root/objects`, content types beside them under `root/meta`.
 * Writes go to a temporary file first and are renamed into place, so a reader never sees half a blob. */
export class FolderBlobStore implements BlobStore {
  readonly kind = 'folder' as const;
  readonly #objects: string;
  readonly #meta: string;
  readonly #tmp: string;

  constructor(root: string) {
    this.#objects = path.join(root, 'objects');
    this.#meta = path.join(root, 'meta');
    this.#tmp = path.join(root, 'tmp');
  }

  async init(): Promise<this> {
    await Promise.all([this.#objects, this.#meta, this.#tmp].map((d) => fs.mkdir(d, { recursive: true })));
    return this;
  }

  async put(key: string, body: Readable | Buffer, options: PutOptions = {}): Promise<BlobInfo> {
    assertBlobKey(key);
    const { body: sent, contentType, tooLarge } = putBody(body, options);
    const tmp = path.join(this.#tmp, randomUUID());
    try {
      await pipeline(Buffer.isBuffer(sent) ? Readable.from([sent]) : sent, createWriteStream(tmp));
      const refused = tooLarge();
      if (refused) throw refused;
      const target = path.join(this.#objects, key);
      await fs.mkdir(path.dirname(target), { recursive: true });
      await fs.mkdir(path.dirname(path.join(this.#meta, key)), { recursive: true });
      await fs.writeFile(path.join(this.#meta, key), contentType);
      await fs.rename(tmp, target);
      const { size } = await fs.stat(target);
      return { key, size, contentType };
    } finally {
      await fs.rm(tmp, { force: true });
    }
  }

  async get(key: string, range?: ByteRange): Promise<{ info: BlobInfo; stream: Readable } | null> {
    const info = await this.stat(key);
    if (!info) return null;
    const stream = createReadStream(path.join(this.#objects, key), range ? { start: range.start, end: range.end } : {});
    return { info, stream };
  }

  async stat(key: string): Promise<BlobInfo | null> {
    assertBlobKey(key);
    try {
      const [st, contentType] = await Promise.all([
        fs.stat(path.join(this.#objects, key)),
        fs.readFile(path.join(this.#meta, key), 'utf8').catch(() => DEFAULT_CONTENT_TYPE),
      ]);
      return st.isFile() ? { key, size: st.size, contentType } : null;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw err;
    }
  }

  async delete(key: string): Promise<void> {
    assertBlobKey(key);
    await Promise.all([
      fs.rm(path.join(this.#objects, key), { force: true }),
      fs.rm(path.join(this.#meta, key), { force: true }),
    ]);
  }

  async list(prefix = ''): Promise<string[]> {
    const entries = await fs.readdir(this.#objects, { recursive: true, withFileTypes: true });
    return entries
      .filter((e) => e.isFile())
      .map((e) => path.relative(this.#objects, path.join(e.parentPath, e.name)).split(path.sep).join('/'))
      .filter((k) => k.startsWith(prefix))
      .sort();
  }

  async ping(): Promise<void> {
    await fs.access(this.#objects);
  }

  async close(): Promise<void> {}
}
