// A webhook may answer its senders with a response its owner sets (status, headers, body, delay),
// instead of the default JSON. Null: the default. Frozen in time: Kysely<any>.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('webhooks').addColumn('response', 'jsonb').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('webhooks').dropColumn('response').execute();
}
