import { createHash, randomBytes } from 'node:crypto';

/** An unguessable URL-safe token of `bytes` random bytes (128 bits by default). */
export function randomToken(bytes = 16): string {
  return randomBytes(bytes).toString('base64url');
}

export function sha256Hex(value: string): string {
  return createHash('sha256').update(value).digest('hex');
}
