// netops load status|stop|results|report|list|verify-target when they run (their flags:
// commands/load.ts); `load run` is in load-run.ts.
import { client, pathOf } from '../client.ts';
import { currentService } from '../config.ts';
import { loadTestOperations as ops } from '../contract.ts';
import { asFlags } from '../flag-errors.ts';
import type { LiveStatus } from '../load/load-progress.ts';
import { plural } from '../../lib/load/plural.ts';
import { summary, type ResultsAnswer } from '../load/load-summary.ts';
import { saveReport } from '../load/load-report.ts';
import { fields, localTime, out, print, printJson } from '../output.ts';
import { table } from '../table.ts';

const api = () => client(currentService());

interface Status extends Omit<LiveStatus, 'config'> {
  test_id: string;
  failure_reason?: string;
  verdict?: string;
  verdict_reason?: string;
  verdict_detail?: string;
}

/** A test's verdict as `load list` shows it: passed, failed, failed (unreachable), or nothing without one. */
function verdictCell(summary: Record<string, unknown> | null): string {
  if (!summary?.verdict) return '';
  if (summary.verdict === 'passed') return out.green('passed');
  return out.red(summary.verdict_reason === 'target_unreachable' ? 'failed (unreachable)' : 'failed');
}

export async function status(id: string, o: { json?: boolean }): Promise<void> {
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
}

export async function stop(id: string, o: { json?: boolean }): Promise<void> {
  const a = await api().call<{ message: string; partial_results: Record<string, number> }>(
    'POST',
    pathOf(ops.stop, { test_id: id }),
  );
  if (o.json) return printJson(a);
  print(`${a.message}: ${plural(a.partial_results.total_requests ?? 0, 'request')} so far`);
}

export async function results(id: string, o: { json?: boolean }): Promise<void> {
  const a = await api().call<ResultsAnswer>('GET', pathOf(ops.results, { test_id: id }));
  if (o.json) return printJson(a);
  print(summary(a));
}

export async function report(id: string, o: { output?: string }): Promise<void> {
  return saveReport(api(), id, o.output ?? `${id}.html`);
}

export async function list(o: { limit?: number; json?: boolean }): Promise<void> {
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
}

export async function verifyTarget(url: string, o: { json?: boolean }): Promise<void> {
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
}
