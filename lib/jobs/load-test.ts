// A load test (workflows/load-test.ts): pending until a load worker takes it, running while its shards
// (activities on the load pool) send the load, then completed, stopped or failed.
import { defineQuery, defineSignal } from '@temporalio/workflow';
import type { LoadOutputConfig, RemoteWriteTarget } from './load-outputs.ts';
import type { FinalResults } from './load-results.ts';
import { defineJobKind } from './job-kind.ts';

export type { FinalResults, LiveMetrics, ThresholdOutcome } from './load-results.ts';

export const LOAD_TEST_KIND = 'load-test';
/** The longest a test may wait for a load worker (LOAD_WORKER_WAIT_SECONDS is at most this). */
export const MAX_WORKER_WAIT_SECONDS = 3600;

/** The one definition: db/schema.ts stores it (the `load_tests.status` column) and re-exports it. */
export type LoadTestStatus = 'pending' | 'running' | 'completed' | 'stopped' | 'failed';

/** A step of a scenario (domain/load/scenario.ts); `path` and the values may hold `{{name}}` placeholders. */
export interface ScenarioStep {
  name?: string;
  method: string;
  /** Path and query on the target's origin. */
  path: string;
  /** Every header of the request (the test's own and the credentials, then the step's). */
  headers: Record<string, string>;
  body?: string;
  /** Placeholder name -> JSON pointer into this step's answer. */
  capture: Record<string, string>;
}

/** What every virtual user of a test sends. */
export interface ShardTarget {
  url: string;
  method: string;
  headers: Record<string, string>;
  body?: string;
  /** https without checking the certificate (a staging server's self-signed one, say). */
  insecureTls?: boolean;
  /**
   * A verified target's proven addresses: the shards connect to these only
   * (api/services/load-tests/target-verification.ts).
   */
  addresses?: string[];
  /**
   * A small test run without proof: the addresses its host had at its start, the only ones its shards
   * connect to (another answer of the name later reaches no other server).
   */
  connectTo?: string[];
  /** A scenario: each user runs these in order instead of the one request (closed model only). */
  steps?: ScenarioStep[];
  /** Each user's requests, or passes through `steps`, before it is done (closed model only; absent: until the end). */
  iterations?: number;
  /** HTTP/2 (absent: HTTP/1.1): over https by ALPN, over http with prior knowledge (h2c). */
  httpVersion?: '2';
  /** HTTP/2: how many users share a connection, each its own stream (absent: 1). */
  streamsPerConnection?: number;
  /**
   * Replay as load (domain/load/replay.ts): recorded requests instead of the one request, their
   * sequence stored with the test (too large for history) and read by each shard. `headers`: the test's
   * own headers and credentials, put on every recorded request as it is sent: here, where the payload
   * codec encrypts them, not in the stored sequence (absent: a test started before, whose sequence has them).
   */
  replay?: { speed: number; loop: boolean; headers?: Record<string, string> };
}

/** One recorded request of a replay: ms since the recording's start, and what it sent. */
export interface ReplayRequest {
  at: number;
  method: string;
  /** Path and query on the target's origin (the target's own path in front). */
  path: string;
  headers: Record<string, string>;
  /** The body's bytes, base64. */
  body?: string;
}

/** A replay as a shard runs it. */
export interface ReplayPlan {
  speed: number;
  loop: boolean;
  requests: ReplayRequest[];
  /** Set on every request, over its own (the test's headers and credentials). */
  headers?: Record<string, string>;
}

/** A pass/fail threshold as parsed from the start body (domain/load/metrics/thresholds.ts). */
export interface LoadThreshold {
  threshold: string;
  metric: string;
  op: string;
  value: number;
  abortOnFail: boolean;
  delayAbortEval: number;
}

export interface LoadTestInput {
  testId: string;
  /** Method, URL, headers (with the credentials) and body: encrypted in history by the payload codec. */
  target: ShardTarget;
  concurrentUsers: number;
  testDurationSeconds: number;
  rampUpSeconds: number;
  requestsPerSecond: number;
  /** Evaluated on the merged results every second and at the end; absent when the test has none. */
  thresholds?: LoadThreshold[];
  /**
   * Stages instead of the ramp (domain/load/profile.ts): targets are users when
   * requestsPerSecond is 0, else arrivals per second (requestsPerSecond is then their peak).
   */
  stages?: Array<{ durationMs: number; target: number }>;
  /** How long the test waits for a load worker before it fails (LOAD_WORKER_WAIT_SECONDS; 60 when absent). */
  waitForWorkerSeconds?: number;
  /** Its remote-write outputs (their headers encrypted in history by the payload codec), and their series' labels. */
  outputs?: RemoteWriteTarget[];
  tags?: Record<string, string>;
}

