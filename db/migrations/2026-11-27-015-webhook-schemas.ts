// A webhook may hold a JSON Schema its captures' bodies are checked against when they are read
// (null: none). Frozen in time: Kysely<any>.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('webhooks').addColumn('json_schema', 'jsonb').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('webhooks').dropColumn('json_schema').execute();
}
