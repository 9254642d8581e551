// Passwords for sign-in: scrypt (node:crypto) with a random salt, stored as
// `scrypt$<N>$<r>$<p>$<salt b64>$<hash b64>` so the cost can rise later without breaking old hashes.
import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';

const COST = { N: 2 ** 15, r: 8, p: 1 };
const KEY_LENGTH = 32;
export const MIN_PASSWORD_LENGTH = 10;

function derive(password: string, salt: Buffer, options: ScryptOptions): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    scrypt(
      password.normalize('NFKC'),
      salt,
      KEY_LENGTH,
      { ...options, maxmem: 128 * options.N! * options.r! * 2 },
      (err, key) => (err ? reject(err) : resolve(key)),
    ),
  );
}

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await derive(password, salt, COST);
  return ['scrypt', COST.N, COST.r, COST.p, salt.toString('base64'), key.toString('base64')].join('$');
}

/** True when `password` matches `stored`; false for any malformed hash. Constant time in the key. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, salt, hash] = stored.split('$');
  if (scheme !== 'scrypt' || !salt || !hash) return false;
  const expected = Buffer.from(hash, 'base64');
  const cost = { N: Number(n), r: Number(r), p: Number(p) };
  // A damaged or hostile cost (not a power of two, or absurdly large) is a mismatch, never a crash.
  if (![cost.N, cost.r, cost.p].every(Number.isSafeInteger) || cost.N > 2 ** 20 || cost.r > 32 || cost.p > 16)
    return false;
  try {
    const key = await derive(password, Buffer.from(salt, 'base64'), cost);
    return key.length === expected.length && timingSafeEqual(key, expected);
  } catch {
    return false;
  }
}
