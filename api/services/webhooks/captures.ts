// What a capture URL admits: every capture counts against its webhook's captures per minute, by the
// plan of the webhook's owner (lib/plans.ts), in the key-value store (one count for every API
// process). Past it the sender gets 429 and nothing is stored. Owners are cached for a minute per
// process, so the hot path asks the database once a minute per webhook, not once per capture.
// The bytes a user keeps are bounded too: past the plan's, the oldest captures go. The database is
// asked for a user's bytes once, then only when what this process stored since brings them near
// their bound (within 10 s of it), so writing far below the bound costs no summing at all.
import type { Kysely } from 'kysely';
import type { Database } from '../../../db/schema.ts';
import { trimCaptureBytes } from '../../../db/webhooks/capture-retention.ts';
import { webhookOwners, type WebhookOwnerRow } from '../../../db/webhooks/webhook-owners.ts';
import { GroupCommit } from '../../../lib/concurrency/group-commit.ts';
import { NotFoundError, RateLimitedError } from '../../../lib/errors.ts';
import type { KvStore } from '../../../lib/kv/index.ts';
import { processMetrics } from '../../../lib/metrics.ts';
import { PLAN_LIMITS, PLANS, type Plan } from '../../../lib/plans.ts';
import type { WebhookResponse } from '../../../db/schema.ts';
import { addressKey } from '../../../lib/net/client-ip.ts';
import { compiledOnFirstUse, type CompiledRules } from '../../../lib/webhooks/webhook-rules.ts';
import { RuleBudget } from '../../../lib/webhooks/rule-budget.ts';

const OWNER_CACHE_MS = 60_000;
/**
 * Answers "no such webhook" one client address may get per minute (IPv6: per /64). Past it, the
 * address gets 429 without a database lookup for ids not already known, so guessing ids at speed
 * costs the database nothing; captures to known webhooks are not affected.
 */
export const UNKNOWN_WEBHOOKS_PER_MINUTE = 120;
const BYTES_BY_PLAN = Object.fromEntries(PLANS.map((p) => [p, PLAN_LIMITS[p].captureBytes])) as Record<Plan, number>;
/** How soon a user who may be past their bytes is checked, and from what share of the bound on. */
const BYTES_CHECK_AFTER_MS = 10_000;
const BYTES_CHECK_FROM = 0.9;
/**
 * A user this process has not checked yet is checked once it stored this share of the bound here:
 * summing a user's captures costs (bench:capture: a stall of most of a second on PGlite for 100k captures),
 * so a user writing small bodies far below the bound is never summed; at most this share over it.
 */
const BYTES_FIRST_CHECK_FROM = 0.1;
/**
 * Above this many cached owners, or this many bytes of their custom answers, the cache starts again
 * (memory stays bounded).
 */
const OWNER_CACHE_MAX = 100_000;
/** Webhooks whose owners one statement reads at most. */
const OWNER_READ_BATCH = 500;
const OWNER_CACHE_MAX_BYTES = 32 * 1024 * 1024;

/** Who owns a webhook (whose plan bounds it) and what it answers (null: the default JSON). */
export interface CaptureOwner {
  userId: number;
  plan: Plan;
  response: WebhookResponse | null;
  /** Its response rules, compiled once per change (null: none). */
  rules: CompiledRules | null;
}

