// `netops load run` as a CI step: exit 0 when the thresholds hold, 99 when one fails, 98 when the run
// tested nothing (a closed port, a certificate refused), a summary on stdout, Ctrl-C stopping the test
// on the service, a typo refused before anything starts, --insecure for a self-signed staging target
// (over HTTP/1.1 and h2).
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { startH2Target } from '../fixtures/h2-target.ts';
import { startHttpsServer } from '../fixtures/https-server.ts';
import { call, expectErrorShape, targets } from '../support/client.ts';
import { cliEnv, runCli, startCli } from '../support/cli.ts';
import { loadTestSuite } from '../support/load-tests.ts';
import { closedPort, tempDir } from '../support/processes.ts';

describe.each(targets())('netops load ($name)', (target) => {
  const { site, account, status, results } = loadTestSuite(target);
  const env = async () => cliEnv(target.baseUrl, (await account).key, { NO_COLOR: '1' });

  it('run with thresholds that hold: exit 0, the summary with each threshold, the report saved', {
    timeout: 60_000,
  }, async () => {
    const report = path.join(await tempDir('cli-report'), 'report.html');
    const run = await runCli(
      [
        'load',
        'run',
        '--url',
        `${site().url}/cli-pass`,
        '--users',
        '2',
        '--duration',
        '10s',
        '--ramp-up',
        '0',
        '--rate',
        '20',
        '--threshold',
        'error_rate < 1',
        '--threshold',
        'p95 < 5000',
        '--report',
        report,
      ],
      await env(),
    );
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/✓ error_rate < 1 \(observed 0\)/);
    expect(run.stdout).toMatch(/✓ p95 < 5000/);
    expect(run.stdout).toMatch(/http_reqs \.+ \d+/);
    expect(run.stdout).toMatch(/http_req_duration \.+ avg=.* p95=/);
    expect(run.stdout).toMatch(/COMPLETED after [\d.]+ s; PASSED: every threshold held/);
    expect(run.stderr).toMatch(/Load test \S+ started/);
    expect(site().count('/cli-pass')).toBeGreaterThan(100);
    expect(fs.readFileSync(report, 'utf8')).toMatch(/^<!doctype html>/i);
    // The test on the service is the one the summary describes.
    const id = /Load test (\S+) started/.exec(run.stderr)![1]!;
    const stored = (await results(id)).body.results;
    expect(run.stdout).toContain(`http_reqs ${'.'.repeat(13)} ${stored.total_requests} `);
    const asJson = await runCli(['load', 'results', id, '--json'], await env());
    expect(JSON.parse(asJson.stdout)).toEqual((await results(id)).body);
  });

  it('--once: each user sends one request and the run ends as soon as they have (a smoke test)', {
    timeout: 60_000,
  }, async () => {
    const started = Date.now();
    const run = await runCli(
      ['load', 'run', '--url', `${site().url}/cli-once`, '--users', '3', '--once', '--threshold', 'error_rate < 1'],
      await env(),
    );
    expect(run.code, run.stderr).toBe(0);
    // Over long before the 60 s a run that counts iterations is bounded by when no duration is given.
    expect(Date.now() - started).toBeLessThan(30_000);
    expect(site().count('/cli-once')).toBe(3);
    expect(run.stdout).toMatch(/COMPLETED after [\d.]+ s; PASSED/);
    const both = await runCli(['load', 'run', '--url', `${site().url}/x`, '--once', '--iterations', '2'], await env());
    expect(both.code).toBe(2);
    expect(both.stderr).toMatch(/--once is --iterations 1: give one of them/);
    const zero = await runCli(['load', 'run', '--url', `${site().url}/x`, '--iterations', '0'], await env());
    expect(zero.code).toBe(2);
    expect(zero.stderr).toMatch(/--iterations/);
  });

  it('run with a threshold that fails: exit 99 and the failed threshold marked', { timeout: 60_000 }, async () => {
    const run = await runCli(
      [
        'load',
        'run',
        '--url',
        `${site().url}/delay/20/cli-fail`,
        '--users',
        '2',
        '--duration',
        '10',
        '--ramp-up',
        '0',
        '--rate',
        '20',
        '--threshold',
        'avg < 10',
      ],
      await env(),
    );
    expect(run.code, run.stderr).toBe(99);
    expect(run.stdout).toMatch(/✗ avg < 10 \(observed [\d.]+\)/);
    expect(run.stdout).toMatch(/FAILED: a threshold did not hold/);
    expect(run.stderr).toMatch(/netops: load test \S+: avg < 10 \(observed [\d.]+\) did not hold/);
  });

  it('Ctrl-C stops the test on the service and prints the partial results, exit 1', { timeout: 60_000 }, async () => {
    const cli = startCli(
      [
        'load',
        'run',
        '--url',
        `${site().url}/cli-interrupt`,
        '--users',
        '2',
        '--duration',
        '5m',
        '--ramp-up',
        '0',
        '--rate',
        '20',
      ],
      await env(),
    );
    await cli.waitFor(/Load test \S+ started/);
    const id = /Load test (\S+) started/.exec(cli.stderr())![1]!;
    const until = Date.now() + 30_000;
    while (site().count('/cli-interrupt') < 20 && Date.now() < until) await new Promise((r) => setTimeout(r, 100));
    cli.child.kill('SIGINT');
    const run = await cli.ended;
    expect(run.code, run.stderr).toBe(1);
    expect((await status(id)).body.status).toBe('stopped');
    expect(run.stdout).toMatch(/STOPPED after [\d.]+ s/);
    expect(run.stderr).toMatch(/stopped by Ctrl-C/);
  });

  it('a typo in the file is refused before anything starts (exit 2), as the API refuses it (400)', async () => {
    const body = {
      targetUrl: `${site().url}/cli-typo`,
      httpMethod: 'GET',
      concurrentUsers: 1,
      testDuration: 10,
      requestPerSecond: 5,
    };
    const file = path.join(await tempDir('cli-body'), 'smoke.json');
    fs.writeFileSync(file, JSON.stringify(body));
    const run = await runCli(['load', 'run', file], await env());
    expect(run.code).toBe(2);
    expect(run.stderr).toBe(
      'netops: requestPerSecond: is not a field of this body (did you mean requestsPerSecond?)\n',
    );
    const refused = await call(target, 'POST', '/api/v1/load-testing/start', { key: (await account).key, json: body });
    expectErrorShape(refused, 400);
    expect(refused.body.message).toBe(
      'requestPerSecond: is not a field of this body (did you mean requestsPerSecond?)',
    );
    const yaml = path.join(path.dirname(file), 'smoke.yaml');
    fs.writeFileSync(yaml, `targetUrl: ${site().url}/cli-typo\nconcurrentUsers: 1\ntestDuration: 5\n`);
    const short = await runCli(['load', 'run', yaml], await env());
    expect(short.code).toBe(2);
    expect(short.stderr).toMatch(/testDuration: must be from 10 to 3600/);
    const influx = await runCli(['load', 'run', file, '--out', 'influxdb=http://127.0.0.1:8086'], await env());
    expect([influx.code, influx.stderr]).toEqual([
      2,
      'netops: --out: "influxdb=http://127.0.0.1:8086" is not prometheus=URL, ndjson or csv\n',
    ]);
    expect(site().count('/cli-typo')).toBe(0);
  });

  it("run --replay-har sends a HAR file's requests to its origin, each counted in the summary", {
    timeout: 60_000,
  }, async () => {
    const entry = (i: number, method: string, path: string, body?: string) => ({
      startedDateTime: new Date(Date.UTC(2026, 10, 27, 9, 0, 0, i * 50)).toISOString(),
      request: {
        method,
        url: `${site().url}${path}`,
        headers: [{ name: 'X-From', value: 'har' }],
        ...(body ? { postData: { mimeType: 'application/json', text: body } } : {}),
      },
    });
    const har = path.join(await tempDir('cli-har'), 'session.har');
    fs.writeFileSync(
      har,
      JSON.stringify({
        log: { entries: [entry(0, 'GET', '/cli-har/page'), entry(1, 'POST', '/cli-har/api', '{"a":1}')] },
      }),
    );
    const run = await runCli(
      ['load', 'run', '--replay-har', har, '--speed', '0', '--users', '2', '--tag', 'env=ci', '--out', 'ndjson'],
      await env(),
    );
    expect(run.code, run.stderr).toBe(0);
    // --tag and --out became the body's tags and outputs.
    const id = /Load test (\S+) started/.exec(run.stderr)![1]!;
    expect((await status(id)).body.config).toMatchObject({ tags: { env: 'ci' }, outputs: [{ type: 'ndjson' }] });
    expect(run.stderr).toContain(`started against ${site().url}`);
    expect(run.stdout).toMatch(/step 1 GET \/cli-har\/page \.+ 2 reqs, 0% failed/);
    expect(run.stdout).toMatch(/step 2 POST \/cli-har\/api \.+ 2 reqs, 0% failed/);
    // Each of the 2 users sent the sequence once, byte for byte.
    expect(site().count('/cli-har/page')).toBe(2);
    expect(site().count('/cli-har/api')).toBe(2);
    expect(site().lastBody('/cli-har/api')).toBe('{"a":1}');
    expect(site().lastHeaders('/cli-har/api')?.['x-from']).toBe('har');
  });

  it('a closed port: exit 98, target unreachable on the first line, each user resting between attempts', {
    timeout: 60_000,
  }, async () => {
    const port = await closedPort();
    const run = await runCli(
      ['load', 'run', '--url', `http://127.0.0.1:${port}/`, '--users', '2', '--duration', '10s'],
      await env(),
    );
    expect(run.code, run.stderr).toBe(98);
    const first = run.stdout.split('\n').find((l) => l.trim())!;
    expect(first).toMatch(/^ {2}✗ TARGET UNREACHABLE: all \d+ attempts failed: ECONNREFUSED$/);
    expect(run.stdout).toMatch(/http_reqs \.+ 0 0\/s/);
    expect(run.stdout).toMatch(/connection errors \.+ \d+ attempts not sent/);
    expect(run.stdout).toMatch(/COMPLETED after [\d.]+ s; FAILED: target unreachable: all \d+ attempts failed/);
    expect(run.stderr).toMatch(/netops: load test \S+: target unreachable: all \d+ attempts failed: ECONNREFUSED\n$/);
    const id = /Load test (\S+) started/.exec(run.stderr)![1]!;
    const r = (await results(id)).body.results;
    expect(r).toMatchObject({ total_requests: 0, error_rate: 100, throughput: 0, p95_response_time: 0 });
    expect(r).toMatchObject({ verdict: 'failed', verdict_reason: 'target_unreachable' });
    expect(r.errors).toEqual({ ECONNREFUSED: r.connection_errors });
    // Resting 0.1 s doubling to 1 s after each refusal, a user tries about a dozen times in 10 s
    // (without the rest, two users made 230,062 attempts).
    console.log(`closed port: ${r.connection_errors} attempts by 2 users in ${r.duration_seconds} s`);
    expect(r.connection_errors).toBeGreaterThanOrEqual(2 * 5);
    expect(r.connection_errors).toBeLessThanOrEqual(2 * 20);
    const live = (await status(id)).body;
    expect(live).toMatchObject({ verdict: 'failed', verdict_reason: 'target_unreachable' });
    expect(live.verdict_detail).toBe(`all ${r.connection_errors} attempts failed: ECONNREFUSED`);
    expect(live.metrics.connection_errors).toBe(r.connection_errors);
    // `load list` shows the verdict and the error rate.
    const list = await runCli(['load', 'list', '--limit', '1'], await env());
    expect(list.code, list.stderr).toBe(0);
    expect(list.stdout).toMatch(/Verdict.*Errors/);
    expect(list.stdout).toMatch(new RegExp(`${id}.*failed \\(unreachable\\).*100%`));
  });

  it.each([
    {
      over: 'HTTP/1.1',
      protocol: 'http/1.1',
      flags: [],
      serve: async () => {
        const tls = await startHttpsServer();
        return { url: tls.url, close: tls.close };
      },
    },
    {
      over: 'HTTP/2 (h2 only, --http-version 2)',
      protocol: 'h2',
      flags: ['--http-version', '2'],
      serve: async () => {
        const h2 = await startH2Target();
        return { url: h2.h2Url, close: h2.close };
      },
    },
  ])(
    '--insecure accepts a self-signed staging target over $over (exit 0); without it the run fails as ' +
      'unreachable (98)',
    {
      timeout: 60_000,
    },
    async ({ protocol, flags, serve }) => {
      const tls = await serve();
      onTestFinished(() => tls.close());
      const args = (more: string[]) => [
        'load',
        'run',
        '--url',
        `${tls.url}/`,
        '--users',
        '1',
        '--duration',
        '10s',
        '--ramp-up',
        '0',
        '--rate',
        '5',
        '--threshold',
        'http_req_failed: rate<0.01',
        ...flags,
        ...more,
      ];
      const [trusting, checking] = await Promise.all([
        runCli(args(['--insecure']), await env()),
        runCli(args([]), await env()),
      ]);
      expect(trusting.code, trusting.stderr).toBe(0);
      expect(trusting.stdout).toMatch(/✓ error_rate < 1 \(observed 0\)/);
      expect(trusting.stdout).toMatch(/PASSED: every threshold held/);
      // Every answer came over the protocol asked for.
      expect(trusting.stdout).toMatch(new RegExp(`protocols \\.+ ${protocol}: \\d+(?: |$)`, 'm'));
      const trustingId = /Load test (\S+) started/.exec(trusting.stderr)![1]!;
      expect((await status(trustingId)).body.config.insecure_tls).toBe(true);
      expect(checking.code, checking.stderr).toBe(98);
      expect(checking.stdout).toMatch(
        /^ {2}✗ TARGET UNREACHABLE: all \d+ attempts failed: DEPTH_ZERO_SELF_SIGNED_CERT$/m,
      );
      // Its threshold failed too, but the verdict names the unreachable target first: exit 98, not 99.
      expect(checking.stdout).toMatch(/✗ error_rate < 1 \(observed 100\)/);
    },
  );
});
