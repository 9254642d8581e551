// A user's own things: their account, API keys and connected apps (the dashboard, the MCP endpoint).
import type { Kysely } from 'kysely';
import { issueApiKey, listApiKeys, revokeOwnedApiKey } from '../../db/api-keys.ts';
import { connectedApps, recordGrantUse, revokeConnectedApp, type ConnectedApp } from '../../db/oauth-store.ts';
import type { Database } from '../../db/schema.ts';
import { findUser } from '../../db/users.ts';
import { PLAN_LIMITS, type Plan } from '../../lib/plans.ts';

export function accountService({ db }: { db: Kysely<Database> }) {
  return {
    find: (userId: number) => findUser(db, userId),
    /**
     * What the caller's key says of its account: its email, plan and the plan's limits, named as the API
     * names things.
     */
    profile(owner: { email: string; plan: Plan }) {
      const l = PLAN_LIMITS[owner.plan];
      return {
        email: owner.email,
        plan: owner.plan,
        limits: {
          requests_per_minute: l.perMinute,
          requests_per_day: l.perDay,
          live_streams: l.liveStreams,
          webhooks: l.webhooks,
          captures_per_minute: l.capturesPerMinute,
          rule_ms_per_minute: l.ruleMsPerMinute,
          capture_bytes: l.captureBytes,
          captures_kept: l.capturesKept,
          capture_days: l.captureDays,
          forwarding_webhooks: l.forwardingWebhooks,
          load_tests_at_once: l.loadTestsAtOnce,
          load_test_users: l.loadTestUsers,
          load_test_seconds: l.loadTestSeconds,
          video_jobs_at_once: l.videoJobsAtOnce,
        },
      };
    },
    keys: (userId: number) => listApiKeys(db, userId),
    issueKey: (userId: number, name: string | null) => issueApiKey(db, userId, name),
    revokeKey: (userId: number, keyId: number) => revokeOwnedApiKey(db, userId, keyId),
    connectedApps: (userId: number) => connectedApps(db, String(userId)),
    /** A connected app used its grant now (shown as its last use). */
    recordAppUse: (grantId: string) => recordGrantUse(db, grantId),
    /** Disconnects one of the user's apps; null when no such app is connected. */
    async disconnect(userId: number, clientId: string): Promise<ConnectedApp | null> {
      const app = (await connectedApps(db, String(userId))).find((a) => a.clientId === clientId);
      return app && (await revokeConnectedApp(db, String(userId), clientId)) ? app : null;
    },
  };
}

export type AccountService = ReturnType<typeof accountService>;
