// netops load run|status|stop|results|report|list|verify-target. `run` is the CI gate: it starts a
// test, shows its progress, prints the summary and ends 0 (passed), 99 (a threshold failed), 98 (the
// target unreachable: every attempt failed, nothing measured) or 1.
import fs from 'node:fs';
import type { Command } from 'commander';
import { loadTestOperations as ops } from '../../api/schemas/load-tests.ts';
import { client, pathOf, type Client } from '../client.ts';
import { currentService } from '../config.ts';
import { TargetUnreachable, ThresholdsFailed } from '../errors.ts';
import { asFlags } from '../flag-errors.ts';
import { runFlagFields, startBodyOf, seconds, stage, type RunFlags } from '../load-body.ts';
import { followTest } from '../load-progress.ts';
import { plural, summary, type ResultsAnswer } from '../load-summary.ts';
import { fields, localTime, note, out, print, printJson, table } from '../output.ts';
import { examples, number, positiveInt, wholeNumber } from './parse.ts';

const api = () => client(currentService());
const repeat = (v: string, all: string[] = []) => [...all, v];

interface Status {
  test_id: string;
  status: string;
  progress: number;
  metrics: {
    total_requests: number;
    throughput: number;
    error_rate: number;
    avg_response_time: number;
    p95_response_time?: number;
    connection_errors?: number;
  };
  started_at: string | null;
  estimated_completion: string | null;
  failure_reason?: string;
  thresholds?: Array<{ threshold: string; observed: number; pass: boolean }>;
  verdict?: string;
  verdict_reason?: string;
  verdict_detail?: string;
}

async function saveReport(c: Client, id: string, file: string): Promise<void> {
  const res = await c.send('GET', pathOf(ops.report, { test_id: id }), { open: true });
  fs.writeFileSync(file, Buffer.from(await res.arrayBuffer()));
  note(`Report saved to ${file}`);
}

/** 0 when it completed (and every threshold held), 98 when it tested nothing, 99 when a threshold failed, else 1. */
function outcome(a: ResultsAnswer): void {
  if (a.results?.verdict_reason === 'target_unreachable')
    throw new TargetUnreachable(
      `load test ${a.test_id}: target unreachable: ${a.results.verdict_detail ?? 'every attempt failed'}`,
    );
  if (a.results?.verdict === 'failed')
    throw new ThresholdsFailed(
      `load test ${a.test_id}: ${a.results.thresholds
        ?.filter((t) => !t.pass)
        .map((t) => `${t.threshold} (observed ${t.observed})`)
        .join(', ')} did not hold`,
    );
  if (a.status !== 'completed')
    throw new Error(`load test ${a.test_id} ${a.status}${a.failure_reason ? `: ${a.failure_reason}` : ''}`);
}

/** A test's verdict as `load list` shows it: passed, failed, failed (unreachable), or nothing without one. */
function verdictCell(summary: Record<string, unknown> | null): string {
  if (!summary?.verdict) return '';
  if (summary.verdict === 'passed') return out.green('passed');
  return out.red(summary.verdict_reason === 'target_unreachable' ? 'failed (unreachable)' : 'failed');
}

