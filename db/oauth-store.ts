// Storage for the OAuth authorization server (oidc-provider's adapter interface: upsert, find,
// findByUid, findByUserCode, consume, destroy, revokeByGrantId), one adapter per model name, all in
// the `oauth_records` table, so every API process shares clients, grants and tokens.
// Expired records are never returned; `sweepExpired` deletes them.
import { sql, type Kysely } from 'kysely';
import type { Database } from './schema.ts';

export type OauthPayload = Record<string, unknown> & { grantId?: string; userCode?: string; uid?: string; accountId?: string; consumed?: number };

export class OauthStore {
  readonly #db: Kysely<Database>;
  readonly #kind: string;

  constructor(db: Kysely<Database>, kind: string) {
    this.#db = db;
    this.#kind = kind;
  }

  async upsert(id: string, payload: OauthPayload, expiresIn?: number): Promise<void> {
    const row = {
      kind: this.#kind,
      id,
      payload: JSON.stringify(payload),
      // A grant is its own grant: revoking it removes it with its codes and tokens.
      grant_id: payload.grantId ?? (this.#kind === 'Grant' ? id : null),
      user_code: payload.userCode ?? null,
      uid: payload.uid ?? null,
      account_id: payload.accountId === undefined ? null : String(payload.accountId),
      expires_at: expiresIn ? new Date(Date.now() + expiresIn * 1000) : null,
    };
    await this.#db
      .insertInto('oauth_records')
      .values(row)
      .onConflict((oc) => oc.columns(['kind', 'id']).doUpdateSet({ payload: row.payload, grant_id: row.grant_id, user_code: row.user_code, uid: row.uid, account_id: row.account_id, expires_at: row.expires_at }))
      .execute();
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
    await this.#db.updateTable('oauth_records').set({ consumed_at: new Date() }).where('kind', '=', this.#kind).where('id', '=', id).execute();
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
    const payload = (typeof row.payload === 'string' ? JSON.parse(row.payload) : row.payload) as OauthPayload;
    return row.consumed_at ? { ...payload, consumed: Math.floor(new Date(row.consumed_at).getTime() / 1000) } : payload;
  }
}

/** The records of one kind that belong to an account (for example its grants: the connected apps). */
export async function oauthRecordsOfAccount(db: Kysely<Database>, kind: string, accountId: string): Promise<Array<{ id: string; payload: OauthPayload }>> {
  const rows = await db
    .selectFrom('oauth_records')
    .select(['id', 'payload'])
    .where('kind', '=', kind)
    .where('account_id', '=', accountId)
    .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', sql<Date>`now()`)]))
    .execute();
  return rows.map((r) => ({ id: r.id, payload: (typeof r.payload === 'string' ? JSON.parse(r.payload) : r.payload) as OauthPayload }));
}

/** Deletes expired records; returns how many. */
export async function sweepExpiredOauthRecords(db: Kysely<Database>): Promise<number> {
  const result = await db.deleteFrom('oauth_records').where('expires_at', '<=', sql<Date>`now()`).executeTakeFirst();
  return Number(result.numDeletedRows);
}
