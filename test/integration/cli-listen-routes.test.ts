// `netops listen --forward PATH=URL`: one webhook feeds several local services, each capture to the
// route of the longest path it is under (whole segments: `/stripe` never takes `/stripeX`), that path
// taken off; a capture no route takes is shown, not sent. The same routes reuse the same webhook, and
// the resume hint gives them back. `--path` filters by whole segments too; bad values are exit 2.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newAccount, targets } from '../support/client.ts';
import { type CliProcess, cliEnv, runCli, startCli } from '../support/cli.ts';
import { type Received, type Receiver, startReceiver } from '../support/receiver.ts';

const target = targets()[0]!;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Until `done()`, or fails after `ms`. */
async function until(done: () => boolean, what: string, ms = 30_000): Promise<void> {
  const end = Date.now() + ms;
  while (!done()) {
    if (Date.now() > end) throw new Error(`never: ${what}`);
    await sleep(50);
  }
}

/** One capture, sent to `hookUrl` plus `below`, with `body` to tell it by. */
async function send(hookUrl: string, below: string, body: string): Promise<void> {
  const res = await fetch(`${hookUrl}${below}`, { method: 'POST', body });
  await res.arrayBuffer();
  expect(res.status).toBe(200);
}

const lines = (cli: CliProcess) => cli.stdout().split('\n').filter(Boolean);
const got = (received: Received[]) => received.map((r) => [r.url, r.body.toString()]);

