// Email-and-password sign-in, shared by the OAuth sign-in page and the dashboard. Failed attempts are
// limited per (email, client address) and per client address, never per email alone: guessing at an
// account from one place cannot lock its owner out everywhere else. An unknown email costs as much as
// a wrong password.
import { createHash } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.ts';
import { checkUserPassword, type Account } from '../../db/users.ts';
import type { KvStore, QuotaWindow } from '../../lib/kv/index.ts';
import { addressKey } from '../../lib/net/client-ip.ts';
import { html, type Html } from './html.ts';

/**
 * The sign-in limits (the same for the dashboard and the OAuth sign-in page), in fixed windows of the
 * key-value store aligned to the clock (a 15-minute window resets on the quarter hour). "Address" is the
 * client address of lib/net/client-ip.ts, an IPv6 one taken as its /64 (see `addressKey`).
 *
 * - `failuresPerEmailAndAddress` (10 per 15 min): one address guessing at one account. Ten is more
 *   than a person mistyping needs; the 11th attempt from that address is refused (429) until the
 *   window ends, while the right password from any other address still signs in.
 * - `failuresPerAddress` (30 per 15 min, all emails together): one address spraying many accounts
 *   (or one account many times). Thirty leaves room for a few people behind one shared address
 *   (an office NAT) mistyping at once, while holding a guesser to at most 2,880 guesses a day per
 *   address, 10 of them per account per 15 min.
 * - `successesForgivenPerAddress` (100 per 15 min): attempts are counted before the password is
 *   checked (so a burst of parallel requests cannot slip past the limit), and a successful sign-in
 *   gives its attempt back. For the (email, address) pair always; for the address at most this many
 *   times per window, so that signing in to one's own account over and over buys no more than 100
 *   extra guesses at other accounts (and a shared address stays open for 100 sign-ins per 15 min).
 */
export const SIGN_IN_LIMITS = {
  windowSeconds: 15 * 60,
  failuresPerEmailAndAddress: 10,
  failuresPerAddress: 30,
  successesForgivenPerAddress: 100,
} as const;

/** A counter's limit high enough never to be reached: reading it with `usage` gives its count. */
const UNCAPPED = 1_000_000_000;

export type SignInOutcome = { account: Account } | { error: string; status: 401 | 429 };

export async function signIn(
  deps: { db: Kysely<Database>; kv: KvStore },
  email: string,
  password: string,
  clientIp: string,
): Promise<SignInOutcome> {
  const normalized = email.trim().toLowerCase();
  const address = addressKey(clientIp);
  const pair = createHash('sha256').update(`${address}\n${normalized}`).digest('hex').slice(0, 32);
  const windowSeconds = SIGN_IN_LIMITS.windowSeconds;
  const attempts = { pair: `signin:attempts:pair:${pair}`, address: `signin:attempts:addr:${address}` };
  const successes: QuotaWindow[] = [
    { key: `signin:ok:pair:${pair}`, limit: UNCAPPED, windowSeconds },
    { key: `signin:ok:addr:${address}`, limit: UNCAPPED, windowSeconds },
  ];
  // Successful sign-ins so far in this window give their attempts back: the limits then count failures.
  const [pairOk, addressOk] = (await deps.kv.usage(successes)).map((s) => s.limit - s.remaining) as [number, number];
  const quota = await deps.kv.consume([
    { key: attempts.pair, limit: SIGN_IN_LIMITS.failuresPerEmailAndAddress + pairOk, windowSeconds },
    {
      key: attempts.address,
      limit: SIGN_IN_LIMITS.failuresPerAddress + Math.min(addressOk, SIGN_IN_LIMITS.successesForgivenPerAddress),
      windowSeconds,
    },
  ]);
  if (!quota.allowed) {
    const wait = Math.max(...quota.windows.filter((w) => w.remaining === 0).map((w) => w.resetSeconds));
    return {
      status: 429,
      error: `Too many sign-in attempts: try again in ${Math.ceil(wait / 60)} minute${wait > 60 ? 's' : ''}.`,
    };
  }
  const account = normalized && password ? await checkUserPassword(deps.db, normalized, password) : null;
  if (!account) return { status: 401, error: 'Wrong email or password.' };
  await deps.kv.consume(successes);
  return { account };
}

export function signInForm(options: {
  action: string;
  csrf: string;
  email?: string;
  error?: string;
  intro?: Html;
}): Html {
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