/**
 * A test's configuration as it is stored and shown (`config` in every answer): what was asked, never
 * the credentials or header values (only their names and the bodies' sizes).
 */
export interface LoadTestConfig {
  target_url: string;
  concurrent_users: number;
  test_duration: number;
  ramp_up_time: number;
  requests_per_second: number;
  http_method: string;
  auth_type: string;
  header_names: string[];
  body_bytes: number;
  insecure_tls: boolean;
  /** "1.1" or "2". */
  http_version: '1.1' | '2';
  /** Each user's requests (or passes through the steps), when the test counts them. */
  iterations?: number;
  /** HTTP/2: users per connection. */
  http2?: { streams_per_connection: number };
  stages?: Array<{ duration: number; target: number }>;
  stage_target?: 'users' | 'rate';
  steps?: Array<{
    name: string | null;
    method: string;
    path: string | null;
    header_names: string[];
    body_bytes: number;
    capture: Record<string, string>;
  }>;
  /**
   * A replay: where its requests came from, how many (and how many distinct method + path), their
   * recorded span, its speed and loop.
   */
  replay?: {
    source: 'webhook' | 'har';
    webhook_id?: string;
    requests: number;
    distinct_requests: number;
    span_ms: number;
    speed: number;
    loop: boolean;
  };
  /** Each threshold as given: its expression, or k6's object form when it aborts the test. */
  thresholds: Array<string | { threshold: string; abortOnFail: true; delayAbortEval: number }>;
  outputs?: LoadOutputConfig[];
  tags?: Record<string, string>;
}

export interface LoadTestState {
  status: LoadTestStatus;
  /** Epoch ms of the load's start and planned end, once running. */
  startAt: number | null;
  endAt: number | null;
  completedAt: number | null;
  stopRequested: boolean;
  failureReason: string | null;
  results: FinalResults | null;
}

export type LoadTestWorkflow = (input: LoadTestInput) => Promise<LoadTestState>;
export const LOAD_TEST_JOB = defineJobKind<LoadTestWorkflow>()({
  kind: LOAD_TEST_KIND,
  workflow: 'loadTest',
  pools: ['load'],
  task: { restStarted: true },
});

export const getLoadTestState = defineQuery<LoadTestState>('getLoadTestState');
export const stopLoadTest = defineSignal('stopLoadTest');

/**
 * What splitting a share of a test's users keeps together: its users, their first index, its arrival
 * rate and profile.
 */
export interface UserShare {
  users: number;
  firstUser: number;
  /** Arrivals per second (0: the closed model). */
  rate: number;
  /** Targets: users of the whole test in the closed model (kept), arrivals in the open one (shared in proportion). */
  stages?: Array<{ durationMs: number; target: number }>;
}

/**
 * `share` cut into `parts` (at most one per user): users split evenly and numbered on from its first,
 * the arrival rate and an open model's stage targets shared in proportion. How a test becomes shards
 * (workflows/load-test-plan.ts), and a shard the parts its threads run (domain/load/threads.ts).
 * With `unit` (HTTP/2's users per connection), users are cut only between whole runs of `unit`, so
 * that no connection is split across parts (50 users of 10 per connection on 2 parts: 30 and 20).
 */
export function splitUsers<T extends UserShare>(share: T, parts: number, unit = 1): T[] {
  const groups = Math.ceil(share.users / unit);
  const n = Math.max(1, Math.min(parts, groups));
  let firstUser = share.firstUser;
  let left = share.users;
  return Array.from({ length: n }, (_, i) => {
    const users = Math.min(left, (Math.floor(groups / n) + (i < groups % n ? 1 : 0)) * unit);
    left -= users;
    const part: T = {
      ...share,
      users,
      firstUser,
      rate: (share.rate * users) / share.users,
      ...(share.stages && share.rate > 0
        ? { stages: share.stages.map((st) => ({ ...st, target: (st.target * users) / share.users })) }
        : {}),
    };
    firstUser += users;
    return part;
  });
}

/**
 * The users that are never split between shards or threads in a test to `target`: those sharing a
 * connection (HTTP/2's streams per connection, else 1), or all of a timed replay's (one scheduler
 * sends its requests, so their order holds).
 */
export const usersKeptTogether = (target: ShardTarget): number =>
  target.replay && target.replay.speed > 0
    ? Number.MAX_SAFE_INTEGER
    : target.httpVersion === '2'
      ? (target.streamsPerConnection ?? 1)
      : 1;

/** A shard attempt's stored snapshot, as the database gives it back (db/load/load-tests.ts). */
export interface ShardSnapshotRow<S = Record<string, unknown>> {
  shard: number;
  attempt: number;
  snapshot: S;
  final: boolean;
  /** What the attempt had sent at its last count (counted a few times a second), if it counted. */
  sent?: { sent: number; countedAt: number } | null;
}
