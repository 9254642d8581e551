// Emails were stored lower-cased, which changed what people typed. Since this migration they are stored
// as given and compared without case: the unique constraint moves from the column to lower(email).
// Every email stored before was lower-cased, so no two rows can collide. Frozen in time: Kysely<any>.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await sql`alter table users drop constraint users_email_key`.execute(db);
  await sql`create unique index users_email_lower on users (lower(email))`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop index users_email_lower`.execute(db);
  await sql`update users set email = lower(email)`.execute(db);
  await sql`alter table users add constraint users_email_key unique (email)`.execute(db);
}
