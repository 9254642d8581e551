// Proof that the caller controls a load test's target before a large test: on a public instance, a
// load tester that anyone can aim anywhere is a tool for attacking other people's sites (hosted load
// testers refuse large tests until the target is verified, for the same reason). A caller gets a
// token for a host and the host proves it serves it: a file at /.well-known/netops-verification.txt
// of the target's origin, or a DNS TXT record `_netops-verification.<host>`. A proof is trusted for
// TARGET_VERIFICATION_TTL_SECONDS (at most an hour), then checked again before the next large start.
// The proofs are read in the request, like the lookups (lookups.ts): through the SSRF guard, bounded.
import { createHmac, randomBytes } from 'node:crypto';
import { isIP } from 'node:net';
import type { Kysely } from 'kysely';
import { createDnsLookup } from '../../activities/dns/lookup.ts';
import { sharedSecret } from '../../db/server-secrets.ts';
import type { Database } from '../../db/schema.ts';
import type { Config } from '../../lib/config.ts';
import { TargetNotVerifiedError } from '../../lib/errors.ts';
import type { KvStore } from '../../lib/kv/index.ts';
import { bareHost } from '../../lib/net/bare-host.ts';
import { createGuardedFetch } from '../../lib/net/guarded-fetch.ts';
import { checkTarget } from '../../lib/net/target-guard.ts';

export const VERIFICATION_PATH = '/.well-known/netops-verification.txt';
const DNS_PREFIX = '_netops-verification.';

/** What decides a test's size. */
export interface TestSize {
  concurrentUsers: number;
  /** 0: as fast as the users can, which is no bound at all. */
  requestsPerSecond: number;
  testDuration: number;
}

export function targetVerificationService({ config, db, kv }: { config: Config; db: Kysely<Database>; kv: KvStore }) {
  const { required, ttlSeconds, small } = config.targetVerification;
  // A small file, at most 3 redirects (http to https, a trailing slash), 5 s: a proof, not a download.
  const fetchProof = createGuardedFetch({ allow: config.networkAllow, timeoutMs: 5000, maxBytes: 16 * 1024, onOversize: 'truncate', maxRedirects: 3 });
  const dnsLookup = createDnsLookup({ servers: config.dnsServers, timeoutMs: 2000 });
  let secret: Promise<string> | undefined;

  /** The caller's token for a host: the same on every ask and in every process, nothing stored. */
  async function tokenOf(userId: number, host: string): Promise<string> {
    secret ??= sharedSecret(db, 'target-verification', () => randomBytes(32).toString('base64url'));
    return `netops-verification=${createHmac('sha256', await secret).update(`${userId}:${host}`).digest('base64url').slice(0, 32)}`;
  }
  const cacheKey = (userId: number, host: string) => `target-verified:${userId}:${host}`;

  function methodsFor(url: URL, host: string, token: string) {
    return [
      { type: 'http' as const, url: `${url.origin}${VERIFICATION_PATH}`, content: token, how: `Serve ${token} (a line of the file) at ${url.origin}${VERIFICATION_PATH}` },
      ...(isIP(host) ? [] : [{ type: 'dns' as const, name: `${DNS_PREFIX}${host}`, record: 'TXT' as const, value: token, how: `Add a TXT record ${DNS_PREFIX}${host} with the value ${token}` }]),
    ];
  }

  /** Reads the proofs now: the file (still on the same host after its redirects), else the TXT record. */
  async function prove(url: URL, host: string, token: string): Promise<'http' | 'dns' | null> {
    try {
      const res = await fetchProof(`${url.origin}${VERIFICATION_PATH}`);
      if (res.status === 200 && bareHost(new URL(res.url).hostname) === host && res.body.toString('utf8').split(/\s+/).includes(token)) return 'http';
    } catch {
      // Unreachable, refused or too slow: the TXT record may still prove it.
    }
    if (isIP(host)) return null;
    try {
      const { TXT } = await dnsLookup(`${DNS_PREFIX}${host}`, ['TXT']);
      if (TXT?.some((value) => value.trim() === token)) return 'dns';
    } catch {
      // No such name, or no DNS answer: not proven.
    }
    return null;
  }

  /** The target's URL and host, after the guard (private and internal addresses are refused as on start). */
  async function targetOf(targetUrl: string) {
    await checkTarget(targetUrl, { allow: config.networkAllow, field: 'targetUrl' });
    const url = new URL(targetUrl);
    return { url, host: bareHost(url.hostname).toLowerCase() };
  }

  /** Checks now (a fresh proof is remembered for ttlSeconds); the method that proved it, or null. */
  async function check(url: URL, host: string, userId: number, token: string) {
    if (await kv.get(cacheKey(userId, host))) return 'cached' as const;
    const by = await prove(url, host, token);
    if (by) await kv.set(cacheKey(userId, host), by, ttlSeconds);
    return by;
  }

  /** A test above the small size: more users, no rate bound or a higher one, or longer. */
  const isLarge = (size: TestSize) => size.concurrentUsers > small.users || size.requestsPerSecond === 0 || size.requestsPerSecond > small.rps || size.testDuration > small.seconds;

  return {
    required,
    isLarge,

    /** The caller's token for the target's host, how to serve it, and whether the host serves it now. */
    async issue(targetUrl: string, userId: number) {
      const { url, host } = await targetOf(targetUrl);
      const token = await tokenOf(userId, host);
      const by = await check(url, host, userId, token);
      return {
        success: true as const,
        host,
        token,
        verified: by !== null,
        verified_by: by,
        methods: methodsFor(url, host, token),
        required,
        required_above: { concurrent_users: small.users, requests_per_second: small.rps, test_duration: small.seconds },
        trusted_for_seconds: ttlSeconds,
      };
    },

    /** Nothing for a small test or when verification is off; else the host must prove it (403 target_not_verified). */
    async ensure(targetUrl: string, size: TestSize, userId: number): Promise<void> {
      if (!required || !isLarge(size)) return;
      const { url, host } = await targetOf(targetUrl);
      const token = await tokenOf(userId, host);
      if (await check(url, host, userId, token)) return;
      const ways = methodsFor(url, host, token).map((m) => m.how).join(', or ');
      throw new TargetNotVerifiedError(
        `targetUrl: tests above ${small.users} users, a rate of ${small.rps}/s (or an unbounded rate) or ${small.seconds} s need proof that you control ${host}. ${ways}; then start again (POST /api/v1/load-testing/targets with {"targetUrl"} shows the token and checks it). Smaller tests run without it.`,
      );
    },
  };
}

export type TargetVerificationService = ReturnType<typeof targetVerificationService>;
