import type { Readable } from 'node:stream';
import { Client } from 'minio';
import { assertBlobKey, BlobTooLargeError, limitBytes, DEFAULT_CONTENT_TYPE, type BlobInfo, type BlobStore, type ByteRange, type PutOptions } from './blob-store.ts';

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

  async put(key: string, body: Readable | Buffer, options: PutOptions = {}): Promise<BlobInfo> {
    assertBlobKey(key);
    const contentType = options.contentType ?? DEFAULT_CONTENT_TYPE;
    const meta = { 'Content-Type': contentType };
    if (Buffer.isBuffer(body) && options.maxBytes !== undefined && body.length > options.maxBytes) {
      throw new BlobTooLargeError(options.maxBytes);
    }
    const limited = Buffer.isBuffer(body) || options.maxBytes === undefined ? undefined : limitBytes(body, options.maxBytes);
    const sent = limited?.stream ?? body;
    try {
      // The client does not listen for the body's errors: a body that fails (a cut-off upload) rejects here.
      const failed = Buffer.isBuffer(sent) ? null : new Promise<never>((_, reject) => sent.once('error', reject));
      await Promise.race([this.#client.putObject(this.#bucket, key, sent, undefined, meta), ...(failed ? [failed] : [])]);
    } catch (err) {
      await this.#client.removeIncompleteUpload(this.#bucket, key).catch(() => {});
      throw err;
    }
    if (limited?.exceeded()) {
      await this.#client.removeObject(this.#bucket, key);
      throw new BlobTooLargeError(options.maxBytes!);
    }
    const info = await this.stat(key);
    return info ?? { key, size: 0, contentType };
  }

  async get(key: string, range?: ByteRange): Promise<{ info: BlobInfo; stream: Readable } | null> {
    const info = await this.stat(key);
    if (!info) return null;
    const stream = range
      ? await this.#client.getPartialObject(this.#bucket, key, range.start, range.end === undefined ? undefined : range.end - range.start + 1)
      : await this.#client.getObject(this.#bucket, key);
    return { info, stream };
  }

  async stat(key: string): Promise<BlobInfo | null> {
    assertBlobKey(key);
    try {
      const st = await this.#client.statObject(this.#bucket, key);
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
    await this.#client.removeObject(this.#bucket, key);
  }

  async list(prefix = ''): Promise<string[]> {
    const keys: string[] = [];
    for await (const item of this.#client.listObjectsV2(this.#bucket, prefix, true)) {
      if (item.name) keys.push(item.name);
    }
    return keys.sort();
  }

  async ping(): Promise<void> {
    await this.#client.bucketExists(this.#bucket);
  }

  async close(): Promise<void> {}
}
