// Dashboard sessions: a random token in an HttpOnly, SameSite=Lax cookie sent to /dashboard only (never
// to capture URLs), `__Secure-` and Secure when the base URL is https; the key-value store holds its hash
// and the user, for SESSION_TTL_SECONDS.
import { createHash, randomBytes } from 'node:crypto';
import type { Context } from 'koa';
import { z } from 'zod';
import { getJson, type KvStore } from '../../lib/kv/index.ts';
import { cookieName, DASHBOARD_PATH, DASHBOARD_SESSION_COOKIE } from '../../lib/auth/service-credentials.ts';

export const SESSION_TTL_SECONDS = 12 * 3600;

/** A session as the key-value store holds it. */
const storedSession = z.object({ userId: z.number() });

const keyOf = (token: string) => `dashboard:session:${createHash('sha256').update(token).digest('base64url')}`;

export function dashboardSessions(kv: KvStore, secure: boolean) {
  const name = cookieName(DASHBOARD_SESSION_COOKIE, secure);
  return {
    async start(ctx: Context, userId: number): Promise<void> {
      const token = randomBytes(32).toString('base64url');
      await kv.set(keyOf(token), JSON.stringify({ userId }), SESSION_TTL_SECONDS);
      ctx.cookies.set(name, token, {
        httpOnly: true,
        sameSite: 'lax',
        secure,
        path: DASHBOARD_PATH,
        maxAge: SESSION_TTL_SECONDS * 1000,
        overwrite: true,
      });
    },
    async userId(ctx: Context): Promise<number | null> {
      const token = ctx.cookies.get(name);
      if (!token) return null;
      return (await getJson(kv, keyOf(token), storedSession, 'dashboard session'))?.userId ?? null;
    },
    async end(ctx: Context): Promise<void> {
      const token = ctx.cookies.get(name);
      if (token) await kv.delete(keyOf(token));
      ctx.cookies.set(name, '', {
        httpOnly: true,
        sameSite: 'lax',
        secure,
        path: DASHBOARD_PATH,
        maxAge: 0,
        overwrite: true,
      });
    },
  };
}
