// Email-and-password sign-in, shared by the OAuth sign-in page and the dashboard: attempts are
// limited per email and per client address (fixed 15-minute windows in the key-value store), and an
// unknown email costs as much as a wrong password.
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.ts';
import { checkUserPassword, type Account } from '../../db/users.ts';
import type { KvStore } from '../../lib/kv/index.ts';
import { html, type Html } from './html.ts';

export const SIGN_IN_LIMITS = { perEmail: 10, perAddress: 100, windowSeconds: 15 * 60 } as const;

export type SignInOutcome = { account: Account } | { error: string; status: 401 | 429 };

export async function signIn(deps: { db: Kysely<Database>; kv: KvStore }, email: string, password: string, clientIp: string): Promise<SignInOutcome> {
  const normalized = email.trim().toLowerCase();
  const quota = await deps.kv.consume([
    { key: `signin:email:${normalized}`, limit: SIGN_IN_LIMITS.perEmail, windowSeconds: SIGN_IN_LIMITS.windowSeconds },
    { key: `signin:addr:${clientIp}`, limit: SIGN_IN_LIMITS.perAddress, windowSeconds: SIGN_IN_LIMITS.windowSeconds },
  ]);
  if (!quota.allowed) {
    const wait = Math.max(...quota.windows.filter((w) => w.remaining === 0).map((w) => w.resetSeconds));
    return { status: 429, error: `Too many sign-in attempts: try again in ${Math.ceil(wait / 60)} minute${wait > 60 ? 's' : ''}.` };
  }
  const account = normalized && password ? await checkUserPassword(deps.db, normalized, password) : null;
  return account ? { account } : { status: 401, error: 'Wrong email or password.' };
}

export function signInForm(options: { action: string; csrf: string; email?: string; error?: string; intro?: Html }): Html {
  return html`
    <h1>Sign in</h1>
    ${options.intro}
    ${options.error ? html`<p class="error" role="alert">${options.error}</p>` : ''}
    <form method="post" action="${options.action}">
      <input type="hidden" name="csrf" value="${options.csrf}">
      <label for="email">Email</label>
      <input id="email" name="email" type="email" autocomplete="username" required value="${options.email ?? ''}">
      <label for="password">Password</label>
      <input id="password" name="password" type="password" autocomplete="current-password" required>
      <button type="submit">Sign in</button>
    </form>`;
}
