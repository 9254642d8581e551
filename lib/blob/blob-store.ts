// The blob store: S3/MinIO when S3_ENDPOINT is set, a folder under DATA_DIR otherwise.
// Both implementations pass the same contract suite (test/contract/blob-store.test.ts).
import { PassThrough, type Readable } from 'node:stream';
import { InvalidInputError, PayloadTooLargeError } from '../errors.ts';

export interface BlobInfo {
  key: string;
  size: number;
  contentType: string;
}

export interface PutOptions {
  contentType?: string;
  /** Refuse, and keep nothing, when the body grows past this many bytes. */
  maxBytes?: number;
}

/** Inclusive byte range, as in an HTTP Range header; `end` defaults to the last byte. */
export interface ByteRange {
  start: number;
  end?: number;
}

export interface BlobStore {
  readonly kind: 'folder' | 's3';
  /** Streams `body` in; throws BlobTooLargeError (and stores nothing) past `maxBytes`. */
  put(key: string, body: Readable | Buffer, options?: PutOptions): Promise<BlobInfo>;
  get(key: string, range?: ByteRange): Promise<{ info: BlobInfo; stream: Readable } | null>;
  stat(key: string): Promise<BlobInfo | null>;
  /** Deleting a missing key is not an error. */
  delete(key: string): Promise<void>;
  /** Keys under a prefix, sorted. */
  list(prefix?: string): Promise<string[]>;
  ping(): Promise<void>;
  close(): Promise<void>;
}

export class BlobTooLargeError extends PayloadTooLargeError {
  override name = 'BlobTooLargeError';
}

export const DEFAULT_CONTENT_TYPE = 'application/octet-stream';

const KEY_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]*(\/[A-Za-z0-9][A-Za-z0-9._-]*)*$/;

/** Keys are relative paths of safe segments: no `..`, no leading slash, nothing a folder store could escape with. */
export function assertBlobKey(key: string): void {
  if (key.length > 512 || !KEY_PATTERN.test(key) || key.split('/').some((s) => s === '.' || s === '..')) {
    throw new InvalidInputError(`Invalid blob key ${JSON.stringify(key)}`, 'key');
  }
}

/**
 * What a store writes for `put`: the body held to `maxBytes`, and its content type. A Buffer past the limit is
 * refused at once; a stream is cut off there, and once it is written `tooLarge()` is the error to throw (after
 * the store deletes what it wrote), undefined when the body fitted.
 */
export function putBody(
  body: Readable | Buffer,
  options: PutOptions,
): { body: Readable | Buffer; contentType: string; tooLarge: () => BlobTooLargeError | undefined } {
  const { maxBytes } = options;
  const contentType = options.contentType ?? DEFAULT_CONTENT_TYPE;
  if (Buffer.isBuffer(body) && maxBytes !== undefined && body.length > maxBytes) throw new BlobTooLargeError(maxBytes);
  if (Buffer.isBuffer(body) || maxBytes === undefined) return { body, contentType, tooLarge: () => undefined };
  const limited = limitBytes(body, maxBytes);
  return {
    body: limited.stream,
    contentType,
    tooLarge: () => (limited.exceeded() ? new BlobTooLargeError(maxBytes) : undefined),
  };
}

/**
 * A copy of `source` that ends early, instead of failing, once more than `maxBytes` went through;
 * `exceeded()` then says so, and the store deletes what it wrote. The source is paused and left to its
 * owner rather than destroyed: an HTTP upload must still be able to answer 413 on its own socket.
 */
function limitBytes(source: Readable, maxBytes: number): { stream: Readable; exceeded: () => boolean } {
  const out = new PassThrough();
  let seen = 0;
  let exceeded = false;
  const onData = (chunk: Buffer) => {
    seen += chunk.length;
    if (seen > maxBytes) {
      exceeded = true;
      detach();
      source.pause();
      out.end();
    } else if (!out.write(chunk)) {
      source.pause();
      out.once('drain', () => source.resume());
    }
  };
  const onEnd = () => out.end();
  const onError = (err: Error) => out.destroy(err);
  const detach = () => {
    source.off('data', onData);
    source.off('end', onEnd);
    source.off('error', onError);
  };
  source.on('data', onData);
  source.once('end', onEnd);
  source.once('error', onError);
  return { stream: out, exceeded: () => exceeded };
}
