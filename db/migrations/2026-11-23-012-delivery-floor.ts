// Deliveries owed are found from each forwarding webhook's delivery floor, not from an index of
// pending captures: every capture of a forwarding webhook entered that index as it was stored, and
// that one more index entry per capture cost the capture path 13 % (measured: stored through the
// database, forwarding webhooks' captures 0.87 of plain ones with the index, 0.98 without). The
// floor is an id of the webhook's captures at or below which no capture waits for its first
// attempt; the forwarder walks the webhook's own index from it (captures are stored in id order, so
// what lies above the floor is mostly what is owed), and raises it after each batch
// (capture-deliveries.ts). Captures waiting for a retry are indexed apart (only they: a capture
// enters that index when an attempt fails, never as it is stored), so one slow receiver's retries
// never hold the floor back. Frozen in time: Kysely<any>.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('webhooks')
    .addColumn('delivery_floor', 'bigint', (c) => c.notNull().defaultTo(0))
    .execute();
  await sql`drop index captured_requests_pending_delivery`.execute(db);
  await sql`create index captured_requests_retrying on captured_requests (webhook_ref, id) where (delivery ->> 'status') = 'pending' and (delivery ->> 'next_attempt_at') is not null`.execute(
    db,
  );
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop index captured_requests_retrying`.execute(db);
  await sql`create index captured_requests_pending_delivery on captured_requests (webhook_ref, id) where (delivery ->> 'status') = 'pending'`.execute(
    db,
  );
  await db.schema.alterTable('webhooks').dropColumn('delivery_floor').execute();
}
