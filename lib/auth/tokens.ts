import { createHash, randomBytes } from 'node:crypto';

/** An unguessable URL-safe token of `bytes` random bytes (128 bits by default). */
export function randomToken(bytes = 16): string {
  return randomBytes(bytes).toString('base64url');
}

export function sha256Hex(value: string): string {
  return createHash('sha256').update(value).digest('hex');
}

/**
 * A new public id (a webhook's, a job's): randomToken's alphabet, but never starting with `-` or
 * `_`, which command-line tools would read as an option or that look like a separator.
 */
export function newPublicId(bytes: number): string {
  for (;;) {
    const id = randomToken(bytes);
    if (/^[A-Za-z0-9]/.test(id)) return id;
  }
}

/**
 * The public ids of webhooks and jobs: what newPublicId makes (older ones may start with - or _), and what a caller may
 * send back.
 */
export const PUBLIC_ID_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;
