import type { IncomingMessage } from 'node:http';
import { InvalidInputError, PayloadTooLargeError } from '../lib/errors.ts';

/**
 * The whole body; refused with 413 as soon as it is known to pass `limit` (declared or streamed).
 * `declaredLength` is the Content-Length header, for a caller that has read the headers already
 * (`req.headers` is built on first use, which the capture path avoids).
 */
export function readBody(
  req: IncomingMessage,
  limit: number,
  declaredLength = req.headers['content-length'],
): Promise<Buffer> {
  if (Number(declaredLength) > limit) return Promise.reject(new PayloadTooLargeError(limit));
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        req.off('data', onData); // the rest flows to nowhere; see settleUnreadBody
        reject(new PayloadTooLargeError(limit));
      } else {
        chunks.push(chunk);
      }
    };
    req.on('data', onData);
    req.once('end', () => resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size)));
    req.once('error', (err) => reject(new InvalidInputError(`Request body could not be read: ${err.message}`)));
  });
}

/** Up to this much of a refused body is read and dropped so that the client, still sending, can read the answer. */
const DRAIN_LIMIT_BYTES = 16 * 1024 * 1024;

/**
 * Call before answering a request whose body was not (fully) read, a 413 say. A client that is still
 * sending would get a broken pipe instead of our answer if the connection closed at once: so a body
 * of modest or unknown size is drained (Node's server discards it, keeping the connection), and only a
 * larger declared one gets `Connection: close`. Returns the headers to add to the answer.
 */
export function settleUnreadBody(req: IncomingMessage): Record<string, string> {
  if (req.complete) return {};
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > DRAIN_LIMIT_BYTES) return { Connection: 'close' };
  req.resume();
  return {};
}
