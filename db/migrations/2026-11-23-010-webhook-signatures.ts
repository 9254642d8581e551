// A webhook may name a signature scheme and secret: each capture is then shown with whether its
// signature verifies. The secret is sealed (lib/auth/secret-box.ts). Null: none. Frozen in time: Kysely<any>.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('webhooks').addColumn('signature', 'jsonb').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('webhooks').dropColumn('signature').execute();
}
