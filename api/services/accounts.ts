// A user's own things: their account, API keys and connected apps (the dashboard, the MCP endpoint).
import type { Kysely } from 'kysely';
import { issueApiKey, listApiKeys, revokeOwnedApiKey } from '../../db/api-keys.ts';
import { connectedApps, recordGrantUse, revokeConnectedApp, type ConnectedApp } from '../../db/oauth-store.ts';
import type { Database } from '../../db/schema.ts';
import { findUser } from '../../db/users.ts';

export function accountService(db: Kysely<Database>) {
  return {
    find: (userId: number) => findUser(db, userId),
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
