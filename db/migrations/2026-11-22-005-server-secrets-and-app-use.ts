// Secrets every API process must share (the OAuth signing key, cookie keys), generated once by the
// first process to need them; and when each connected app (an OAuth grant) was last used on /mcp.
// Frozen in time: typed against Kysely<any>, never against today's schema.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('server_secrets')
    .addColumn('name', 'text', (c) => c.primaryKey())
    .addColumn('value', 'text', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  await db.schema
    .createTable('oauth_grant_use')
    .addColumn('grant_id', 'text', (c) => c.primaryKey())
    .addColumn('first_used_at', 'timestamptz', (c) => c.notNull())
    .addColumn('last_used_at', 'timestamptz', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('oauth_grant_use').execute();
  await db.schema.dropTable('server_secrets').execute();
}
