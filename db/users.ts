import type { Kysely } from 'kysely';
import { verifyPassword } from '../lib/passwords.ts';
import type { Database, Plan } from './schema.ts';

export interface Account {
  id: number;
  email: string;
  plan: Plan;
}

/**
 * The user with this email (compared without case), created on `plan` when there is none; an
 * existing user keeps its plan.
 */
export async function findOrCreateUser(db: Kysely<Database>, email: string, plan: Plan): Promise<Account> {
  // The no-op update makes an existing row come back too (DO NOTHING returns nothing for it).
  const row = await db
    .insertInto('users')
    .values({ email: email.toLowerCase(), plan })
    .onConflict((oc) => oc.column('email').doUpdateSet((eb) => ({ email: eb.ref('excluded.email') })))
    .returning(['id', 'email', 'plan'])
    .executeTakeFirstOrThrow();
  return { id: Number(row.id), email: row.email, plan: row.plan };
}

/** Creates the user, or sets the plan of the existing one with that email. */
export async function upsertUser(db: Kysely<Database>, email: string, plan: Plan): Promise<Account> {
  const row = await db
    .insertInto('users')
    .values({ email: email.toLowerCase(), plan })
    .onConflict((oc) => oc.column('email').doUpdateSet({ plan }))
    .returning(['id', 'email', 'plan'])
    .executeTakeFirstOrThrow();
  return { id: Number(row.id), email: row.email, plan: row.plan };
}

/**
 * Creates the user with this password, or sets the password of the existing one with that email
 * (its plan is kept unless `plan` is given).
 */
export async function setUserPassword(db: Kysely<Database>, email: string, passwordHash: string, plan?: Plan): Promise<Account> {
  const row = await db
    .insertInto('users')
    .values({ email: email.toLowerCase(), plan: plan ?? 'free', password_hash: passwordHash })
    .onConflict((oc) => oc.column('email').doUpdateSet(plan ? { password_hash: passwordHash, plan } : { password_hash: passwordHash }))
    .returning(['id', 'email', 'plan'])
    .executeTakeFirstOrThrow();
  return { id: Number(row.id), email: row.email, plan: row.plan };
}

/** The user with this email and password, or null (same work whether or not the email exists). */
export async function checkUserPassword(db: Kysely<Database>, email: string, password: string): Promise<Account | null> {
  const row = await db.selectFrom('users').select(['id', 'email', 'plan', 'password_hash']).where('email', '=', email.toLowerCase()).executeTakeFirst();
  const ok = await verifyPassword(password, row?.password_hash ?? UNUSABLE_HASH);
  return row && row.password_hash && ok ? { id: Number(row.id), email: row.email, plan: row.plan } : null;
}

export async function findUser(db: Kysely<Database>, id: number): Promise<Account | null> {
  const row = await db.selectFrom('users').select(['id', 'email', 'plan']).where('id', '=', id).executeTakeFirst();
  return row ? { id: Number(row.id), email: row.email, plan: row.plan } : null;
}

/** A well-formed hash no password matches: unknown emails cost as much as known ones. */
const UNUSABLE_HASH = `scrypt$32768$8$1$${Buffer.alloc(16).toString('base64')}$${Buffer.alloc(32).toString('base64')}`;
