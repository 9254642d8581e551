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
import { z } from 'zod';
import { createDnsLookup } from '../../../domain/dns/lookup.ts';
import { sharedSecret } from '../../../db/server-secrets.ts';
import type { Database } from '../../../db/schema.ts';
import type { Config } from '../../../lib/config.ts';
import { TargetNotVerifiedError } from '../../../lib/errors.ts';
import { getJson, type KvStore } from '../../../lib/kv/index.ts';
import { bareHost } from '../../../lib/net/bare-host.ts';
import { createGuardedFetch } from '../../../lib/net/guarded-fetch.ts';
import { addressesOf, checkTarget } from '../../../lib/net/target-guard.ts';
import { openTargets } from '../../../db/load/load-tests.ts';
import { sameServer, type TargetServer } from '../../../lib/net/same-server.ts';

export const VERIFICATION_PATH = '/.well-known/netops-verification.txt';
const DNS_PREFIX = '_netops-verification.';

/** What decides a test's size. */
interface Proof {
  by: 'http' | 'dns';
  /** The host's addresses when it proved it: a large test connects to these only. */
  addresses: string[];
}

/** A proof as remembered in the key-value store. */
const storedProof = z.object({
  by: z.enum(['http', 'dns']),
  addresses: z.array(z.string()),
}) satisfies z.ZodType<Proof>;

/**
 * What a start may do, from ensure: the addresses a large test must keep to (`pinned`), its target's
 * addresses as kept with the test, and for a small test not proven, the only addresses it connects to
 * (`connectTo`) and that it must run alone on its server.
 */
export interface TargetCheck {
  pinned?: string[];
  addresses?: string[];
  connectTo?: string[];
  alone?: boolean;
}

export interface TestSize {
  concurrentUsers: number;
  /** 0: as fast as the users can, which is no bound at all. */
  requestsPerSecond: number;
  testDuration: number;
}

