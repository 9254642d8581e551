// Captures checked against their webhook's JSON Schema on the checker's threads (lib/json-schema/json-schema-pool.ts),
// never on the event loop, and each once per schema: after it is stored (the capture writer hands
// over each batch's captures once their senders have their answers), its verdict kept in its row
// with the hash of the schema it was checked against. Reads use the verdicts kept; a capture with
// none for the schema the webhook holds now (the schema changed, or the checker was too busy to
// take it) is checked then, stored the same way, and waited for at most `readWaitMs`: past that it
// shows `not checked yet` (the check goes on, and the next read has its verdict). A check past its
// budget is a verdict too, kept: `{valid: null, error: "check took too long"}`.
import { createHash } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { CapturesToCheck } from '../../../db/webhooks/capture-writer.ts';
import { storeSchemaChecks, webhookSchemaOf } from '../../../db/webhooks/capture-schema-checks.ts';
import { captureBodies } from '../../../db/webhooks/captured-requests.ts';
import type { Database, JsonSchema, StoredSchemaCheck } from '../../../db/schema.ts';
import { batcher } from '../../../lib/concurrency/batcher.ts';
import {
  BUSY,
  type CheckVerdict,
  isFinal,
  SchemaCheckPool,
  TOO_BIG,
  TOO_LONG,
  unchecked,
} from '../../../lib/json-schema/json-schema-pool.ts';
import { UnavailableError } from '../../../lib/errors.ts';

export { BUSY };

export const STILL_RUNNING = 'not checked yet: the check is still running';
/** How long a read waits for the checks it needs before it answers without them. */
export const READ_WAIT_MS = 500;
/**
 * How much longer when the checker has no thread started (none kept after a quiet spell): a thread
 * takes 0.2-1 s to start, and a read right after a quiet spell would otherwise answer without verdicts.
 */
export const COLD_START_MS = 1500;
/** Bodies read at a time to check against a schema. */
const CHECK_BATCH = 100;
/** How often a read whose owner's queue is full looks again for room. */
const ROOM_POLL_MS = 20;
/** Verdicts this process keeps in memory (beside the database's: a read racing their write finds them). */
const MAX_RECENT = 10_000;

/** A capture as the check reads it (with its kept verdict, when read with one). */
export interface CheckedBody {
  id: number;
  body: string | null;
  bodyEncoding: 'utf8' | 'base64';
  schemaCheck?: StoredSchemaCheck | null;
}

/** A schema as the checker takes it: its JSON text, known by its hash. */
interface Schema {
  text: string;
  hash: string;
}
const schemaOf = (schema: JsonSchema): Schema => {
  const text = JSON.stringify(schema);
  return { text, hash: createHash('sha256').update(text).digest('base64url') };
};
const shown = (c: StoredSchemaCheck): CheckVerdict =>
  c.valid === null
    ? unchecked(c.error ?? 'not checked')
    : { valid: c.valid, errors: c.errors.map(({ path, message }) => ({ path, message })) };

/** Resolves when `work` does or `ms` have passed, whichever comes first. */
async function within(work: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([work, new Promise((r) => (timer = setTimeout(r, Math.max(0, ms))))]);
  clearTimeout(timer);
}

/**
 * The compiles of schemas being set: their owner waits for the answer, so at the service's own
 * priority (a busy machine keeps the checker's lowered threads from the CPU for longer than the
 * budget allows) on a thread of their own, started at the first; as bounded as a check.
 */
const settingPool = () => new SchemaCheckPool({ threads: 1, nice: 0, maxQueued: 32, maxQueuedPerOwner: 2 });

