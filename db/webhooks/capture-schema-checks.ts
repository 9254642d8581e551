// Captures' verdicts against their webhook's JSON Schema (captured_requests.schema_check), written
// a batch at a time once computed, and what a check reads: the webhook's schema and the bodies.
import { sql, type Kysely } from 'kysely';
import { readNullableJsonColumn, webhookSchemaColumn } from '../json-columns.ts';
import type { Database, JsonSchema, StoredSchemaCheck } from '../schema.ts';

/** Stores each capture's verdict (a capture deleted meanwhile is skipped). */
export async function storeSchemaChecks(
  db: Kysely<Database>,
  checks: ReadonlyArray<{ id: number; check: StoredSchemaCheck }>,
): Promise<void> {
  if (checks.length === 0) return;
  const payload = JSON.stringify(checks.map((c) => ({ id: c.id, verdict: c.check })));
  await sql`
    update captured_requests c set schema_check = v.verdict
    from json_to_recordset(${payload}::json) as v(id bigint, verdict jsonb)
    where c.id = v.id
  `.execute(db);
}

/** The JSON Schema webhook `webhookRef` holds now (null: none, or no such webhook). */
export async function webhookSchemaOf(db: Kysely<Database>, webhookRef: number): Promise<JsonSchema | null> {
  const row = await db.selectFrom('webhooks').select('json_schema').where('id', '=', webhookRef).executeTakeFirst();
  return row ? readNullableJsonColumn('webhooks.json_schema', webhookSchemaColumn, row.json_schema) : null;
}
