// How `netops listen` starts: without an id it reuses the webhook it made last time for the same
// service, key and forward target (one endpoint per project, `--new` for another) and prints the
// command that resumes; a service that cannot be reached, a refused key or an unknown webhook fail it
// at once (exit 1, the URL and the cause), before it prints that it is forwarding.
import { randomUUID } from 'node:crypto';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newAccount, targets } from '../support/client.ts';
import { cliEnv, runCli, startCli } from '../support/cli.ts';
import { freePort } from '../support/processes.ts';
import { type Received, startReceiver, type Receiver } from '../support/receiver.ts';

const target = targets()[0]!;

describe('netops listen, starting', () => {
  let receiver: Receiver;
  const received: Received[] = [];
  beforeAll(async () => {
    receiver = await startReceiver('127.0.0.1', received, (_got, res) => res.writeHead(204).end());
  });
  afterAll(() => receiver?.close());

  /** Starts listen, waits until it forwards, stops it with Ctrl-C; what it printed. */
  async function listenOnce(args: string[], env: Record<string, string>, send?: (hookUrl: string) => Promise<void>) {
    const cli = startCli(['listen', ...args], env);
    await cli.waitFor(/Forwarding captures of/);
    const hookUrl = /Send requests to (\S+)/.exec(cli.stderr())?.[1] ?? '';
    await send?.(hookUrl);
    cli.child.kill('SIGINT');
    const run = await cli.ended;
    expect(run.code, run.stderr).toBe(0);
    return { ...run, id: /Forwarding captures of (\S+)/.exec(run.stderr)?.[1], hookUrl };
  }

  it('reuses the webhook it made for the same target, says so, makes another with --new, and prints how to resume', {
    timeout: 90_000,
  }, async () => {
    const { key } = await newAccount(target);
    const env = await cliEnv(target.baseUrl, key);
    const forwardTo = `${receiver.url}/hooks`;
    const first = await listenOnce(['--forward-to', forwardTo], env);
    expect(first.stderr).toMatch(/Webhook \S+ created/);
    expect(first.stderr).toContain(`Resume with: netops listen ${first.id} --forward-to ${forwardTo}`);

    const second = await listenOnce(['--forward-to', forwardTo, '--from-now'], env, async (hookUrl) => {
      expect((await fetch(`${hookUrl}/again`, { method: 'POST', body: 'reused' })).status).toBe(200);
      const until = Date.now() + 15_000;
      while (!received.some((r) => r.body.toString() === 'reused') && Date.now() < until)
        await new Promise((r) => setTimeout(r, 50));
    });
    expect(second.id).toBe(first.id);
    expect(second.stderr).toContain('made by an earlier listen for this URL');
    expect(second.hookUrl).toBe(first.hookUrl);
    expect(received.find((r) => r.body.toString() === 'reused')?.url).toBe('/hooks/again');

    // Another target is another project; --new makes another webhook for the same one.
    const other = await listenOnce(['--forward-to', `${receiver.url}/other`], env);
    expect(other.id).not.toBe(first.id);
    const fresh = await listenOnce(['--forward-to', forwardTo, '--new'], env);
    expect(fresh.id).not.toBe(first.id);
    expect(fresh.stderr).toMatch(/Webhook \S+ created/);
  });

  // Measured on a 2-core machine that other suites share: the median says whether captures are pushed
  // (before, a woken stream looked at most once a second: median 694 ms, p95 1,581 ms); the p95 takes
  // the load of a load test running beside it (36-48 ms alone, up to 165 ms beside one).
  it('forwards each capture within tens of milliseconds of its sending (50 sent at 10 a second): pushed, not polled', {
    timeout: 90_000,
  }, async () => {
    const { key } = await newAccount(target);
    const cli = startCli(['listen', '--forward-to', `${receiver.url}/latency`], await cliEnv(target.baseUrl, key));
    try {
      await cli.waitFor(/Forwarding captures of/);
      const hookUrl = /Send requests to (\S+)/.exec(cli.stderr())![1]!;
      const sentAt = new Map<string, number>();
      const run = randomUUID();
      for (let i = 0; i < 50; i++) {
        const tag = `latency-${run}-${i}`;
        sentAt.set(tag, performance.timeOrigin + performance.now());
        void fetch(hookUrl, { method: 'POST', body: tag });
        await new Promise((r) => setTimeout(r, 100));
      }
      const until = Date.now() + 20_000;
      const arrived = () => received.filter((r) => sentAt.has(r.body.toString()));
      while (arrived().length < 50 && Date.now() < until) await new Promise((r) => setTimeout(r, 50));
      const delays = arrived()
        .map((r) => r.at - sentAt.get(r.body.toString())!)
        .sort((a, b) => a - b);
      expect(delays).toHaveLength(50);
      const [p50, p95] = [delays[24]!, delays[Math.ceil(0.95 * delays.length) - 1]!];
      console.log(`listen: send to local receiver, p50 ${p50.toFixed(1)} ms, p95 ${p95.toFixed(1)} ms`);
      expect(p50).toBeLessThan(100);
      expect(p95).toBeLessThan(500);
    } finally {
      cli.child.kill('SIGINT');
      await cli.ended;
    }
  });

  it('fails at once, before forwarding, for an unknown webhook, a refused key or a service that is not there', {
    timeout: 60_000,
  }, async () => {
    const { key } = await newAccount(target);
    const unknown = await runCli(
      ['listen', 'nosuchwebhook', '--forward-to', receiver.url],
      await cliEnv(target.baseUrl, key),
    );
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('404');
    expect(unknown.stderr).not.toContain('Forwarding');

    const refused = await runCli(['listen', '--forward-to', receiver.url], await cliEnv(target.baseUrl, 'ntk_wrong'));
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('401');
    expect(refused.stderr).not.toMatch(/Forwarding|created/);

    const nobody = `http://127.0.0.1:${await freePort()}`;
    const down = await runCli(['listen', '--forward-to', receiver.url], await cliEnv(nobody, key));
    expect(down.code).toBe(1);
    expect(down.stderr).toContain(nobody);
    expect(down.stderr).toContain('ECONNREFUSED');
  });

  it('gives up within 10 s on a service that accepts the connection and never answers', {
    timeout: 60_000,
  }, async () => {
    const silent = net.createServer(() => {}); // holds every connection, says nothing
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', () => r()));
    try {
      const url = `http://127.0.0.1:${(silent.address() as net.AddressInfo).port}`;
      const began = Date.now();
      const run = await runCli(['listen', 'abc', '--forward-to', receiver.url], await cliEnv(url, 'ntk_x'));
      const seconds = (Date.now() - began) / 1000;
      expect(run.code).toBe(1);
      expect(run.stderr).toContain(`${url}/api/v1/network/my-webhook-requests`);
      expect(run.stderr).toContain('no answer within 10 s');
      expect(seconds).toBeLessThan(15);
    } finally {
      silent.close();
    }
  });
});
