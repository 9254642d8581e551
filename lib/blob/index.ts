import path from 'node:path';
import type { BlobStore } from './blob-store.ts';
import { FolderBlobStore } from './folder-store.ts';
import { S3BlobStore, type S3Settings } from './s3-store.ts';

export type { BlobInfo, BlobStore, ByteRange, PutOptions } from './blob-store.ts';
export { BlobTooLargeError } from './blob-store.ts';
export { FolderBlobStore, S3BlobStore };

export async function createBlobStore(s3: S3Settings | undefined, dataDir: string): Promise<BlobStore> {
  return s3 ? new S3BlobStore(s3).init() : new FolderBlobStore(path.join(dataDir, 'blobs')).init();
}
