// Sign-in for the MCP endpoint's OAuth flow: a password per user (API keys stay as they are), and the
// authorization server's records (clients, grants, codes, tokens, sessions) in one table keyed by kind.
// Frozen in time: typed against Kysely<any>, never against today's schema.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('users').addColumn('password_hash', 'text').execute();

  await db.schema
    .createTable('oauth_records')
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('id', 'text', (c) => c.notNull())
    .addColumn('payload', 'jsonb', (c) => c.notNull())
    .addColumn('grant_id', 'text')
    .addColumn('user_code', 'text')
    .addColumn('uid', 'text')
    .addColumn('account_id', 'text')
    .addColumn('expires_at', 'timestamptz')
    .addColumn('consumed_at', 'timestamptz')
    .addPrimaryKeyConstraint('oauth_records_pk', ['kind', 'id'])
    .execute();
  await db.schema.createIndex('oauth_records_grant').on('oauth_records').column('grant_id').execute();
  await db.schema.createIndex('oauth_records_uid').on('oauth_records').columns(['kind', 'uid']).execute();
  await db.schema.createIndex('oauth_records_user_code').on('oauth_records').columns(['kind', 'user_code']).execute();
  await db.schema.createIndex('oauth_records_account').on('oauth_records').columns(['kind', 'account_id']).execute();
  await sql`create index oauth_records_expiry on oauth_records (expires_at) where expires_at is not null`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('oauth_records').execute();
  await db.schema.alterTable('users').dropColumn('password_hash').execute();
}
