// Politeness towards a registry across processes: two network workers share one Redis, and the RDAP
// server they both ask allows 5 queries in any second (more get 429). With REGISTRY_RATE=4 every name
// of two concurrent bulk checks is answered from the registry, the server never had to refuse, and no
// second held more than its rate. Without the shared pace each worker would go at its own rate (or
// the group's concurrency at full speed) and the server would refuse: those names would come back unknown.
import { spawn } from 'node:child_process';
import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import { afterAll, describe, expect, it } from 'vitest';
import { encryptingDataConverter, loadPayloadKey } from '../../lib/temporal/codec.ts';
import { freePort, startCluster, tempDir } from '../support/processes.ts';

const SERVER_RATE = 5; // the fixture's own limit: queries in any 1000 ms
const OUR_RATE = 4; // REGISTRY_RATE, below the registry's documented rate as an operator would set it

async function startRateLimitedRdap() {
  const arrivals: number[] = [];
  let refused = 0;
  const server = http.createServer((_req, res) => {
    const now = performance.now();
    const inLastSecond = arrivals.filter((t) => now - t < 1000).length;
    arrivals.push(now);
    if (inLastSecond >= SERVER_RATE) {
      refused++;
      res.writeHead(429, { 'content-type': 'application/rdap+json', 'retry-after': '1' });
      return res.end(JSON.stringify({ errorCode: 429, title: 'Too Many Requests' }));
    }
    res.writeHead(404, { 'content-type': 'application/rdap+json' });
    res.end(JSON.stringify({ errorCode: 404, title: 'Not Found' }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/rdap/`,
    arrivals,
    refused: () => refused,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

async function startRedis() {
  const port = await freePort();
  const child = spawn(
    'redis-server',
    [
      '--port',
      String(port),
      '--bind',
      '127.0.0.1',
      '--save',
      '',
      '--appendonly',
      'no',
      '--dir',
      await tempDir('pace-redis'),
    ],
    { stdio: 'ignore' },
  );
  for (let i = 0; i < 50; i++) {
    const up = await new Promise<boolean>((resolve) => {
      const socket = net.connect(port, '127.0.0.1', () => resolve(true)).on('error', () => resolve(false));
      socket.on('connect', () => socket.destroy());
    });
    if (up) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  return { url: `redis://127.0.0.1:${port}`, stop: () => child.kill('SIGTERM') };
}

describe('registry pace across network workers', () => {
  const cleanups: Array<() => unknown> = [];
  afterAll(async () => {
    for (const c of cleanups.reverse()) await c();
  });

  it("two network workers sharing Redis stay under the registry's rate, and every name still gets its answer", {
    timeout: 180_000,
  }, async () => {
    const rdap = await startRateLimitedRdap();
    cleanups.push(rdap.close);
    const redis = await startRedis();
    cleanups.push(redis.stop);
    const cluster = await startCluster('registry-pace', {
      REDIS_URL: redis.url,
      RDAP_BASE_URL: rdap.url,
      NETWORK_ALLOW: '127.0.0.1/32',
      REGISTRY_RATE: String(OUR_RATE),
      LOOKUP_TIMEOUT_MS: '5000',
    });
    cleanups.push(cluster.stop);
    await cluster.role('worker:workflows');
    await cluster.role('worker:network');
    await cluster.role('worker:network');

    // Two users' checks at once: 8 names in flight (4 per group), spread over both workers.
    const names = (n: number) => Array.from({ length: n }, () => `pace-${randomBytes(5).toString('hex')}.com`);
    const batches = [names(12), names(12)];
    const replies = await Promise.all(
      batches.map(async (domains) => {
        const res = await fetch(`${cluster.api.baseUrl}/api/v1/network/domains/check`, {
          method: 'POST',
          headers: { 'X-API-Key': cluster.key, 'Content-Type': 'application/json' },
          body: JSON.stringify({ domains, mode: 'full' }),
        });
        return { status: res.status, body: (await res.json()) as any };
      }),
    );
    for (const [i, reply] of replies.entries()) {
      expect(reply.status).toBe(200);
      for (const name of batches[i]!)
        expect(reply.body.results[name], name).toMatchObject({
          success: true,
          available: true,
          availability_confidence: 'high',
        });
    }

    expect(rdap.refused()).toBe(0);
    expect(rdap.arrivals).toHaveLength(24);
    const sorted = [...rdap.arrivals].sort((a, b) => a - b);
    const busiest = Math.max(...sorted.map((t) => sorted.filter((u) => u >= t && u - t < 1000).length));
    // a turn's jitter may bring a fifth into a 1000 ms span, never more
    expect(busiest).toBeLessThanOrEqual(OUR_RATE + 1);
    const overall = (sorted.length - 1) / ((sorted.at(-1)! - sorted[0]!) / 1000);
    expect(overall).toBeLessThanOrEqual(OUR_RATE * 1.05);

    // Both workers took part: the queries came from two processes, paced by one schedule.
    const connection = await Connection.connect({ address: cluster.api.temporalAddress });
    cleanups.push(() => connection.close());
    const client = new Client({
      connection,
      dataConverter: encryptingDataConverter(
        await loadPayloadKey(cluster.api.env.PAYLOAD_KEY, cluster.api.env.DATA_DIR!),
      ),
    });
    const identities = new Set<string>();
    for await (const wf of client.workflow.list({ query: "WorkflowType = 'bulkDomainCheck'" })) {
      const history = await client.workflow.getHandle(wf.workflowId, wf.runId).fetchHistory();
      for (const event of history.events ?? []) {
        const identity = event.activityTaskStartedEventAttributes?.identity;
        if (identity) identities.add(identity);
      }
    }
    expect(identities.size, [...identities].join(', ')).toBe(2);
    console.log(
      `registry pace: ${sorted.length} queries from 2 workers in ` +
        `${((sorted.at(-1)! - sorted[0]!) / 1000).toFixed(2)} s (${overall.toFixed(2)}/s, busiest second ` +
        `${busiest}), ${rdap.refused()} refused`,
    );
  });
});
