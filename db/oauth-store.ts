// Storage for the OAuth authorization server (oidc-provider's adapter interface: upsert, find,
// findByUid, findByUserCode, consume, destroy, revokeByGrantId), one adapter per model name, all in
// the `oauth_records` table, so every API process shares clients, grants and tokens.
// Expired records are never returned; `sweepExpiredOauthRecords` deletes them.
// Registered clients (oidc-provider stores them without a lifetime) expire UNUSED_CLIENT_TTL_SECONDS after
// they registered, unless they get a grant: saving a grant makes its client permanent. So a registration
// that nobody signs in to is gone the next day, while an app a user connected stays.
import { sql, type Kysely } from 'kysely';
import { oauthPayloadColumn, readJsonColumn } from './json-columns.ts';
import type { Database, OauthPayload } from './schema.ts';

/** How long a registered client without a grant lives: a day (documented in the README). */
export const UNUSED_CLIENT_TTL_SECONDS = 24 * 3600;

export type { OauthPayload };

export class OauthStore {
  readonly #db: Kysely<Database>;
  readonly #kind: string;
  readonly #now: () => number;

  /** `now` (ms since the epoch) dates new records: tests pass a clock of their own. */
  constructor(db: Kysely<Database>, kind: string, options: { now?: () => number } = {}) {
    this.#db = db;
    this.#kind = kind;
    this.#now = options.now ?? Date.now;
  }

