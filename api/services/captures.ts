// What a capture URL admits: every capture counts against its webhook's captures per minute, by the
// plan of the webhook's owner (lib/plans.ts), in the key-value store (one count for every API
// process). Past it the sender gets 429 and nothing is stored. Owners are cached for a minute per
// process, so the hot path asks the database once a minute per webhook, not once per capture.
// The bytes a user keeps are bounded too: past the plan's, the oldest captures go (CaptureWriter
// calls trimBytes at most once a second with the webhooks it wrote).
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.ts';
import { trimCaptureBytes, webhookOwner } from '../../db/webhooks.ts';
import { NotFoundError, RateLimitedError } from '../../lib/errors.ts';
import type { KvStore } from '../../lib/kv/index.ts';
import { processMetrics } from '../../lib/metrics.ts';
import { PLAN_LIMITS, PLANS, type Plan } from '../../lib/plans.ts';
import { addressKey } from '../../lib/net/client-ip.ts';

const OWNER_CACHE_MS = 60_000;
/**
 * Answers "no such webhook" one client address may get per minute (IPv6: per /64). Past it, the
 * address gets 429 without a database lookup for ids not already known, so guessing ids at speed
 * costs the database nothing; captures to known webhooks are not affected.
 */
export const UNKNOWN_WEBHOOKS_PER_MINUTE = 120;
const BYTES_BY_PLAN = Object.fromEntries(PLANS.map((p) => [p, PLAN_LIMITS[p].captureBytes])) as Record<Plan, number>;
/** Above this many cached owners the cache starts again (memory stays bounded). */
const OWNER_CACHE_MAX = 100_000;

export function captureService({ db, kv }: { db: Kysely<Database>; kv: KvStore }) {
  const owners = new Map<string, { owner: { userId: number; plan: Plan }; until: number }>();

  const cachedOwner = (webhookId: string) => {
    const cached = owners.get(webhookId);
    return cached && cached.until > Date.now() ? cached.owner : undefined;
  };
  async function lookUpOwner(webhookId: string) {
    const owner = await webhookOwner(db, webhookId);
    if (!owner) return undefined; // unknown ids are not cached: a webhook made a moment later must work
    if (owners.size >= OWNER_CACHE_MAX) owners.clear();
    owners.set(webhookId, { owner, until: Date.now() + OWNER_CACHE_MS });
    return owner;
  }

  return {
    /** Drops the oldest captures of the owners of these webhooks past their plan's stored bytes. */
    trimBytes: (webhookRefs: number[]) => trimCaptureBytes(db, webhookRefs, BYTES_BY_PLAN),

    /**
     * Counts one capture of `webhookId` from `clientAddress`: 404 when there is no such webhook, 429
     * past its owner's plan, or when the address asked for too many unknown webhooks this minute.
     */
    async admit(webhookId: string, clientAddress: string): Promise<void> {
      let owner = cachedOwner(webhookId);
      if (!owner) {
        const misses = { key: `captures:unknown:${addressKey(clientAddress)}`, limit: UNKNOWN_WEBHOOKS_PER_MINUTE, windowSeconds: 60 };
        const [state] = await kv.usage([misses]);
        if (state!.remaining === 0) throw new RateLimitedError(`Too many requests to unknown webhooks from this address (${UNKNOWN_WEBHOOKS_PER_MINUTE} a minute): retry after ${state!.resetSeconds} s`, state!.resetSeconds);
        owner = await lookUpOwner(webhookId);
        if (!owner) {
          await kv.consume([misses]);
          throw new NotFoundError('Webhook not found');
        }
      }
      const limit = PLAN_LIMITS[owner.plan].capturesPerMinute;
      const { allowed, windows } = await kv.consume([{ key: `captures:${webhookId}:minute`, limit, windowSeconds: 60 }]);
      if (allowed) return;
      processMetrics().capturesRefused.inc({ plan: owner.plan });
      const retry = windows[0]!.resetSeconds;
      throw new RateLimitedError(`This webhook took its ${limit} captures of this minute (the ${owner.plan} plan of its owner); nothing was stored: retry after ${retry} s`, retry);
    },
  };
}

export type CaptureService = ReturnType<typeof captureService>;
