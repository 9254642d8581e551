// netops load run|status|stop|results|report|list|verify-target. `run` is the CI gate: it starts a
// test, shows its progress, prints the summary and ends 0 (passed), 99 (a threshold failed), 98 (the
// target unreachable: every attempt failed, nothing measured) or 1. Each runs from actions/load.ts (run:
// actions/load-run.ts), loaded then.
import type { Command } from 'commander';
import type { RunFlags } from '../load/load-body.ts';
import { examples, number, positiveInt, seconds, stage, wholeNumber } from './parse.ts';

const repeat = (v: string, all: string[] = []) => [...all, v];
const actions = () => import('../actions/load.ts');

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
    .option(
      '--iterations <n>',
      "iterations: each user's requests (or passes through the steps); the test ends when all are done",
      positiveInt('--iterations'),
    )
    .option('--once', 'iterations 1: each user sends once, a smoke test (--duration then defaults to 60 s)')
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
  $ netops load run --url https://staging.example.com/health --users 5 --once
  $ netops load run --replay-har session.har --speed 0 --loop --users 20 --duration 5m
  $ netops load run smoke.json --out prometheus=http://prometheus:9090/api/v1/write --tag env=staging

Flags override the file's fields; the body is checked with the API's own schema before it starts.
Thresholds read k6's words too: "p(95)<300", "http_req_failed: rate<0.01".
A run whose every attempt failed (refused, TLS, DNS, only errors answered) exits 98, thresholds or not.
Ctrl-C stops the test on the service and prints its partial results (exit 1).`,
    )
    .action(async (file: string | undefined, o: RunFlags & { report?: string; json?: boolean }) =>
      (await import('../actions/load-run.ts')).run(file, o),
    );

  load
    .command('status')
    .description('Status and live figures of a load test')
    .addHelpText('after', examples('netops load status LOltl9dLLufIUaGU'))
    .argument('<test-id>')
    .option('--json', 'print the API answer')
    .action(async (id: string, o: { json?: boolean }) => (await actions()).status(id, o));

  load
    .command('stop')
    .description('Stop a running load test (its results so far are kept)')
    .addHelpText('after', examples('netops load stop LOltl9dLLufIUaGU'))
    .argument('<test-id>')
    .option('--json', 'print the API answer')
    .action(async (id: string, o: { json?: boolean }) => (await actions()).stop(id, o));

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
    .action(async (id: string, o: { json?: boolean }) => (await actions()).results(id, o));

  load
    .command('report')
    .description('The HTML report of an ended load test (one file, no network needed to open it)')
    .addHelpText('after', examples('netops load report LOltl9dLLufIUaGU -o report.html'))
    .argument('<test-id>')
    .option('-o, --output <file>', 'write it here (default: <test-id>.html)')
    .action(async (id: string, o: { output?: string }) => (await actions()).report(id, o));

  load
    .command('list')
    .description('Your load tests, newest first')
    .addHelpText('after', examples('netops load list --limit 5'))
    .option('--limit <n>', '1 to 100', positiveInt('--limit'))
    .option('--json', 'print the API answer')
    .action(async (o: { limit?: number; json?: boolean }) => (await actions()).list(o));

  load
    .command('verify-target')
    .description('Your token to prove you control a host (needed before large tests), and whether it is served now')
    .addHelpText('after', examples('netops load verify-target https://staging.example.com'))
    .argument('<url>', 'a URL on the host')
    .option('--json', 'print the API answer')
    .action(async (url: string, o: { json?: boolean }) => (await actions()).verifyTarget(url, o));
}
