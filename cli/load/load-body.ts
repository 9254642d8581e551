// The start body of `netops load run`: a file (JSON, or YAML by its extension) with flags over it,
// checked here against the API's own schema (contract/load/load-tests.ts), so a typo is refused with
// the API's words before anything starts.
import fs from 'node:fs';
import { parse as parseYaml } from 'yaml';
import { startBody } from '../../contract/load/load-test-start.ts';
import { checked } from '../check-input.ts';
import { UsageError } from '../errors.ts';
import { headerPairs } from '../commands/parse.ts';
import type { FieldFlags } from '../flag-errors.ts';

export interface RunFlags {
  url?: string;
  method?: string;
  users?: number;
  duration?: number;
  rampUp?: number;
  rate?: number;
  header?: string[];
  body?: string;
  httpVersion?: string;
  streamsPerConnection?: number;
  threshold?: string[];
  stage?: Array<{ duration: number; target: number }>;
  /** replay: a HAR file's entries, or a webhook's captures; at a speed, in a loop. */
  replayHar?: string;
  replayWebhook?: string;
  speed?: number;
  loop?: boolean;
  /** tags: NAME=VALUE each. */
  tag?: string[];
  /** outputs: prometheus=URL, ndjson or csv each. */
  out?: string[];
  /** insecureTls: accept the target's invalid certificate. */
  insecure?: boolean;
  /** iterations: each user's requests (or passes through the steps); `once` is 1. */
  iterations?: number;
  once?: boolean;
}

/** How long a test that counts iterations may last when neither the file nor --duration says (a smoke test's bound). */
export const ITERATIONS_DURATION_SECONDS = 60;

/** `--tag NAME=VALUE` flags as the start body's tags. */
function tagPairs(lines: string[]): Record<string, string> {
  const tags: Record<string, string> = {};
  for (const line of lines) {
    const at = line.indexOf('=');
    if (at <= 0) throw new UsageError(`--tag: "${line}" is not NAME=VALUE`);
    tags[line.slice(0, at).trim()] = line.slice(at + 1);
  }
  return tags;
}

/** `--out` flags as the start body's outputs: prometheus=URL (remote write), ndjson, csv. */
function outputsOf(lines: string[]): Array<Record<string, unknown>> {
  return lines.map((line) => {
    if (line === 'ndjson' || line === 'csv') return { type: line };
    const m = /^prometheus=(.+)$/.exec(line);
    if (!m) throw new UsageError(`--out: "${line}" is not prometheus=URL, ndjson or csv`);
    return { type: 'prometheus_remote_write', url: m[1] };
  });
}

function readFile(file: string, what = 'the start body'): Record<string, unknown> {
  let text: string;
  try {
    text = file === '-' ? fs.readFileSync(0, 'utf8') : fs.readFileSync(file, 'utf8');
  } catch (e) {
    throw new UsageError(
      `${file}: ${(e as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (e as Error).message}`,
    );
  }
  let value: unknown;
  try {
    value = /\.ya?ml$/i.test(file) ? parseYaml(text) : JSON.parse(text);
  } catch (e) {
    throw new UsageError(`${file} does not parse: ${(e as Error).message.split('\n')[0]}`);
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    throw new UsageError(`${file} must hold one object: ${what}`);
  return value as Record<string, unknown>;
}

/** The body to send (as the user wrote it, flags applied), once the API's schema accepts it. */
export function startBodyOf(file: string | undefined, f: RunFlags): Record<string, unknown> {
  const body: Record<string, unknown> = file ? readFile(file) : {};
  const set = (key: string, value: unknown) => {
    if (value !== undefined) body[key] = value;
  };
  // A replay's flags add to the file's replay (each request of a replay has its own method).
  if (f.replayHar !== undefined || f.replayWebhook !== undefined || f.speed !== undefined || f.loop !== undefined) {
    const replay: Record<string, unknown> = { ...(body.replay as object) };
    if (f.replayHar !== undefined) replay.har = readFile(f.replayHar, 'a HAR log {"log": {"entries": [...]}}');
    if (f.replayWebhook !== undefined) replay.webhook_id = f.replayWebhook;
    if (f.speed !== undefined) replay.speed = f.speed;
    if (f.loop !== undefined) replay.loop = f.loop;
    body.replay = replay;
  }
  set('targetUrl', f.url);
  set('httpMethod', f.method ?? (body.httpMethod === undefined && body.replay === undefined ? 'GET' : undefined));
  set('concurrentUsers', f.users);
  set('testDuration', f.duration);
  set('rampUpTime', f.rampUp);
  set('requestsPerSecond', f.rate);
  if (f.once && f.iterations !== undefined) throw new UsageError('--once is --iterations 1: give one of them');
  set('iterations', f.once ? 1 : f.iterations);
  // A count of requests ends the test: its duration is only a bound, which need not be asked for.
  if (body.iterations !== undefined && body.testDuration === undefined && body.stages === undefined)
    body.testDuration = ITERATIONS_DURATION_SECONDS;
  set('body', f.body);
  set('httpVersion', f.httpVersion);
  if (f.insecure) body.insecureTls = true;
  if (f.streamsPerConnection !== undefined)
    body.http2 = { ...(body.http2 as object), streamsPerConnection: f.streamsPerConnection };
  if (f.header?.length) body.headers = { ...(body.headers as object), ...headerPairs(f.header, '--header') };
  if (f.tag?.length) body.tags = { ...(body.tags as object), ...tagPairs(f.tag) };
  // Lists given as flags replace the file's.
  set('thresholds', f.threshold);
  set('stages', f.stage);
  if (f.out?.length) body.outputs = outputsOf(f.out);
  checked(startBody, body, 'body', runFlagFields(f));
  return body;
}

/** Which flag gave which field of the start body (those the file gave are named as its fields). */
export function runFlagFields(f: RunFlags): FieldFlags {
  const given = (v: unknown, flag: string) => (v === undefined || (Array.isArray(v) && !v.length) ? undefined : flag);
  return {
    targetUrl: given(f.url, '--url'),
    httpMethod: given(f.method, '--method'),
    concurrentUsers: given(f.users, '--users'),
    testDuration: given(f.duration, '--duration'),
    rampUpTime: given(f.rampUp, '--ramp-up'),
    requestsPerSecond: given(f.rate, '--rate'),
    iterations: given(f.iterations, '--iterations') ?? given(f.once || undefined, '--once'),
    body: given(f.body, '--body'),
    httpVersion: given(f.httpVersion, '--http-version'),
    'http2.streamsPerConnection': given(f.streamsPerConnection, '--streams-per-connection'),
    headers: given(f.header, '--header'),
    tags: given(f.tag, '--tag'),
    thresholds: given(f.threshold, '--threshold'),
    stages: given(f.stage, '--stage'),
    outputs: given(f.out, '--out'),
    insecureTls: given(f.insecure, '--insecure'),
    'replay.har': given(f.replayHar, '--replay-har'),
    'replay.webhook_id': given(f.replayWebhook, '--replay-webhook'),
    'replay.speed': given(f.speed, '--speed'),
    'replay.loop': given(f.loop, '--loop'),
  };
}
