import { createHash, randomBytes } from 'node:crypto';

/** An unguessable URL-safe token of `bytes` random bytes (128 bits by default). */
export function randomToken(bytes = 16): string {
  return randomBytes(bytes).toString('base64url');
}

export function sha256Hex(value: string): string {
  return createHash('sha256').update(value).digest('hex');
}

/** The public ids of webhooks and jobs: what randomToken makes, and what a caller may send back. */
export const PUBLIC_ID_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;
