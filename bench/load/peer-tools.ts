// The peers of bench/load/peers.ts, each run once as a user runs it: wrk, autocannon, hey and h2load,
// with the requests it made and the CPU it used where the bench compares them.
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import type { Row } from './common.ts';

const run = promisify(execFile);
const bin = (name: string) => path.resolve('node_modules/.bin', name);

/** wrk's latency figure ("50.00%   1.23ms") in ms. */
function wrkMs(out: string, label: string): number | null {
  const m = new RegExp(`${label}\\s+([\\d.]+)(us|ms|s)`).exec(out);
  if (!m) return null;
  const v = Number(m[1]);
  return m[2] === 'us' ? v / 1000 : m[2] === 's' ? v * 1000 : v;
}

/**
 * A peer's command, its output and the CPU seconds it used (user and system, from its shell's `times`,
 * in the C locale so that its decimal point is a point). A missing command fails as ENOENT, as
 * execFile's own would.
 */
async function timed(command: string, args: string[]): Promise<{ stdout: string; cpu: number }> {
  const script = '"$@"; code=$?; times >&2; exit $code';
  const env = { ...process.env, LC_ALL: 'C' };
  const { stdout, stderr } = await run('bash', ['-c', script, 'bash', command, ...args], {
    maxBuffer: 1 << 24,
    env,
  }).catch((err) => {
    if (err.code === 127) err.code = 'ENOENT'; // bash's "command not found"
    throw err;
  });
  // `times`: the shell's user and system time, then its children's ("0m1.234s 0m0.567s").
  const spent = [...(stderr.trim().split('\n').at(-1) ?? '').matchAll(/(\d+)m([\d.]+)s/g)];
  if (spent.length !== 2) throw new Error(`${command}: no CPU times in its shell's output: ${stderr.slice(-200)}`);
  return { stdout, cpu: spent.reduce((sum, m) => sum + Number(m[1]) * 60 + Number(m[2]), 0) };
}

/** The number `pattern` (its first group) finds in a peer's output; a peer that did not print it fails the bench. */
function figure(pattern: RegExp, output: string): number {
  const found = pattern.exec(output)?.[1];
  if (found === undefined) throw new Error(`no ${pattern} in:\n${output}`);
  return Number(found);
}

export async function wrk(url: string, c: number, s: number): Promise<Row> {
  const { stdout, cpu } = await timed('wrk', ['-t1', `-c${c}`, `-d${s}s`, '--latency', url]);
  return {
    tool: 'wrk (1 thread)',
    cpu,
    requests: figure(/(\d+) requests in/, stdout),
    rps: figure(/Requests\/sec:\s+([\d.]+)/, stdout),
    p50: wrkMs(stdout, '50%'),
    p99: wrkMs(stdout, '99%'),
  };
}

export async function autocannon(url: string, c: number, s: number): Promise<Row> {
  const { stdout } = await run(bin('autocannon'), ['-c', String(c), '-d', String(s), '-j', url], {
    maxBuffer: 1 << 24,
  });
  const r = JSON.parse(stdout);
  return { tool: 'autocannon', rps: r.requests.total / (r.duration || s), p50: r.latency.p50, p99: r.latency.p99 };
}

export async function hey(url: string, c: number, s: number): Promise<Row> {
  const { stdout } = await run('hey', ['-c', String(c), '-z', `${s}s`, url], { maxBuffer: 1 << 24 });
  const sec = (label: string) => {
    const m = new RegExp(`${label}% in ([\\d.]+) secs`).exec(stdout);
    return m ? Number(m[1]) * 1000 : null;
  };
  return { tool: 'hey', rps: figure(/Requests\/sec:\s+([\d.]+)/, stdout), p50: sec('50'), p99: sec('99') };
}

/** h2load with one thread: `c` connections, `m` streams each, for `s` seconds. */
export async function h2load(url: string, c: number, m: number, s: number): Promise<Row> {
  const { stdout, cpu } = await timed('h2load', ['-t1', `-c${c}`, `-m${m}`, '-D', String(s), url]);
  const failed = Number(/requests: .*?(\d+) failed/.exec(stdout)?.[1] ?? 0);
  if (failed) throw new Error(`h2load: ${failed} requests failed\n${stdout}`);
  // "time for request:  min  max  mean  sd  +/- sd": no percentiles.
  return {
    tool: 'h2load (1 thread)',
    cpu,
    requests: figure(/requests: (\d+) total/, stdout),
    rps: figure(/finished in [\d.]+s, ([\d.]+) req\/s/, stdout),
    p50: null,
    p99: null,
  };
}

/** A peer's row, or none (said so, with how to install it) when the machine lacks its command. */
export async function installed(command: string, install: string, measure: () => Promise<Row>): Promise<Row[]> {
  try {
    return [await measure()];
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    console.log(`  (${command} is not installed: its row is left out; ${install})`);
    return [];
  }
}
