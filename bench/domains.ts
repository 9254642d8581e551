// Bulk domain check speed: 100 uncached names in one fast-mode request, against 100 other uncached
// names as single fast lookups made BENCH_SINGLE_AT_ONCE (10) at a time, as a client would do it by
// hand; BENCH_ROUNDS (3) rounds of each, the medians compared. Each upstream (DNS) answer is delayed
// by BENCH_UPSTREAM_MS (0 by default: the check's own cost). Everything on loopback: the DNS server
// is the test fixture.
//   npm run --silent bench:domains
import { randomBytes } from 'node:crypto';
import { startDnsServer } from '../test/fixtures/dns-server.ts';
import { newAccountKey, startService } from './service.ts';

const upstreamMs = Number(process.env.BENCH_UPSTREAM_MS ?? 0);
const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
const atOnce = Number(process.env.BENCH_SINGLE_AT_ONCE ?? 10);
const count = Number(process.env.BENCH_DOMAINS ?? 100);
const TLDS = ['com', 'net', 'org', 'io', 'dev', 'app', 'co.uk', 'de'];

/** `count` names no cache has seen: half registered (delegated in the fixture), half free, over several TLDs. */
function names(): string[] {
  const run = randomBytes(4).toString('hex');
  return Array.from({ length: count }, (_, i) => `${i % 2 ? 'taken' : 'free'}-${run}-${i}.${TLDS[i % TLDS.length]}`);
}

const dns = await startDnsServer({ delayMs: upstreamMs });
const env = { DNS_SERVERS: dns.address };
const app = await startService(env);
try {
  const key = await newAccountKey(app.env);
  const headers = { 'X-API-Key': key, 'Content-Type': 'application/json' };
  const bulk = async (domains: string[]) => {
    const res = await fetch(`${app.baseUrl}/api/v1/network/domains/check`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ domains, mode: 'fast' }),
    });
    if (res.status !== 200) throw new Error(`bulk check answered ${res.status}: ${await res.text()}`);
    return (await res.json()) as {
      checked_count: number;
      cached_count: number;
      results: Record<string, { availability_confidence: string }>;
    };
  };
  await bulk(names().slice(0, 2)); // warm-up: the first workflow task of a fresh worker

  const single = async (domain: string) => {
    const res = await fetch(`${app.baseUrl}/api/v1/network/whois?domain=${domain}&mode=fast`, { headers });
    if (res.status !== 200) throw new Error(`whois answered ${res.status}`);
    await res.arrayBuffer();
  };
  const bulkTimes: number[] = [];
  const singleTimes: number[] = [];
  for (let round = 1; round <= rounds; round++) {
    const batch = names();
    let started = performance.now();
    const answer = await bulk(batch);
    bulkTimes.push(performance.now() - started);
    const known = Object.values(answer.results).filter((r) => r.availability_confidence === 'medium').length;
    if (answer.checked_count !== count || known !== count)
      throw new Error(`expected ${count} live answers, got checked ${answer.checked_count}, known ${known}`);

    const singles = names();
    started = performance.now();
    let next = 0;
    await Promise.all(
      Array.from({ length: atOnce }, async () => {
        while (next < singles.length) await single(singles[next++]!);
      }),
    );
    singleTimes.push(performance.now() - started);
    console.log(
      `  round ${round}: bulk ${Math.round(bulkTimes.at(-1)!)} ms, singles ${Math.round(singleTimes.at(-1)!)} ms`,
    );
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  const bulkMs = median(bulkTimes);
  const singleMs = median(singleTimes);
  console.log(
    `bulk domain check, fast mode, ${count} uncached names, every DNS answer delayed ${upstreamMs} ms ` +
      `(loopback fixture); medians of ${rounds} rounds`,
  );
  console.log(`  bulk (one request, workflow on the network pool): ${Math.round(bulkMs)} ms`);
  console.log(`  single lookups, ${atOnce} at a time:               ${Math.round(singleMs)} ms`);
  console.log(
    `  ratio bulk / singles: ${(bulkMs / singleMs).toFixed(2)} (the goal: at most 1, and the bulk under 300 ms)`,
  );
} finally {
  await app.stop();
  await dns.close();
}