export function registerLoad(program: Command): void {
  const load = program
    .command('load')
    .description('Load tests: run one as a CI gate, or look at yours')
    .addHelpText('after', examples('netops load run smoke.json', 'netops load list'));

  load
    .command('run')
    .description(
      'Start a load test, show its progress, print the summary; ' +
        'exit 0 passed, 99 a threshold failed, 98 target unreachable, 1 failed',
    )
    .argument(
      '[file]',
      'the start body as JSON (or YAML: .yaml/.yml), as POST /load-testing/start takes it; - reads stdin',
    )
    .option('--url <url>', 'targetUrl: the URL to load')
    .option('--method <method>', 'httpMethod (default GET)')
    .option('--users <n>', 'concurrentUsers', positiveInt('--users'))
    .option('--duration <time>', 'testDuration: 30, 30s, 5m, 1m30s', seconds('--duration'))
    .option('--ramp-up <time>', 'rampUpTime', seconds('--ramp-up'))
    .option('--rate <n>', 'requestsPerSecond (0: as fast as the users go)', wholeNumber('--rate'))
    .option('--header <name:value>', 'a header of every request (repeat it)', repeat)
    .option('--body <text>', 'the body of every request')
    .option('--insecure', "insecureTls: accept the target's invalid certificate (a staging server's self-signed one)")
    .option('--http-version <version>', 'httpVersion: 1.1 (default) or 2 (h2 by ALPN over https, h2c over http)')
    .option(
      '--streams-per-connection <n>',
      'http2.streamsPerConnection: HTTP/2 users sharing a connection (default 1)',
      positiveInt('--streams-per-connection'),
    )
    .option('--replay-har <file>', "replay.har: send the requests of this HAR file (a browser's or a proxy's export)")
    .option('--replay-webhook <id>', "replay.webhook_id: send this webhook's captures (with --url: where to)")
    .option(
      '--speed <n>',
      'replay.speed: 1 recorded timing (default), 10 ten times faster, 0 in order as fast as answered',
      number('--speed'),
    )
    .option('--loop', 'replay.loop: repeat the recorded requests until --duration ends')
    .option('--threshold <expr>', 'a pass/fail threshold such as "p95 < 300" (repeat it; replaces the file\'s)', repeat)
    .option('--stage <duration:target>', "a stage such as 30s:100 (repeat it; replaces the file's)", stage)
    .option('--tag <name=value>', 'tags: a label on every series the outputs send (repeat it)', repeat)
    .option(
      '--out <output>',
      "outputs: prometheus=URL (remote write every 5 s), ndjson or csv (repeat it; replaces the file's)",
      repeat,
    )
    .option('--report <file>', 'save the HTML report here at the end')
    .option('--json', 'print the results as the API answers them instead of the summary')
    .addHelpText(
      'after',
      `
Examples:
  $ netops load run --url https://staging.example.com/ --users 20 --duration 30s --threshold "p95 < 300"
  $ netops load run smoke.json --threshold "error_rate < 1" --report report.html
  $ netops load run --replay-har session.har --speed 0 --loop --users 20 --duration 5m
  $ netops load run smoke.json --out prometheus=http://prometheus:9090/api/v1/write --tag env=staging

Flags override the file's fields; the body is checked with the API's own schema before it starts.
Thresholds read k6's words too: "p(95)<300", "http_req_failed: rate<0.01".
A run whose every attempt failed (refused, TLS, DNS, only errors answered) exits 98, thresholds or not.
Ctrl-C stops the test on the service and prints its partial results (exit 1).`,
    )
    .action(async (file: string | undefined, o: RunFlags & { report?: string; json?: boolean }) => {
      const body = startBodyOf(file, o);
      const c = api();
      // What only the service judges (its SSRF guard, the plan's bounds) is told as the flag that gave it.
      const started = await asFlags(runFlagFields(o), () =>
        c.call<{ test_id: string; config: { target_url: string } }>('POST', pathOf(ops.start), { json: body }),
      );
      note(`Load test ${out.bold(started.test_id)} started against ${started.config.target_url}`);
      const final = await followTest(c, started.test_id);
      const results = await c.call<ResultsAnswer>('GET', pathOf(ops.results, { test_id: started.test_id }));
      if (o.json) printJson(results);
      else print(`\n${summary(results)}`);
      if (o.report && results.results) await saveReport(c, started.test_id, o.report);
      if (final.stoppedHere)
        throw new Error(`load test ${started.test_id} stopped by Ctrl-C: the results above are partial`);
      outcome(results);
    });

  load
    .command('status')
    .description('Status and live figures of a load test')
    .addHelpText('after', examples('netops load status LOltl9dLLufIUaGU'))
    .argument('<test-id>')
    .option('--json', 'print the API answer')
    .action(async (id: string, o: { json?: boolean }) => {
      const s = await api().call<Status>('GET', pathOf(ops.status, { test_id: id }));
      if (o.json) return printJson(s);
      const m = s.metrics;
      print(
        fields([
          ['Test', s.test_id],
          ['Status', `${s.status} (${s.progress}%)`],
          ['Started', s.started_at],
          ['Ends', s.estimated_completion],
          [
            'Requests',
            `${plural(m.total_requests, 'request')} (${m.throughput}/s), ${m.error_rate}% failed` +
              (m.connection_errors ? `, ${plural(m.connection_errors, 'connection error')}` : ''),
          ],
          [
            'Latency',
            `avg ${m.avg_response_time} ms${m.p95_response_time !== undefined ? `, p95 ${m.p95_response_time} ms` : ''}`,
          ],
          ['Thresholds', s.thresholds?.map((t) => `${t.pass ? '✓' : '✗'} ${t.threshold} (${t.observed})`).join(', ')],
          ['Verdict', s.verdict && `${s.verdict}${s.verdict_detail ? `: ${s.verdict_detail}` : ''}`],
          ['Failure', s.failure_reason],
        ]),
      );
    });

  load
    .command('stop')
    .description('Stop a running load test (its results so far are kept)')
    .addHelpText('after', examples('netops load stop LOltl9dLLufIUaGU'))
    .argument('<test-id>')
    .option('--json', 'print the API answer')
    .action(async (id: string, o: { json?: boolean }) => {
      const a = await api().call<{ message: string; partial_results: Record<string, number> }>(
        'POST',
        pathOf(ops.stop, { test_id: id }),
      );
      if (o.json) return printJson(a);
      print(`${a.message}: ${plural(a.partial_results.total_requests ?? 0, 'request')} so far`);
    });

  load
    .command('results')
    .description('The results of an ended load test, as the end-of-test summary')
    .addHelpText(
      'after',
      examples(
        'netops load results LOltl9dLLufIUaGU',
        'netops load results LOltl9dLLufIUaGU --json | jq .results.p95_response_time',
      ),
    )
    .argument('<test-id>')
    .option('--json', 'print the API answer')
    .action(async (id: string, o: { json?: boolean }) => {
      const a = await api().call<ResultsAnswer>('GET', pathOf(ops.results, { test_id: id }));
      if (o.json) return printJson(a);
      print(summary(a));
    });

  load
    .command('report')
    .description('The HTML report of an ended load test (one file, no network needed to open it)')
    .addHelpText('after', examples('netops load report LOltl9dLLufIUaGU -o report.html'))
    .argument('<test-id>')
    .option('-o, --output <file>', 'write it here (default: <test-id>.html)')
    .action(async (id: string, o: { output?: string }) => saveReport(api(), id, o.output ?? `${id}.html`));

  load
    .command('list')
    .description('Your load tests, newest first')
    .addHelpText('after', examples('netops load list --limit 5'))
    .option('--limit <n>', '1 to 100', positiveInt('--limit'))
    .option('--json', 'print the API answer')
    .action(async (o: { limit?: number; json?: boolean }) => {
      const a = await asFlags({ limit: '--limit' }, () =>
        api().call<{
          data: {
            tests: Array<{
              test_id: string;
              status: string;
              config: Record<string, unknown>;
              created_at: string;
              summary: Record<string, number | string | undefined> | null;
            }>;
          };
        }>('GET', pathOf(ops.list, {}, { limit: o.limit })),
      );
      if (o.json) return printJson(a);
      if (!a.data.tests.length) return print('No load tests yet: netops load run --help');
      print(
        table(
          ['Test', 'Status', 'Verdict', 'Target', 'Users', 'Created', 'Requests', 'Errors', 'p95'],
          a.data.tests.map((t) => [
            t.test_id,
            t.status,
            verdictCell(t.summary),
            String(t.config.target_url ?? ''),
            String(t.config.concurrent_users ?? ''),
            localTime(t.created_at),
            t.summary?.total_requests ?? '',
            t.summary ? `${t.summary.error_rate}%` : '',
            t.summary ? `${t.summary.p95_response_time} ms` : '',
          ]),
        ),
      );
    });

  load
    .command('verify-target')
    .description('Your token to prove you control a host (needed before large tests), and whether it is served now')
    .addHelpText('after', examples('netops load verify-target https://staging.example.com'))
    .argument('<url>', 'a URL on the host')
    .option('--json', 'print the API answer')
    .action(async (url: string, o: { json?: boolean }) => {
      const a = await api().call<{
        host: string;
        token: string;
        verified: boolean;
        methods: Array<{ type: string; how: string }>;
        required: boolean;
      }>('POST', pathOf(ops.verifyTarget), { json: { targetUrl: url } });
      if (o.json) return printJson(a);
      print(
        fields([
          ['Host', a.host],
          ['Token', out.bold(a.token)],
          ['Verified', a.verified ? out.green('yes') : 'not yet'],
          ['Required', a.required ? 'yes, for this test size' : 'only for large tests'],
        ]),
      );
      for (const m of a.methods)
        print(`\n${out.bold(m.type === 'http' ? 'Either serve it over HTTP:' : 'Or publish it in DNS:')}\n  ${m.how}`);
    });
}
