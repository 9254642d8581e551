// The end-of-test summary, laid out like k6's: each threshold with what it read and ✓/✗, then the
// requests, their latency, phases, status codes, errors and steps, then the verdict. A run that
// tested nothing (every attempt failed) says so on its first line.
import { plural } from '../../lib/load/plural.ts';
import { out, ms } from '../output.ts';

export interface Results {
  total_requests: number;
  successful_requests: number;
  failed_requests: number;
  total_bytes_sent: number;
  total_bytes_received: number;
  avg_response_time: number;
  min_response_time: number;
  max_response_time: number;
  p50_response_time: number;
  p90_response_time: number;
  p95_response_time: number;
  p99_response_time: number;
  throughput: number;
  error_rate: number;
  connection_errors?: number;
  duration_seconds?: number;
  dropped_requests?: number;
  status_codes?: Record<string, number>;
  errors?: Record<string, number>;
  protocols?: Record<string, number>;
  http2?: { connections: number; server_max_concurrent_streams: number | null };
  phases?: Record<string, Record<string, number>>;
  thresholds?: Array<{ threshold: string; observed: number; pass: boolean }>;
  verdict?: 'passed' | 'failed';
  verdict_reason?: 'target_unreachable' | 'thresholds';
  verdict_detail?: string;
  aborted_by?: string;
  steps?: Array<{ step: number; name: string; requests: number; error_rate: number; p95_response_time: number }>;
}

export interface ResultsAnswer {
  test_id: string;
  status: string;
  results: Results | null;
  failure_reason?: string;
}

/** Phases in the order a request goes through them. */
const PHASE_ORDER = ['dns', 'connect', 'tls', 'ttfb', 'transfer'];
const phaseOrder = (p: string) => (PHASE_ORDER.includes(p) ? PHASE_ORDER.indexOf(p) : PHASE_ORDER.length);
const bytes = (n: number) =>
  n >= 1e9
    ? `${(n / 1e9).toFixed(1)} GB`
    : n >= 1e6
      ? `${(n / 1e6).toFixed(1)} MB`
      : n >= 1e3
        ? `${(n / 1e3).toFixed(1)} kB`
        : `${n} B`;
const counts = (c: Record<string, number>) =>
  Object.entries(c)
    .sort(([, a], [, b]) => b - a)
    .map(([k, v]) => `${k}: ${v}`)
    .join(', ');

/** HTTP/2's connections, and the streams a server allowed on each when it set a limit. */
function http2Counts(h: NonNullable<Results['http2']>): string {
  const limit = h.server_max_concurrent_streams;
  const each = limit === null ? '' : `, server allows ${plural(limit, 'stream')} each`;
  return `${plural(h.connections, 'connection')}${each}`;
}

function line(label: string, value: string): string {
  return `  ${label} ${out.dim('.'.repeat(Math.max(2, 22 - label.length)))} ${value}`;
}

export function summary(a: ResultsAnswer): string {
  const r = a.results;
  const lines: string[] = [];
  if (!r) return `Load test ${a.test_id} ${a.status}${a.failure_reason ? `: ${a.failure_reason}` : ''} (no results)`;
  const unreachable = r.verdict_reason === 'target_unreachable';
  if (unreachable) {
    lines.push(out.red(out.bold(`  ✗ TARGET UNREACHABLE: ${r.verdict_detail ?? 'every attempt failed'}`)));
    lines.push(out.dim('    nothing was measured: check the URL, the port, the certificate (--insecure) and the name'));
    lines.push('');
  }
  if (r.thresholds?.length) {
    lines.push(out.bold('  THRESHOLDS'));
    for (const t of r.thresholds)
      lines.push(
        `    ${t.pass ? out.green('✓') : out.red('✗')} ${t.threshold} ` +
          `${out.dim(`(observed ${t.observed})`)}${r.aborted_by === t.threshold ? out.red(' aborted the test') : ''}`,
      );
    lines.push('');
  }
  lines.push(out.bold('  HTTP'));
  lines.push(
    line(
      'http_reqs',
      `${r.total_requests} ` +
        `${out.dim(`${r.throughput}/s`)}${r.dropped_requests ? out.yellow(`, ${r.dropped_requests} dropped`) : ''}`,
    ),
  );
  if (r.connection_errors)
    lines.push(
      line(
        'connection errors',
        out.red(`${plural(r.connection_errors, 'attempt')} not sent (refused, reset, TLS or DNS: see errors)`),
      ),
    );
  lines.push(
    line(
      'http_req_duration',
      `avg=${ms(r.avg_response_time)} min=${ms(r.min_response_time)} p50=${ms(r.p50_response_time)} ` +
        `p90=${ms(r.p90_response_time)} p95=${ms(r.p95_response_time)} p99=${ms(r.p99_response_time)} ` +
        `max=${ms(r.max_response_time)}`,
    ),
  );
  const attempts = r.total_requests + (r.connection_errors ?? 0);
  const failedCount = r.failed_requests + (r.connection_errors ?? 0);
  const failed = `${r.error_rate}% ${out.dim(`(${failedCount} of ${plural(attempts, 'attempt')})`)}`;
  lines.push(line('http_req_failed', failedCount ? out.red(failed) : failed));
  lines.push(line('data', `${bytes(r.total_bytes_sent)} sent, ${bytes(r.total_bytes_received)} received`));
  if (r.protocols && Object.keys(r.protocols).length)
    lines.push(line('protocols', `${counts(r.protocols)}${r.http2 ? out.dim(` (${http2Counts(r.http2)})`) : ''}`));
  // (No request the target got: no phases to show.)
  const phases = Object.entries(r.total_requests ? (r.phases ?? {}) : {}).sort(
    ([a], [b]) => phaseOrder(a) - phaseOrder(b),
  );
  for (const [phase, f] of phases)
    lines.push(line(`phase ${phase}`, `avg=${ms(f.avg ?? 0)} p95=${ms(f.p95 ?? 0)} max=${ms(f.max ?? 0)}`));
  if (r.status_codes && Object.keys(r.status_codes).length) lines.push(line('status codes', counts(r.status_codes)));
  if (r.errors && Object.keys(r.errors).length) lines.push(line('errors', out.red(counts(r.errors))));
  for (const s of r.steps ?? [])
    lines.push(
      line(
        `step ${s.step} ${s.name}`,
        `${plural(s.requests, 'req')}, ${s.error_rate}% failed, p95=${ms(s.p95_response_time)}`,
      ),
    );
  lines.push('');
  const verdict = unreachable
    ? out.red(out.bold(`FAILED: target unreachable: ${r.verdict_detail ?? 'every attempt failed'}`))
    : r.verdict === 'failed'
      ? out.red(out.bold('FAILED: a threshold did not hold'))
      : r.verdict === 'passed'
        ? out.green(out.bold('PASSED: every threshold held'))
        : 'no thresholds';
  const after = r.duration_seconds !== undefined ? ` after ${r.duration_seconds} s` : '';
  lines.push(
    `  ${out.bold(a.status.toUpperCase())}${after}; ${verdict}${a.failure_reason ? `: ${a.failure_reason}` : ''}`,
  );
  return lines.join('\n');
}
