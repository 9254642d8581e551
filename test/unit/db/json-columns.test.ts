// The JSON columns read back as the shapes the code writes: a real shard's snapshot and a real test's
// results survive the database's JSON unchanged, and a value that lost its shape fails naming its column.
import type { ShardSnapshot } from '../../../lib/load/snapshot.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { captureDeliveryColumn, readJsonColumn, readNullableJsonColumn } from '../../../db/json-columns.ts';
import {
  loadTestConfigColumn,
  loadTestResultsColumn,
  shardPhasesColumn,
  shardSecondsColumn,
  shardSnapshotColumn,
} from '../../../db/load/load-test-columns.ts';
import { ShardGenerator } from '../../../domain/load/generator.ts';
import { finalResults } from '../../../domain/load/metrics/metrics.ts';
import { mergeSeconds } from '../../../domain/load/metrics/per-second.ts';
import { parseThreshold, type Threshold } from '../../../contract/load/thresholds.ts';
import { startLoadTarget, type LoadTarget } from '../../fixtures/load-target.ts';

/** What the database gives back: the JSON text parsed (jsonb does the same to holes: null). */
const stored = (v: unknown): unknown => JSON.parse(JSON.stringify(v));

describe('JSON columns', () => {
  let site: LoadTarget;
  let snapshot: ShardSnapshot;
  const seconds = () => mergeSeconds([snapshot.newSeconds ?? []]);
  beforeAll(async () => {
    site = await startLoadTarget();
    const startAt = Date.now();
    const path = new URL(site.url).pathname;
    // Two steps: the snapshot then has every optional part (sending, phases, steps).
    const generator = await ShardGenerator.create({
      target: {
        url: site.url,
        method: 'GET',
        headers: {},
        steps: [
          { name: 'first', method: 'GET', path, headers: {}, capture: {} },
          { name: 'second', method: 'GET', path, headers: {}, capture: {} },
        ],
      },
      users: 2,
      firstUser: 0,
      totalUsers: 2,
      startAt,
      endAt: startAt + 1200,
      rampUpMs: 0,
      rate: 0,
      requestTimeoutMs: 1000,
      allow: ['127.0.0.1/32'],
    });
    snapshot = { ...(await generator.run()), windowSeconds: 2 };
  });
  afterAll(() => site.close());

  it("reads a real shard's snapshot back as it was written", () => {
    expect(snapshot.total).toBeGreaterThan(0);
    expect(snapshot.steps?.length).toBe(2);
    expect(snapshot.phases).toBeDefined();
    expect(snapshot.sending).toMatchObject({ first: 0 });
    // Its seconds are stored apart (load_test_seconds), its phases too (load_test_shards.phases), its
    // totals in the snapshot.
    const { newSeconds, phases, ...totals } = snapshot;
    expect(newSeconds?.length).toBeGreaterThan(0);
    expect(readJsonColumn('load_test_shards.snapshot', shardSnapshotColumn, stored(totals))).toEqual(totals);
    expect(readJsonColumn('load_test_shards.phases', shardPhasesColumn, stored(phases))).toEqual(phases);
    expect(readJsonColumn('load_test_seconds.seconds', shardSecondsColumn, JSON.stringify(newSeconds))).toEqual(
      newSeconds,
    );
  });

  it("reads a real test's results back as they were written, thresholds and steps included", () => {
    const thresholds = ['p95 < 10000', 'error_rate < 1'].map((t) => parseThreshold(t) as Threshold);
    const results = finalResults([{ shard: 0, attempt: 1, snapshot, final: true }], seconds(), thresholds);
    expect(results.thresholds).toHaveLength(2);
    expect(results.steps).toHaveLength(2);
    expect(readJsonColumn('load_tests.results', loadTestResultsColumn, stored(results))).toEqual(results);
    // Text (json given as a string) is parsed first.
    expect(readJsonColumn('load_tests.results', loadTestResultsColumn, JSON.stringify(results))).toEqual(results);
  });

  it('reads rows written before a field existed, with the value the field has had since', () => {
    // A test's configuration as the first release of load tests stored it (no TLS option, no thresholds).
    const first = {
      target_url: 'https://shop.example/',
      concurrent_users: 10,
      test_duration: 30,
      ramp_up_time: 5,
      requests_per_second: 0,
      http_method: 'GET',
      auth_type: 'none',
      header_names: [],
      body_bytes: 0,
    };
    expect(readJsonColumn('load_tests.config', loadTestConfigColumn, first)).toEqual({
      ...first,
      insecure_tls: false,
      http_version: '1.1',
      thresholds: [],
    });
    // Its results then: no restarts counted, no per-second answers (only the requests sent each second).
    const {
      shard_restarts: _r,
      seconds_without_traffic: _s,
      error_rate_per_second: _e,
      avg_response_time_per_second: _a,
      max_response_time_per_second: _m,
      restarts: _list,
      steps: _steps,
      phases: _phases,
      thresholds: _thresholds,
      verdict: _verdict,
      ...firstResults
    } = finalResults([{ shard: 0, attempt: 1, snapshot, final: true }], seconds());
    expect(readJsonColumn('load_tests.results', loadTestResultsColumn, stored(firstResults))).toEqual({
      ...firstResults,
      shard_restarts: 0,
      seconds_without_traffic: 0,
      error_rate_per_second: [],
      avg_response_time_per_second: [],
      max_response_time_per_second: [],
    });
  });

  it('fails naming the column when a value lost its shape', () => {
    const { histogram: _gone, ...broken } = snapshot;
    expect(() => readJsonColumn('load_test_shards.snapshot', shardSnapshotColumn, stored(broken))).toThrow(
      /load_test_shards\.snapshot does not hold its shape: .*histogram/s,
    );
  });

  it('reads a delivery not yet tried (no next attempt stored) with next_attempt_at null, and null as null', () => {
    const fresh = { status: 'pending', attempts: 0, response_status: null, duration_ms: null, history: [] };
    expect(readNullableJsonColumn('captured_requests.delivery', captureDeliveryColumn, fresh)).toEqual({
      ...fresh,
      next_attempt_at: null,
    });
    expect(readNullableJsonColumn('captured_requests.delivery', captureDeliveryColumn, null)).toBeNull();
  });
});
