// Bulk domain check speed: 100 uncached names in fast mode, each upstream (DNS) answer delayed by
// BENCH_UPSTREAM_MS (300 by default), against the same 100-name workload run one name at a time
// through the single lookup. Everything on loopback: the DNS server is the test fixture.
//   npm run --silent bench:domains
import { randomBytes } from 'node:crypto';
import { startDnsServer } from '../test/fixtures/dns-server.ts';
import { newAccountKey, startService } from './service.ts';

const upstreamMs = Number(process.env.BENCH_UPSTREAM_MS ?? 300);
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

  const batch = names();
  let started = performance.now();
  const answer = await bulk(batch);
  const bulkMs = performance.now() - started;
  const known = Object.values(answer.results).filter((r) => r.availability_confidence === 'medium').length;
  if (answer.checked_count !== count || known !== count)
    throw new Error(`expected ${count} live answers, got checked ${answer.checked_count}, known ${known}`);

  const sequential = names();
  started = performance.now();
  for (const domain of sequential) {
    const res = await fetch(`${app.baseUrl}/api/v1/network/whois?domain=${domain}&mode=fast`, { headers });
    if (res.status !== 200) throw new Error(`whois answered ${res.status}`);
    await res.arrayBuffer();
  }
  const sequentialMs = performance.now() - started;

  console.log(
    `bulk domain check, fast mode, ${count} uncached names, every DNS answer delayed ${upstreamMs} ms (loopback fixture)`,
  );
  console.log(
    `  bulk (one request, workflow on the network pool): ${Math.round(bulkMs)} ms  (target < 2000 ms: ${bulkMs < 2000 ? 'met' : 'NOT met'})`,
  );
  console.log(`  sequential (${count} single fast lookups):          ${Math.round(sequentialMs)} ms`);
  console.log(`  ratio sequential / bulk: ${(sequentialMs / bulkMs).toFixed(1)}x`);
} finally {
  await app.stop();
  await dns.close();
}
