import type { IncomingMessage } from 'node:http';
import { AppError, PayloadTooLargeError } from '../lib/errors.ts';

/** The whole body; refused with 413 as soon as it is known to pass `limit` (declared or streamed). */
export function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  if (Number(req.headers['content-length']) > limit) return Promise.reject(new PayloadTooLargeError(limit));
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        req.off('data', onData);
        req.pause();
        reject(new PayloadTooLargeError(limit));
      } else {
        chunks.push(chunk);
      }
    };
    req.on('data', onData);
    req.once('end', () => resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size)));
    req.once('error', (err) => reject(new AppError(400, `Request body could not be read: ${err.message}`)));
  });
}