export function captureService({
  db,
  kv,
  settingsChannel,
  ruleBudget = new RuleBudget(),
  onBrokenRule = () => {},
}: {
  db: Kysely<Database>;
  kv: KvStore;
  settingsChannel?: string;
  /** How long each owner's response rules may run in this process (shared with the doors that try them). */
  ruleBudget?: RuleBudget;
  /**
   * A stored response rule that no longer compiles (an engine's upgrade): it never matches, and the
   * operator is told.
   */
  onBrokenRule?: (webhookId: string, rule: number, err: unknown) => void;
}) {
  const owners = new Map<string, { owner: CaptureOwner; until: number }>();
  let cachedBytes = 0;
  // A webhook whose answer changed (in any process) is read again at its next capture; a lookup
  // that began before the change does not cache what it read.
  const changes = new Map<string, number>();
  const reading = new Map<string, Promise<CaptureOwner | undefined>>();
  // The webhooks not cached are read together: one statement for those that arrive while one is under
  // way (after a restart, or for a burst to webhooks new to this process, the database answered one
  // statement per webhook, behind the captures' writes).
  const ownerReads = new GroupCommit<string, WebhookOwnerRow | Error | null>(
    async (ids) => {
      const found = await webhookOwners(db, ids);
      return ids.map((id) => found.get(id) ?? null);
    },
    { maxItems: OWNER_READ_BATCH, maxConcurrent: 1 },
  );
  const settingsChanged = (webhookId: string) => {
    owners.delete(webhookId);
    reading.delete(webhookId);
    if (changes.size >= OWNER_CACHE_MAX) changes.clear();
    changes.set(webhookId, (changes.get(webhookId) ?? 0) + 1);
  };
  if (settingsChannel) kv.subscribe(settingsChannel, settingsChanged);
  /** Per user: bytes at the last check (undefined: never checked here), bytes this process stored since. */
  const bytes = new Map<number, { known: number | undefined; since: number }>();
  const due = new Set<number>();
  let checkTimer: NodeJS.Timeout | undefined;
  let checking = false;

  /** One check at a time: the users due now; a failure puts them back for the next one. */
  async function checkBytes(): Promise<void> {
    checkTimer = undefined;
    checking = true;
    const users = [...due];
    due.clear();
    const before = new Map(users.map((u) => [u, bytes.get(u)?.since ?? 0]));
    try {
      const kept = await trimCaptureBytes(db, users, BYTES_BY_PLAN);
      for (const user of users) {
        const entry = bytes.get(user);
        // What was stored while checking is counted on top of what the check found.
        if (entry) bytes.set(user, { known: kept.get(user) ?? 0, since: Math.max(0, entry.since - before.get(user)!) });
      }
    } catch {
      for (const user of users) due.add(user);
    } finally {
      checking = false;
      scheduleCheck();
    }
  }
  function scheduleCheck(): void {
    if (checking || checkTimer || due.size === 0) return;
    checkTimer = setTimeout(() => void checkBytes(), BYTES_CHECK_AFTER_MS);
    checkTimer.unref();
  }

  const cachedOwner = (webhookId: string) => {
    const cached = owners.get(webhookId);
    return cached && cached.until > Date.now() ? cached.owner : undefined;
  };
  /**
   * One database read (and one compile of its rules) per webhook at a time: the captures that arrive
   * for an uncached webhook while it is read wait for that read (a burst to many new webhooks read
   * and compiled each one once per capture in flight). A change of its settings starts the next read
   * afresh.
   */
  function lookUpOwner(webhookId: string): Promise<CaptureOwner | undefined> {
    let read = reading.get(webhookId);
    if (!read) {
      read = readOwner(webhookId).finally(() => {
        if (reading.get(webhookId) === read) reading.delete(webhookId);
      });
      reading.set(webhookId, read);
    }
    return read;
  }
  async function readOwner(webhookId: string) {
    const generation = changes.get(webhookId);
    const row = await ownerReads.submit(webhookId);
    if (!row) return undefined; // unknown ids are not cached: a webhook made a moment later must work
    if (row instanceof Error) throw row; // its stored settings are not readable: its captures fail, not the others'
    // Compiled at the first capture that runs them, where the owner's time is charged (capture-intake.ts).
    const rules = row.rules?.length
      ? compiledOnFirstUse(row.rules, (index, err) => onBrokenRule(webhookId, index, err))
      : null;
    const owner: CaptureOwner = { ...row, rules };
    if (changes.get(webhookId) !== generation) return owner; // changed while it was read: use it once, keep nothing
    const size =
      (owner.response ? owner.response.body.length + JSON.stringify(owner.response.headers).length : 0) +
      (row.rules ? JSON.stringify(row.rules).length : 0);
    if (owners.size >= OWNER_CACHE_MAX || cachedBytes + size > OWNER_CACHE_MAX_BYTES) {
      owners.clear();
      cachedBytes = 0;
    }
    owners.set(webhookId, { owner, until: Date.now() + OWNER_CACHE_MS });
    cachedBytes += size;
    return owner;
  }

  return {
    /** How long each owner's response rules may run in this process (the plan's share of its thread). */
    ruleBudget,

    /**
     * The webhook's settings changed: this process reads them again at its next capture (other
     * processes hear it on the channel).
     */
    settingsChanged,

    /**
     * Counts `storedBytes` (a capture's body as stored) against its owner's bound; schedules a check
     * of their bytes when this process has never checked them or they may be near it.
     */
    countBytes(owner: { userId: number; plan: Plan }, storedBytes: number): void {
      if (bytes.size >= OWNER_CACHE_MAX && !bytes.has(owner.userId)) bytes.clear();
      const entry = bytes.get(owner.userId) ?? { known: undefined, since: 0 };
      entry.since += storedBytes;
      bytes.set(owner.userId, entry);
      const bound = BYTES_BY_PLAN[owner.plan];
      if (
        entry.known === undefined
          ? entry.since < bound * BYTES_FIRST_CHECK_FROM
          : entry.known + entry.since < bound * BYTES_CHECK_FROM
      )
        return;
      due.add(owner.userId);
      scheduleCheck();
    },

    /**
     * Counts one capture of `webhookId` from `clientAddress`: 404 when there is no such webhook, 429
     * past its owner's plan, or when the address asked for too many unknown webhooks this minute.
     */
    async admit(webhookId: string, clientAddress: string): Promise<CaptureOwner> {
      let owner = cachedOwner(webhookId);
      if (!owner) {
        const misses = {
          key: `captures:unknown:${addressKey(clientAddress)}`,
          limit: UNKNOWN_WEBHOOKS_PER_MINUTE,
          windowSeconds: 60,
        };
        const [state] = await kv.usage([misses]);
        if (state!.remaining === 0)
          throw new RateLimitedError(
            `Too many requests to unknown webhooks from this address (${UNKNOWN_WEBHOOKS_PER_MINUTE} a minute): ` +
              `retry after ${state!.resetSeconds} s`,
            state!.resetSeconds,
          );
        owner = await lookUpOwner(webhookId);
        if (!owner) {
          await kv.consume([misses]);
          throw new NotFoundError('Webhook not found');
        }
      }
      const limit = PLAN_LIMITS[owner.plan].capturesPerMinute;
      const { allowed, windows } = await kv.consume([
        { key: `captures:${webhookId}:minute`, limit, windowSeconds: 60 },
      ]);
      if (allowed) return owner;
      processMetrics().capturesRefused.inc({ plan: owner.plan });
      const retry = windows[0]!.resetSeconds;
      throw new RateLimitedError(
        `This webhook took its ${limit} captures of this minute (the ${owner.plan} plan of its owner); ` +
          `nothing was stored: retry after ${retry} s`,
        retry,
      );
    },
  };
}

export type CaptureService = ReturnType<typeof captureService>;
