import type { Kysely } from 'kysely';
import { API_KEY_PREFIX } from '../lib/auth/service-credentials.ts';
import { randomToken, sha256Hex } from '../lib/auth/tokens.ts';
import type { Database, Plan } from './schema.ts';

export { API_KEY_PREFIX };
const SHOWN_PREFIX_LENGTH = API_KEY_PREFIX.length + 8;

export interface IssuedKey {
  id: number;
  apiKey: string;
  prefix: string;
}

export interface KeyOwner {
  keyId: number;
  userId: number;
  email: string;
  plan: Plan;
}

/** Makes a new key for a user. The key is returned once; only its hash is stored. */
export async function issueApiKey(
  db: Kysely<Database>,
  userId: number,
  name: string | null = null,
): Promise<IssuedKey> {
  const apiKey = API_KEY_PREFIX + randomToken(24);
  const prefix = apiKey.slice(0, SHOWN_PREFIX_LENGTH);
  const row = await db
    .insertInto('api_keys')
    .values({ user_id: userId, key_hash: sha256Hex(apiKey), prefix, name, revoked_at: null })
    .returning('id')
    .executeTakeFirstOrThrow();
  return { id: Number(row.id), apiKey, prefix };
}

/** The owner of a key that exists and is not revoked, or null. */
export async function findKeyOwner(db: Kysely<Database>, apiKey: string): Promise<KeyOwner | null> {
  const row = await db
    .selectFrom('api_keys')
    .innerJoin('users', 'users.id', 'api_keys.user_id')
    .select(['api_keys.id as key_id', 'users.id as user_id', 'users.email', 'users.plan'])
    .where('api_keys.key_hash', '=', sha256Hex(apiKey))
    .where('api_keys.revoked_at', 'is', null)
    .executeTakeFirst();
  return row ? { keyId: Number(row.key_id), userId: Number(row.user_id), email: row.email, plan: row.plan } : null;
}

/** Revokes a key; false when no such active key exists. */
export async function revokeApiKey(db: Kysely<Database>, apiKey: string): Promise<boolean> {
  const result = await db
    .updateTable('api_keys')
    .set({ revoked_at: new Date() })
    .where('key_hash', '=', sha256Hex(apiKey))
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

export interface KeyListing {
  id: number;
  prefix: string;
  name: string | null;
  createdAt: Date;
  revokedAt: Date | null;
}

/** A user's keys, newest first (revoked ones too, marked), never the keys themselves. */
export async function listApiKeys(db: Kysely<Database>, userId: number): Promise<KeyListing[]> {
  const rows = await db
    .selectFrom('api_keys')
    .select(['id', 'prefix', 'name', 'created_at', 'revoked_at'])
    .where('user_id', '=', userId)
    .orderBy('id', 'desc')
    .execute();
  return rows.map((r) => ({
    id: Number(r.id),
    prefix: r.prefix,
    name: r.name,
    createdAt: new Date(r.created_at),
    revokedAt: r.revoked_at ? new Date(r.revoked_at) : null,
  }));
}

/** Revokes one of the user's keys by id; false when it is not theirs or already revoked. */
export async function revokeOwnedApiKey(db: Kysely<Database>, userId: number, keyId: number): Promise<boolean> {
  const result = await db
    .updateTable('api_keys')
    .set({ revoked_at: new Date() })
    .where('id', '=', keyId)
    .where('user_id', '=', userId)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}
