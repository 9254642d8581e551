import type { Readable } from 'node:stream';
import type { Client } from 'minio';
import { atFirstUse } from '../at-first-use.ts';
import { DependencyUnavailableError } from '../errors.ts';
import { assertBlobKey, DEFAULT_CONTENT_TYPE, putBody } from './blob-store.ts';
import type { BlobInfo, BlobStore, ByteRange, PutOptions } from './blob-store.ts';

// Loaded by the first S3 store, not with this module: a process without S3 (embedded, folder blobs) does
// without the client's ~7 MB of heap (measured), though lib/blob/index.ts imports this module.
const minio = atFirstUse<typeof import('minio')>('minio');

/** Socket errors and the S3 answers that mean the server is away, starting or overloaded: an outage, not our bug. */
const AWAY_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ServiceUnavailable',
  'SlowDown',
  'XMinioServerNotInitialized',
  'XMinioStorageFull',
]);

export function isBlobStoreAway(err: unknown): boolean {
  const e = err as { code?: unknown; message?: unknown } | null;
  return (
    AWAY_CODES.has(String(e?.code ?? '')) || /socket hang up|ECONNREFUSED|ECONNRESET/.test(String(e?.message ?? ''))
  );
}

/** `work`, with the blob store's outages as DependencyUnavailableError('blobs') (503 with Retry-After). */
async function available<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    throw isBlobStoreAway(err) ? new DependencyUnavailableError('blobs', err) : err;
  }
}

export interface S3Settings {
  endpoint: string;
  accessKey: string;
  secretKey: string;
  bucket: string;
}

export class S3BlobStore implements BlobStore {
  readonly kind = 's3' as const;
  readonly #client: Client;
  readonly #bucket: string;

  constructor(settings: S3Settings) {
    const url = new URL(settings.endpoint);
    const { Client } = minio();
    this.#client = new Client({
      endPoint: url.hostname,
      port: url.port ? Number(url.port) : undefined,
      useSSL: url.protocol === 'https:',
      accessKey: settings.accessKey,
      secretKey: settings.secretKey,
      pathStyle: true,
    });
    this.#bucket = settings.bucket;
  }

  async init(): Promise<this> {
    if (!(await this.#client.bucketExists(this.#bucket))) {
      await this.#client.makeBucket(this.#bucket).catch(async (err: unknown) => {
        // Another process may have created it between the two calls.
        if (!(await this.#client.bucketExists(this.#bucket))) throw err;
      });
    }
    return this;
  }

  put(key: string, body: Readable | Buffer, options: PutOptions = {}): Promise<BlobInfo> {
    return available(() => this.#put(key, body, options));
  }

  async #put(key: string, body: Readable | Buffer, options: PutOptions): Promise<BlobInfo> {
    assertBlobKey(key);
    const { body: sent, contentType, tooLarge } = putBody(body, options);
    const meta = { 'Content-Type': contentType };
    try {
      // The client does not listen for the body's errors: a body that fails (a cut-off upload) rejects here.
      const failed = Buffer.isBuffer(sent) ? null : new Promise<never>((_, reject) => sent.once('error', reject));
      await Promise.race([
        this.#client.putObject(this.#bucket, key, sent, undefined, meta),
        ...(failed ? [failed] : []),
      ]);
    } catch (err) {
      await this.#client.removeIncompleteUpload(this.#bucket, key).catch(() => {});
      throw err;
    }
    const refused = tooLarge();
    if (refused) {
      await this.#client.removeObject(this.#bucket, key);
      throw refused;
    }
    const info = await this.stat(key);
    return info ?? { key, size: 0, contentType };
  }

  async get(key: string, range?: ByteRange): Promise<{ info: BlobInfo; stream: Readable } | null> {
    const info = await this.stat(key);
    if (!info) return null;
    const stream = await available(() =>
      range
        ? this.#client.getPartialObject(
            this.#bucket,
            key,
            range.start,
            range.end === undefined ? undefined : range.end - range.start + 1,
          )
        : this.#client.getObject(this.#bucket, key),
    );
    return { info, stream };
  }

  async stat(key: string): Promise<BlobInfo | null> {
    assertBlobKey(key);
    try {
      const st = await available(() => this.#client.statObject(this.#bucket, key));
      const contentType = (st.metaData?.['content-type'] as string | undefined) ?? DEFAULT_CONTENT_TYPE;
      return { key, size: st.size, contentType };
    } catch (err) {
      const code = (err as { code?: string }).code;
      if (code === 'NotFound' || code === 'NoSuchKey') return null;
      throw err;
    }
  }

  async delete(key: string): Promise<void> {
    assertBlobKey(key);
    await available(() => this.#client.removeObject(this.#bucket, key));
  }

  list(prefix = ''): Promise<string[]> {
    return available(async () => {
      const keys: string[] = [];
      for await (const item of this.#client.listObjectsV2(this.#bucket, prefix, true)) {
        if (item.name) keys.push(item.name);
      }
      return keys.sort();
    });
  }

  async ping(): Promise<void> {
    await available(() => this.#client.bucketExists(this.#bucket));
  }

  async close(): Promise<void> {}
}