export function targetVerificationService({ config, db, kv }: { config: Config; db: Kysely<Database>; kv: KvStore }) {
  const { required, ttlSeconds, small } = config.targetVerification;
  // A small file, at most 3 redirects (http to https, a trailing slash), 5 s: a proof, not a download.
  const fetchProof = createGuardedFetch({
    allow: config.networkAllow,
    timeoutMs: 5000,
    maxBytes: 16 * 1024,
    onOversize: 'truncate',
    maxRedirects: 3,
  });
  const dnsLookup = createDnsLookup({ servers: config.dnsServers, timeoutMs: 2000 });
  let secret: Promise<string> | undefined;

  /** The caller's token for a host: the same on every ask and in every process, nothing stored. */
  async function tokenOf(userId: number, host: string): Promise<string> {
    secret ??= sharedSecret(db, 'target-verification', () => randomBytes(32).toString('base64url')).catch((err) => {
      secret = undefined; // a database error now is not remembered
      throw err;
    });
    return `netops-verification=${createHmac('sha256', await secret)
      .update(`${userId}:${host}`)
      .digest('base64url')
      .slice(0, 32)}`;
  }
  // Per origin: a token served on one port proves nothing of another's server.
  const cacheKey = (userId: number, url: URL) => `target-verified:${userId}:${url.origin}`;

  function methodsFor(url: URL, host: string, token: string) {
    return [
      {
        type: 'http' as const,
        url: `${url.origin}${VERIFICATION_PATH}`,
        content: token,
        how: `Serve ${token} (a line of the file) at ${url.origin}${VERIFICATION_PATH}`,
      },
      ...(isIP(host)
        ? []
        : [
            {
              type: 'dns' as const,
              name: `${DNS_PREFIX}${host}`,
              record: 'TXT' as const,
              value: token,
              how: `Add a TXT record ${DNS_PREFIX}${host} with the value ${token}`,
            },
          ]),
    ];
  }

  /**
   * Reads the proofs now: the file (served from one of the host's addresses, still on the same origin
   * after its redirects), else the TXT record. A proof holds for the addresses the host has now:
   * they are pinned, and a large test connects to them only (a name moved to another server after
   * its proof proves nothing of that server).
   */
  async function prove(url: URL, host: string, token: string): Promise<Proof | null> {
    let addresses: string[];
    try {
      addresses = await addressesOf(host);
    } catch {
      return null;
    }
    try {
      const res = await fetchProof(`${url.origin}${VERIFICATION_PATH}`);
      const served =
        res.status === 200 &&
        new URL(res.url).origin === url.origin &&
        addresses.includes(res.remoteAddress.replace(/^::ffff:/, ''));
      if (served && res.body.toString('utf8').split(/\s+/).includes(token)) return { by: 'http', addresses };
    } catch {
      // Unreachable, refused or too slow: the TXT record may still prove it.
    }
    if (isIP(host)) return null;
    try {
      const { TXT } = await dnsLookup(`${DNS_PREFIX}${host}`, ['TXT']);
      if (TXT?.some((value) => value.trim() === token)) return { by: 'dns', addresses };
    } catch {
      // No such name, or no DNS answer: not proven.
    }
    return null;
  }

  /** The checked URL and its host as proofs name it. */
  const targetOf = (url: URL) => ({ url, host: bareHost(url.hostname).toLowerCase() });

  /**
   * A remembered proof whose addresses are still the host's, else a fresh one (remembered for
   * ttlSeconds), else null.
   */
  async function check(
    url: URL,
    host: string,
    userId: number,
    token: string,
  ): Promise<(Proof & { cached: boolean }) | null> {
    const known = await getJson(kv, cacheKey(userId, url), storedProof, 'target verification proof');
    if (known) {
      const now = await addressesOf(host).catch(() => null);
      if (now?.every((a) => known.addresses.includes(a))) return { ...known, cached: true };
    }
    const proof = await prove(url, host, token);
    if (proof) await kv.set(cacheKey(userId, url), JSON.stringify(proof), ttlSeconds);
    return proof && { ...proof, cached: false };
  }

  /** Whether the user has a test of this server pending or running (lib/net/same-server.ts). */
  const busyOn = async (target: TargetServer, userId: number) =>
    (await openTargets(db, userId)).some((other) => sameServer(target, other));

  /** A test above the small size: more users, no rate bound or a higher one, or longer. */
  const isLarge = (size: TestSize) =>
    size.concurrentUsers > small.users ||
    size.requestsPerSecond === 0 ||
    size.requestsPerSecond > small.rps ||
    size.testDuration > small.seconds;

  /** 403 target_not_verified: what needs the proof, and the ways to give it. */
  function notVerified(url: URL, host: string, token: string, large: boolean) {
    const ways = methodsFor(url, host, token)
      .map((m) => m.how)
      .join(', or ');
    const why = large
      ? `tests above ${small.users} users, a rate of ${small.rps}/s (or an unbounded rate) or ${small.seconds} s`
      : 'a second test at once of the same server (by any of its names, schemes or ports)';
    return new TargetNotVerifiedError(
      `targetUrl: ${why} need${large ? '' : 's'} proof that you control ${host}. ${ways}; then start again ` +
        '(POST /api/v1/load-testing/targets with {"targetUrl"} shows the token and checks it). ' +
        (large ? 'Smaller tests run without it.' : 'Or wait for your running test of it to end.'),
    );
  }

  /** What a test of a proven host may do (large: keep to the proven addresses); 403 without the proof. */
  async function proven(target: URL, userId: number, large: boolean): Promise<TargetCheck> {
    const { url, host } = targetOf(target);
    const token = await tokenOf(userId, host);
    const proof = await check(url, host, userId, token);
    if (!proof) throw notVerified(url, host, token, large);
    // A proven test connects to the proof's addresses only, as an unproven one to its start's.
    const { addresses } = proof;
    return large ? { pinned: addresses, addresses } : { addresses, connectTo: addresses };
  }

  return {
    required,
    isLarge,

    /** The caller's token for the target's host, how to serve it, and whether the host serves it now. */
    async issue(targetUrl: string, userId: number) {
      // Private and internal addresses are refused before any proof is fetched, as on start.
      const checked = await checkTarget(targetUrl, { allow: config.networkAllow, field: 'targetUrl' });
      const { url, host } = targetOf(checked.url);
      const token = await tokenOf(userId, host);
      const proof = await check(url, host, userId, token);
      return {
        success: true as const,
        host,
        token,
        verified: proof !== null,
        verified_by: proof ? (proof.cached ? ('cached' as const) : proof.by) : null,
        addresses: proof?.addresses ?? [],
        methods: methodsFor(url, host, token),
        required,
        required_above: { concurrent_users: small.users, requests_per_second: small.rps, test_duration: small.seconds },
        trusted_for_seconds: ttlSeconds,
      };
    },

    /**
     * Nothing when verification is off. Else a large test, or a second small one at once of the same
     * server (small tests side by side would add up to a large one), needs the host's proof (403
     * target_not_verified saying how): a large test gets the proven addresses it must keep to
     * (`pinned`). A small test without proof connects only to `addresses`, those its host had when the
     * start checked it (`connectTo`), and must run `alone`: createLoadTest refuses it
     * (SharedTargetError) if another test of its server was started meanwhile, and `proven` decides.
     * `target` is the start's URL as the SSRF guard checked it.
     */
    async ensure(target: URL, size: TestSize, userId: number, addresses: string[]): Promise<TargetCheck> {
      if (!required) return {};
      const large = isLarge(size);
      const { url } = targetOf(target);
      if (!large && !(await busyOn({ origin: url.origin, addresses }, userId)))
        return { addresses, connectTo: addresses, alone: true };
      return proven(target, userId, large);
    },

    proven,
  };
}

export type TargetVerificationService = ReturnType<typeof targetVerificationService>;