export function schemaChecks({
  db,
  pool = new SchemaCheckPool(),
  compiles = settingPool(),
  readWaitMs = READ_WAIT_MS,
  coldStartMs = COLD_START_MS,
}: {
  db: Kysely<Database>;
  pool?: SchemaCheckPool;
  /** Where a schema being set is compiled. */
  compiles?: SchemaCheckPool;
  readWaitMs?: number;
  coldStartMs?: number;
}) {
  /** Checks running or waiting, by schema hash and capture id: a second ask joins the first. */
  const running = new Map<string, Promise<CheckVerdict>>();
  /** The newest verdicts computed here, by schema hash and capture id (written, or being written). */
  const recent = new Map<string, CheckVerdict>();
  const writes = batcher<{ id: number; check: StoredSchemaCheck }>(
    async (items) => {
      try {
        await storeSchemaChecks(db, items);
      } catch {
        // Not kept: another process checks the capture again when it reads it.
      }
    },
    { maxItems: 200, maxWaitMs: 20 },
  );

  /** `capture`'s verdict against `schema`, checked once (kept when final); null when the checker is busy. */
  function check(owner: number, schema: Schema, capture: CheckedBody): Promise<CheckVerdict> | null {
    const key = `${schema.hash}:${capture.id}`;
    const known = recent.get(key);
    if (known) return Promise.resolve(known);
    const joined = running.get(key);
    if (joined) return joined;
    const job = { hash: schema.hash, schema: schema.text, body: capture.body, encoding: capture.bodyEncoding };
    const submitted = pool.submit(String(owner), job);
    if (!submitted) return null;
    const done = submitted.then((verdict) => {
      running.delete(key);
      if (isFinal(verdict)) {
        if (recent.size >= MAX_RECENT) recent.delete(recent.keys().next().value!);
        recent.set(key, verdict);
        writes.add({ id: capture.id, check: { hash: schema.hash, ...verdict } });
      }
      return verdict;
    });
    running.set(key, done);
    return done;
  }

  /**
   * Checks the captures `ids` of one owner as the checker has room for them (reading their bodies with
   * `load`, a batch at a time), telling each verdict as it comes, until `readWaitMs` have passed; which
   * were submitted (the others: the checker was busy).
   */
  async function feed(
    owner: number,
    schema: Schema,
    ids: readonly number[],
    load: (ids: number[]) => Promise<CheckedBody[]>,
    told: (id: number, verdict: CheckVerdict) => void,
  ): Promise<{ submitted: Set<number> }> {
    const deadline = Date.now() + readWaitMs + (pool.warm ? 0 : coldStartMs);
    const submitted = new Set<number>();
    const pending = new Set<Promise<void>>();
    for (let next = 0; next < ids.length && Date.now() < deadline; ) {
      const room = Math.min(CHECK_BATCH, pool.room(String(owner)));
      if (room === 0) {
        // The owner's queue is full: until one of these checks ends, or a moment for the others to.
        await within(Promise.race(pending), Math.min(ROOM_POLL_MS, deadline - Date.now()));
        continue;
      }
      const batch = ids.slice(next, next + room);
      next += batch.length;
      for (const body of await load(batch)) {
        const checked = check(owner, schema, body);
        if (!checked) continue;
        submitted.add(body.id);
        const waiting: Promise<void> = checked.then((v) => {
          told(body.id, v);
          pending.delete(waiting);
        });
        pending.add(waiting);
      }
    }
    if (pending.size) await within(Promise.all(pending), deadline - Date.now());
    return { submitted };
  }

  /** The captures a batch stored for one webhook, checked as the checker has room (the rest when read). */
  async function checkStored({ ref, owner, ids }: CapturesToCheck): Promise<void> {
    const room = pool.room(String(owner));
    if (room === 0) return;
    const schema = await webhookSchemaOf(db, ref);
    if (!schema) return;
    const s = schemaOf(schema);
    for (const body of await captureBodies(db, ref, ids.slice(-room))) void check(owner, s, body);
  }

  return {
    /**
     * Why `schema` cannot be used, found by compiling it on a thread of its own within a check's
     * budget (null: it compiles); its owner's queue full for longer than `readWaitMs`, or the
     * thread unable to judge, is a 503 to try again.
     */
    async problem(owner: number, schema: JsonSchema): Promise<string | null> {
      const { text, hash } = schemaOf(schema);
      const deadline = Date.now() + readWaitMs;
      let submitted = compiles.submit(String(owner), { hash, schema: text, compileOnly: true });
      while (!submitted && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, ROOM_POLL_MS));
        submitted = compiles.submit(String(owner), { hash, schema: text, compileOnly: true });
      }
      const verdict = submitted ? await submitted : unchecked(BUSY);
      if (verdict.valid) return null;
      if (verdict.valid === false)
        return verdict.errors[0]?.message ?? 'is not a JSON Schema this service can check with';
      const simpler = 'make it smaller or simpler (fewer subschemas)';
      if (verdict.error === TOO_LONG)
        return `takes more than ${compiles.options.budgetMs / 1000} s to compile: ${simpler}`;
      if (verdict.error === TOO_BIG) return `needs more than ${compiles.options.heapMb} MB to compile: ${simpler}`;
      throw new UnavailableError('The JSON Schema checker is busy: set the schema again in a few seconds');
    },

    /** Captures just stored (the capture writer's `onToCheck`): checked after this turn, never before an answer. */
    afterStored(batches: CapturesToCheck[]): void {
      setImmediate(() => {
        for (const b of batches) checkStored(b).catch(() => {}); // unchecked: checked when read
      });
    },

    /**
     * The verdicts of `captures` (read with their kept ones) against `schema`, for its owner's read:
     * those not kept for it checked now, waiting at most `readWaitMs`.
     */
    async verdicts(owner: number, schema: JsonSchema, captures: CheckedBody[]): Promise<Map<number, CheckVerdict>> {
      const s = schemaOf(schema);
      const out = new Map<number, CheckVerdict>();
      const byId = new Map<number, CheckedBody>();
      for (const c of captures) {
        if (c.schemaCheck?.hash === s.hash) out.set(c.id, shown(c.schemaCheck));
        else byId.set(c.id, c);
      }
      const { submitted } = await feed(
        owner,
        s,
        [...byId.keys()],
        async (ids) => ids.map((id) => byId.get(id)!),
        (id, v) => out.set(id, v),
      );
      for (const c of captures)
        if (!out.has(c.id)) out.set(c.id, unchecked(submitted.has(c.id) ? STILL_RUNNING : BUSY));
      return out;
    },

    /**
     * Whether each capture of `listed` (ids with the hash and validity kept) is valid against
     * `schema`: kept verdicts, else checked now as the checker has room, waiting at most
     * `readWaitMs` in all; a capture with no verdict by then is left out.
     */
    async validity(
      owner: number,
      webhookRef: number,
      schema: JsonSchema,
      listed: ReadonlyArray<{ id: number; hash: string | null; valid: boolean | null }>,
    ): Promise<Map<number, boolean | null>> {
      const s = schemaOf(schema);
      const valid = new Map<number, boolean | null>();
      const todo: number[] = [];
      for (const r of listed) {
        const known = r.hash === s.hash ? r : recent.get(`${s.hash}:${r.id}`);
        if (known) valid.set(r.id, known.valid);
        else todo.push(r.id);
      }
      await feed(
        owner,
        s,
        todo,
        (ids) => captureBodies(db, webhookRef, ids),
        (id, v) => valid.set(id, v.valid),
      );
      return valid;
    },

    /** Ends the checker's threads. */
    close: async () => {
      await Promise.all([pool.close(), compiles.close()]);
    },
  };
}

export type SchemaChecks = ReturnType<typeof schemaChecks>;
