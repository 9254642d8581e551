import { sql, type Kysely } from 'kysely';
import { verifyPassword } from '../lib/auth/passwords.ts';
import type { Database, Plan } from './schema.ts';

/**
 * Emails are stored as given and compared without case (a unique index on lower(email)): the conflict
 * target of every insert that may meet an existing user.
 */
export const sameEmail = <B extends { expression(e: ReturnType<typeof sql>): B }>(oc: B): B =>
  oc.expression(sql`lower(email)`);

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
    .values({ email, plan })
    .onConflict((oc) => sameEmail(oc).doUpdateSet((eb) => ({ email: eb.ref('users.email') })))
    .returning(['id', 'email', 'plan'])
    .executeTakeFirstOrThrow();
  return { id: Number(row.id), email: row.email, plan: row.plan };
}

/** Creates the user, or sets the plan of the existing one with that email. */
export async function upsertUser(db: Kysely<Database>, email: string, plan: Plan): Promise<Account> {
  const row = await db
    .insertInto('users')
    .values({ email, plan })
    .onConflict((oc) => sameEmail(oc).doUpdateSet({ plan }))
    .returning(['id', 'email', 'plan'])
    .executeTakeFirstOrThrow();
  return { id: Number(row.id), email: row.email, plan: row.plan };
}

/**
 * Creates the user with this password, or sets the password of the existing one with that email
 * (its plan is kept unless `plan` is given).
 */
export async function setUserPassword(
  db: Kysely<Database>,
  email: string,
  passwordHash: string,
  plan?: Plan,
): Promise<Account> {
  const row = await db
    .insertInto('users')
    .values({ email, plan: plan ?? 'free', password_hash: passwordHash })
    .onConflict((oc) =>
      sameEmail(oc).doUpdateSet(plan ? { password_hash: passwordHash, plan } : { password_hash: passwordHash }),
    )
    .returning(['id', 'email', 'plan'])
    .executeTakeFirstOrThrow();
  return { id: Number(row.id), email: row.email, plan: row.plan };
}

/** The user with this email and password, or null (same work whether or not the email exists). */
export async function checkUserPassword(
  db: Kysely<Database>,
  email: string,
  password: string,
): Promise<Account | null> {
  const row = await db
    .selectFrom('users')
    .select(['id', 'email', 'plan', 'password_hash'])
    .where(sql<string>`lower(email)`, '=', sql<string>`lower(${email})`)
    .executeTakeFirst();
  const ok = await verifyPassword(password, row?.password_hash ?? UNUSABLE_HASH);
  return row?.password_hash && ok ? { id: Number(row.id), email: row.email, plan: row.plan } : null;
}

export async function findUser(db: Kysely<Database>, id: number): Promise<Account | null> {
  const row = await db.selectFrom('users').select(['id', 'email', 'plan']).where('id', '=', id).executeTakeFirst();
  return row ? { id: Number(row.id), email: row.email, plan: row.plan } : null;
}

/** A well-formed hash no password matches: unknown emails cost as much as known ones. */
const UNUSABLE_HASH = `scrypt$32768$8$1$${Buffer.alloc(16).toString('base64')}$${Buffer.alloc(32).toString('base64')}`;
