import { randomBytes } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import { startDnsServer } from '../test/fixtures/dns-server.ts';
import { newAccountKey, startService } from './service.ts';

const TLDS = ['com', 'net', 'org', 'io', 'dev', 'app', 'co.uk', 'de'];
const names = () => { const run = randomBytes(4).toString('hex'); return Array.from({ length: 100 }, (_, i) => `${i % 2 ? 'taken' : 'free'}-${run}-${i}.${TLDS[i % TLDS.length]}`); };
const dns = await startDnsServer({ delayMs: 0 });
const app = await startService({ DNS_SERVERS: dns.address });
try {
  const key = await newAccountKey(app.env);
  const headers = { 'X-API-Key': key, 'Content-Type': 'application/json' };
  const bulk = async (domains: string[]) => { const r = await fetch(`${app.baseUrl}/api/v1/network/domains/check`, { method: 'POST', headers, body: JSON.stringify({ domains, mode: 'fast' }) }); return r.json(); };
  await bulk(names().slice(0, 2));
  const client = new Client({ connection: await Connection.connect({ address: app.temporalAddress }) });
  for (let round = 0; round < 3; round++) {
    const t0 = Date.now();
    const ans = (await bulk(names())) as { execution_time_ms?: number };
    const t1 = Date.now();
    let latest: { workflowId: string; runId: string } | undefined;
    for await (const w of client.workflow.list({ query: "WorkflowType='bulkDomainCheck'" })) { latest = { workflowId: w.workflowId, runId: w.runId }; break; }
    const hist = await client.workflow.getHandle(latest!.workflowId).fetchHistory();
    console.log(`round ${round}: request ${t1 - t0} ms (server says ${JSON.stringify(ans).match(/"(execution_time_ms|took_ms|[a-z_]*ms)":\d+/g)})`);
    for (const e of hist.events ?? []) {
      const ms = Number(e.eventTime!.seconds) * 1000 + Math.floor((e.eventTime!.nanos ?? 0) / 1e6);
      const type = Object.keys(e).find((k) => k.endsWith('EventAttributes'));
      console.log(`  +${ms - t0} ms ${type}`);
    }
  }
} finally { await app.stop(); await dns.close(); }