describe('netops listen, routes', () => {
  let stripe: Receiver;
  let other: Receiver;
  const toStripe: Received[] = [];
  const toOther: Received[] = [];
  const running: CliProcess[] = [];
  beforeAll(async () => {
    stripe = await startReceiver('127.0.0.1', toStripe, (_got, res) => res.writeHead(204).end());
    other = await startReceiver('127.0.0.1', toOther, (_got, res) => res.writeHead(202).end());
  });
  afterAll(async () => {
    for (const cli of running) cli.child.kill('SIGKILL');
    await stripe?.close();
    await other?.close();
  });

  function start(args: string[], env: Record<string, string>): CliProcess {
    const cli = startCli(['listen', ...args], env);
    running.push(cli);
    return cli;
  }

  async function stop(cli: CliProcess) {
    cli.child.kill('SIGINT');
    const run = await cli.ended;
    expect(run.code, run.stderr).toBe(0);
    return run;
  }

  it('sends each capture to the route of the longest path it is under, the path taken off; /stripeX is not ' +
    '/stripe; the same routes reuse the webhook', {
    timeout: 120_000,
  }, async () => {
    const { key } = await newAccount(target);
    const env = await cliEnv(target.baseUrl, key, { NO_COLOR: '1' });
    const routes = [
      '--forward',
      `/stripe=${stripe.url}/webhooks/stripe`,
      '--forward',
      `/stripe/connect=${other.url}/connect`,
      '--forward',
      `/github=${other.url}/gh`,
    ];
    const cli = start(routes, env);
    await cli.waitFor(/Forwarding captures of/);
    const id = /Forwarding captures of (\S+)/.exec(cli.stderr())![1]!;
    const hookUrl = /Send requests to (\S+)/.exec(cli.stderr())![1]!;
    expect(cli.stderr()).toContain(`/stripe/connect  -> ${other.url}/connect`);
    expect(cli.stderr()).toContain('other paths are shown, not forwarded');

    await send(hookUrl, '/stripe', 's1');
    await send(hookUrl, '/stripe/events?live=1', 's2');
    await send(hookUrl, '/stripeX', 'x1');
    await send(hookUrl, '/stripe/connect/acct?next=/github', 'c1');
    await send(hookUrl, '/github/push', 'g1');
    await send(hookUrl, '/other?to=/stripe', 'o1'); // the query is not the path
    await send(hookUrl, '', 'r1');
    await until(() => lines(cli).length >= 7, `7 lines:\n${cli.stdout()}\n${cli.stderr()}`);

    expect(got(toStripe)).toEqual([
      ['/webhooks/stripe', 's1'],
      ['/webhooks/stripe/events?live=1', 's2'],
    ]);
    expect(got(toOther)).toEqual([
      ['/connect/acct?next=/github', 'c1'],
      ['/gh/push', 'g1'],
    ]);
    const printed = lines(cli);
    expect(printed).toHaveLength(7);
    expect(printed[0]).toMatch(/ POST {3}\/stripe {2}-> \/stripe: 204 [\d.]+ ms$/);
    expect(printed[1]).toMatch(/ \/stripe\/events\?live=1 {2}-> \/stripe: 204 /);
    expect(printed[2]).toMatch(/ \/stripeX {2}-> not forwarded: no --forward route takes this path$/);
    expect(printed[3]).toMatch(/ \/stripe\/connect\/acct\?next=\/github {2}-> \/stripe\/connect: 202 /);
    expect(printed[4]).toMatch(/ \/github\/push {2}-> \/github: 202 /);
    expect(printed[5]).toMatch(/ \/other\?to=\/stripe {2}-> not forwarded/);
    expect(printed[6]).toMatch(/ \/ {2}-> not forwarded/);

    // The resume hint gives the routes back: run as printed, it forwards by them.
    const first = await stop(cli);
    const hint = /Resume with: netops (listen .+)/.exec(first.stderr)?.[1];
    expect(hint).toBe(`listen ${id} ${routes.join(' ')}`);
    toStripe.length = toOther.length = 0;
    const resumed = start(hint!.split(' ').slice(1), env);
    await resumed.waitFor(/Forwarding captures of/);
    await send(hookUrl, '/stripe/connect', 'c2');
    await until(() => lines(resumed).length >= 1, 'the resumed listen forwarded');
    expect([got(toStripe), got(toOther)]).toEqual([[], [['/connect', 'c2']]]); // nothing of before sent again
    await stop(resumed);

    // The same routes in another order (and spelled `/stripe/`) are the same project: the same webhook.
    const again = start(
      [
        '--forward',
        `/github=${other.url}/gh`,
        '--forward',
        `/stripe/=${stripe.url}/webhooks/stripe`,
        '--forward',
        `/stripe/connect=${other.url}/connect`,
        '--from-now',
      ],
      env,
    );
    await again.waitFor(/Forwarding captures of/);
    expect(again.stderr()).toContain(`Webhook ${id} (made by an earlier listen for these routes; --new for another)`);
    await stop(again);
    // Other routes are another project.
    const otherRoutes = start(['--forward', `/stripe=${stripe.url}/webhooks/stripe`], env);
    await otherRoutes.waitFor(/Forwarding captures of/);
    expect(otherRoutes.stderr()).toMatch(/Webhook \S+ created/);
    await stop(otherRoutes);
  });

  it('--forward-to takes what no route does; --path forwards only captures at or below its path, by whole segments', {
    timeout: 90_000,
  }, async () => {
    const { key } = await newAccount(target);
    const env = await cliEnv(target.baseUrl, key, { NO_COLOR: '1' });
    toStripe.length = toOther.length = 0;
    const cli = start(
      ['--forward-to', `${other.url}/all`, '--forward', `/stripe/a=${stripe.url}/a`, '--path', '/stripe', '--json'],
      env,
    );
    await cli.waitFor(/Forwarding captures of/);
    const hookUrl = /Send requests to (\S+)/.exec(cli.stderr())![1]!;
    await send(hookUrl, '/stripeX', 'p1');
    await send(hookUrl, '/other?p=/stripe', 'p2');
    await send(hookUrl, '/stripe/b', 'p3');
    await send(hookUrl, '/stripe/a/1?q=/x', 'p4');
    await send(hookUrl, '/stripe/ab', 'p5');
    await until(() => lines(cli).length >= 3, `3 lines:\n${cli.stdout()}\n${cli.stderr()}`);
    await sleep(300);
    const printed = lines(cli).map((l) => JSON.parse(l) as { body: string; forwarded: Record<string, unknown> });
    expect(printed.map((c) => [c.body, c.forwarded.route, c.forwarded.status])).toEqual([
      ['p3', '/', 202],
      ['p4', '/stripe/a', 204],
      ['p5', '/', 202],
    ]);
    expect(got(toStripe)).toEqual([['/a/1?q=/x', 'p4']]);
    expect(got(toOther)).toEqual([
      ['/all/stripe/b', 'p3'],
      ['/all/stripe/ab', 'p5'],
    ]);
    const run = await stop(cli);
    expect(run.stderr).toContain(`--forward-to ${other.url}/all --forward /stripe/a=${stripe.url}/a --path /stripe`);
  });

  it('refuses a malformed --forward with exit 2, naming the flag, before it calls the service', {
    timeout: 60_000,
  }, async () => {
    // The "service" records whatever reaches it: nothing may.
    const calls: Received[] = [];
    const service = await startReceiver('127.0.0.1', calls, (_got, res) => res.writeHead(500).end());
    try {
      const env = await cliEnv(service.url, 'ntk_x', { NO_COLOR: '1' });
      for (const [args, message] of [
        [['--forward', 'stripe'], '--forward: "stripe" is not PATH=URL'],
        [['--forward', `/stripe=localhost:4000`], '--forward: "localhost:4000" is not an http or https URL'],
        [['--forward', '/a=http://x', '--forward', '/a/=http://y'], '--forward: /a is routed twice'],
        [['--forward-to', 'http://x', '--forward-to', 'http://y'], '--forward-to: given twice'],
        [['--forward-to', 'http://x', '--path', 'stripe'], '--path: "stripe" must start with /'],
      ] as const) {
        const run = await runCli(['listen', ...args], env);
        expect([run.code, run.stderr]).toEqual([2, expect.stringContaining(`netops: ${message}`)]);
      }
      expect(calls).toEqual([]);
    } finally {
      await service.close();
    }
  });
});