  async upsert(id: string, payload: OauthPayload, expiresIn?: number): Promise<void> {
    // oidc-provider gives a client no lifetime: until it has a grant, it gets the unused client's.
    if (this.#kind === 'Client' && !expiresIn) expiresIn = UNUSED_CLIENT_TTL_SECONDS;
    const row = {
      kind: this.#kind,
      id,
      payload: JSON.stringify(payload),
      // A grant is its own grant: revoking it removes it with its codes and tokens.
      grant_id: payload.grantId ?? (this.#kind === 'Grant' ? id : null),
      user_code: payload.userCode ?? null,
      uid: payload.uid ?? null,
      account_id: payload.accountId === undefined ? null : String(payload.accountId),
      expires_at: expiresIn ? new Date(this.#now() + expiresIn * 1000) : null,
    };
    // A client already made permanent by a grant stays so when it is stored again.
    const expiresAt =
      this.#kind === 'Client'
        ? sql<Date | null>`case when oauth_records.expires_at is null then null else excluded.expires_at end`
        : row.expires_at;
    await this.#db
      .insertInto('oauth_records')
      .values(row)
      .onConflict((oc) =>
        oc.columns(['kind', 'id']).doUpdateSet({
          payload: row.payload,
          grant_id: row.grant_id,
          user_code: row.user_code,
          uid: row.uid,
          account_id: row.account_id,
          expires_at: expiresAt,
        }),
      )
      .execute();
    if (this.#kind === 'Grant' && typeof payload.clientId === 'string') {
      // The client has a user now: it no longer expires (the grant's own expiry and revocation still
      // apply to the grant).
      await this.#db
        .updateTable('oauth_records')
        .set({ expires_at: null })
        .where('kind', '=', 'Client')
        .where('id', '=', payload.clientId)
        .where('expires_at', 'is not', null)
        .execute();
    }
  }

  find(id: string): Promise<OauthPayload | undefined> {
    return this.#findBy('id', id);
  }

  findByUid(uid: string): Promise<OauthPayload | undefined> {
    return this.#findBy('uid', uid);
  }

  findByUserCode(userCode: string): Promise<OauthPayload | undefined> {
    return this.#findBy('user_code', userCode);
  }

  async consume(id: string): Promise<void> {
    await this.#db
      .updateTable('oauth_records')
      .set({ consumed_at: new Date() })
      .where('kind', '=', this.#kind)
      .where('id', '=', id)
      .execute();
  }

  async destroy(id: string): Promise<void> {
    await this.#db.deleteFrom('oauth_records').where('kind', '=', this.#kind).where('id', '=', id).execute();
  }

  /** Every record of the grant, whatever its kind (tokens, codes, the grant itself). */
  async revokeByGrantId(grantId: string): Promise<void> {
    await this.#db.deleteFrom('oauth_records').where('grant_id', '=', grantId).execute();
  }

  async #findBy(column: 'id' | 'uid' | 'user_code', value: string): Promise<OauthPayload | undefined> {
    const row = await this.#db
      .selectFrom('oauth_records')
      .select(['payload', 'consumed_at'])
      .where('kind', '=', this.#kind)
      .where(column, '=', value)
      .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', sql<Date>`now()`)]))
      .executeTakeFirst();
    if (!row) return undefined;
    const payload = readJsonColumn('oauth_records.payload', oauthPayloadColumn, row.payload);
    return row.consumed_at ? { ...payload, consumed: Math.floor(new Date(row.consumed_at).getTime() / 1000) } : payload;
  }
}

/** The records of one kind that belong to an account (for example its grants: the connected apps). */
export async function oauthRecordsOfAccount(
  db: Kysely<Database>,
  kind: string,
  accountId: string,
): Promise<Array<{ id: string; payload: OauthPayload }>> {
  const rows = await db
    .selectFrom('oauth_records')
    .select(['id', 'payload'])
    .where('kind', '=', kind)
    .where('account_id', '=', accountId)
    .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', sql<Date>`now()`)]))
    .execute();
  return rows.map((r) => ({
    id: r.id,
    payload: readJsonColumn('oauth_records.payload', oauthPayloadColumn, r.payload),
  }));
}

/**
 * Deletes expired records (unused clients among them); returns how many. Every API process runs it
 * hourly (api/server.ts).
 */
export async function sweepExpiredOauthRecords(db: Kysely<Database>): Promise<number> {
  const result = await db.deleteFrom('oauth_records').where('expires_at', '<=', sql<Date>`now()`).executeTakeFirst();
  // The use of a grant that is gone means nothing any more.
  await db
    .deleteFrom('oauth_grant_use')
    .where('grant_id', 'not in', db.selectFrom('oauth_records').select('id').where('kind', '=', 'Grant'))
    .execute();
  return Number(result.numDeletedRows);
}

/** Notes a use of the grant on /mcp (the first one too). */
export async function recordGrantUse(db: Kysely<Database>, grantId: string, at = new Date()): Promise<void> {
  await db
    .insertInto('oauth_grant_use')
    .values({ grant_id: grantId, first_used_at: at, last_used_at: at })
    .onConflict((oc) => oc.column('grant_id').doUpdateSet({ last_used_at: at }))
    .execute();
}

export interface ConnectedApp {
  clientId: string;
  clientName: string | null;
  redirectHosts: string[];
  scopes: string[];
  authorizedAt: Date | null;
  firstUsedAt: Date | null;
  lastUsedAt: Date | null;
  grantIds: string[];
}

/** The apps an account authorized: its live grants, one entry per client, newest use first. */
export async function connectedApps(db: Kysely<Database>, accountId: string): Promise<ConnectedApp[]> {
  const grants = await oauthRecordsOfAccount(db, 'Grant', accountId);
  const byClient = new Map<string, ConnectedApp>();
  for (const { id, payload } of grants) {
    const clientId = String(payload.clientId ?? '');
    if (!clientId) continue;
    let app = byClient.get(clientId);
    if (!app) {
      const client = await new OauthStore(db, 'Client').find(clientId);
      const redirectUris = Array.isArray(client?.redirect_uris) ? (client.redirect_uris as string[]) : [];
      app = {
        clientId,
        clientName: typeof client?.client_name === 'string' ? client.client_name : null,
        redirectHosts: [...new Set(redirectUris.map(hostOf))],
        scopes: [],
        authorizedAt: null,
        firstUsedAt: null,
        lastUsedAt: null,
        grantIds: [],
      };
      byClient.set(clientId, app);
    }
    app.grantIds.push(id);
    const resources = (payload.resources ?? {}) as Record<string, string>;
    app.scopes = [
      ...new Set([
        ...app.scopes,
        ...Object.values(resources)
          .flatMap((s) => s.split(' '))
          .filter(Boolean),
      ]),
    ].sort();
    const iat = typeof payload.iat === 'number' ? new Date(payload.iat * 1000) : null;
    if (iat && (!app.authorizedAt || iat < app.authorizedAt)) app.authorizedAt = iat;
  }
  const ids = [...byClient.values()].flatMap((a) => a.grantIds);
  const uses = ids.length
    ? await db.selectFrom('oauth_grant_use').selectAll().where('grant_id', 'in', ids).execute()
    : [];
  for (const app of byClient.values()) {
    for (const use of uses.filter((u) => app.grantIds.includes(u.grant_id))) {
      const first = new Date(use.first_used_at);
      const last = new Date(use.last_used_at);
      if (!app.firstUsedAt || first < app.firstUsedAt) app.firstUsedAt = first;
      if (!app.lastUsedAt || last > app.lastUsedAt) app.lastUsedAt = last;
    }
  }
  return [...byClient.values()].sort(
    (a, b) => (b.lastUsedAt?.getTime() ?? 0) - (a.lastUsedAt?.getTime() ?? 0) || a.clientId.localeCompare(b.clientId),
  );
}

/** Revokes every grant of `clientId` for the account, with their codes and tokens; false when there was none. */
export async function revokeConnectedApp(db: Kysely<Database>, accountId: string, clientId: string): Promise<boolean> {
  const app = (await connectedApps(db, accountId)).find((a) => a.clientId === clientId);
  if (!app) return false;
  const store = new OauthStore(db, 'Grant');
  for (const grantId of app.grantIds) {
    await store.revokeByGrantId(grantId);
    await db.deleteFrom('oauth_grant_use').where('grant_id', '=', grantId).execute();
  }
  return true;
}

/** True while the grant exists and has not expired: JWT access tokens die with their grant. */
export async function grantIsLive(db: Kysely<Database>, grantId: string): Promise<boolean> {
  return (await new OauthStore(db, 'Grant').find(grantId)) !== undefined;
}

function hostOf(uri: string): string {
  try {
    return new URL(uri).host;
  } catch {
    return uri;
  }
}
