// Scenarios: instead of one request, each user runs a short sequence of steps in order, again and
// again, on its one keep-alive connection to the target's origin. A step may capture values from its
// JSON answer by JSON pointer (RFC 6901) into `{{name}}` placeholders of later steps (a login's token
// into the next request's header, a created order's id into the next path). Counts and latencies are
// kept per step (HDR histograms, merged exactly across shards like the totals).
import type { FinalResults, ScenarioStep } from '../../lib/jobs/load-test.ts';
import type { StepSnapshot } from '../../lib/load/snapshot.ts';
import { addEncodedHistogram, encodeHistogram, newHistogram } from './metrics/histogram.ts';
import { addCounts } from './metrics/totals.ts';
import type { Job } from './http/connection.ts';
import type { RequestSpec } from './http/request.ts';
import { PLACEHOLDER, placeholdersOf } from '../../lib/load/placeholders.ts';

/** The value at a JSON pointer (RFC 6901: "" is the whole document, ~1 is "/", ~0 is "~"), or undefined. */
export function atPointer(doc: unknown, pointer: string): unknown {
  if (pointer === '') return doc;
  let at: unknown = doc;
  for (const raw of pointer.slice(1).split('/')) {
    const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (Array.isArray(at) && /^(0|[1-9]\d*)$/.test(key)) at = at[Number(key)];
    else if (at !== null && typeof at === 'object' && !Array.isArray(at) && Object.hasOwn(at, key))
      at = (at as Record<string, unknown>)[key];
    else return undefined;
  }
  return at;
}

/** A captured value as text: strings as they are, anything else as JSON. */
const asText = (v: unknown) => (typeof v === 'string' ? v : JSON.stringify(v));

export interface ScenarioUser {
  step: number;
  values: Record<string, string>;
}

/** The steps of a scenario, each built as its protocol sends it (`encode`: request.ts). */
export class Scenario<R> {
  readonly steps: readonly ScenarioStep[];
  private readonly url: URL;
  private readonly encode: (spec: RequestSpec, reused?: boolean) => R;
  /** The request of each step without placeholders, built once. */
  private readonly fixed: Array<R | null>;
  readonly stats: StepStats;

  constructor(url: URL, steps: readonly ScenarioStep[], encode: (spec: RequestSpec, reused?: boolean) => R) {
    this.url = url;
    this.steps = steps;
    this.encode = encode;
    this.fixed = steps.map((s) => (placeholdersOf(JSON.stringify(s)).length ? null : this.build(s, {}, true)));
    this.stats = new StepStats(steps.map((st) => st.name ?? `${st.method} ${st.path}`));
  }

  /** The request of the user's current step, its values in place (never a line break in a header). */
  request(user: ScenarioUser): R {
    return this.fixed[user.step] ?? this.build(this.steps[user.step]!, user.values, false);
  }

  /** A step's request with `values` in place: `reused` when built once for every send (request.ts). */
  private build(step: ScenarioStep, values: Record<string, string>, reused: boolean): R {
    const fill = (text: string, inHeader = false) =>
      text.replace(PLACEHOLDER, (_, name: string) =>
        inHeader ? (values[name] ?? '').replace(/[\r\n\0]/g, '') : (values[name] ?? ''),
      );
    const filled = new URL(fill(step.path), this.url);
    // A value may name another origin (`//other.example/x`, a link the target answered): the connection
    // is the target's, so the request keeps that value's path and query, on the target's origin (set
    // as a path: one that starts with // names no host there).
    const target = new URL(this.url);
    target.pathname = filled.pathname;
    target.search = filled.search;
    const headers = Object.fromEntries(Object.entries(step.headers).map(([k, v]) => [k, fill(v, true)]));
    return this.encode(
      {
        url: target,
        method: step.method,
        headers,
        body: step.body === undefined ? undefined : fill(step.body),
      },
      reused,
    );
  }

  /**
   * The user's current step as the generator sends it: after the answer its captures are taken and
   * the user moves on (a failed step, or a capture that found nothing, starts the scenario again).
   */
  job(user: ScenarioUser): Job<R> {
    const step = user.step;
    return {
      request: this.request(user),
      method: this.steps[step]!.method,
      keepBody: this.captures(user),
      answered: (latencyUs, status, error, body, reached) => {
        const failed = error !== null || status >= 400;
        let captured = true;
        if (failed) user.step = 0;
        else captured = this.advance(user, body);
        if (reached) this.stats.record(step, latencyUs, error ? 0 : status, failed || !captured, !captured);
      },
    };
  }

  /** Whether the current step captures from its answer (the connection then keeps the body). */
  captures(user: ScenarioUser): boolean {
    return Object.keys(this.steps[user.step]!.capture).length > 0;
  }

  /**
   * After the current step's answer: its captures taken from the body, and the user on to the next
   * step. False when a capture found nothing (the user then starts the scenario again).
   */
  advance(user: ScenarioUser, body: Buffer | null): boolean {
    const capture = Object.entries(this.steps[user.step]!.capture);
    let ok = true;
    if (capture.length) {
      let doc: unknown;
      try {
        doc = JSON.parse(body?.toString('utf8') ?? '');
      } catch {
        doc = undefined;
      }
      for (const [name, pointer] of capture) {
        const v = doc === undefined ? undefined : atPointer(doc, pointer);
        if (v === undefined) ok = false;
        else user.values[name] = asText(v);
      }
    }
    user.step = ok ? (user.step + 1) % this.steps.length : 0;
    return ok;
  }
}

/** An empty histogram's encoding, made once per thread (and the encoder's first, slowest call with it). */
let emptyEncoding: string | undefined;

export class StepStats {
  private readonly steps: Array<
    Omit<StepSnapshot, 'histogram'> & {
      h: ReturnType<typeof newHistogram>;
      /** Whether the histogram changed since `last` was encoded. */
      changed: boolean;
      /** Its last encoding (an empty histogram's before the first). */
      last: string;
    }
  >;

  constructor(names: string[]) {
    emptyEncoding ??= encodeHistogram(newHistogram());
    const empty = emptyEncoding;
    this.steps = names.map((name) => ({
      name,
      requests: 0,
      failed: 0,
      latencySumUs: 0,
      statusCodes: {},
      captureFailures: 0,
      h: newHistogram(),
      changed: false,
      last: empty,
    }));
  }

  record(step: number, latencyUs: number, status: number, failed: boolean, captureFailed = false): void {
    const s = this.steps[step]!;
    s.requests += 1;
    s.latencySumUs += latencyUs;
    s.h.recordValue(latencyUs);
    s.changed = true;
    if (failed) s.failed += 1;
    if (captureFailed) s.captureFailures += 1;
    if (status) s.statusCodes[status] = (s.statusCodes[status] ?? 0) + 1;
  }

  /**
   * Every step's totals. A histogram is encoded again only when it has changed, and only when
   * `fresh`: otherwise its last encoding stands in. A replay may count 51 names, all changing: their
   * encodings took 4-11 ms of the load thread at a report (measured), a pause in the replay's
   * schedule, so reports between those that carry the phases (generator.ts) leave them as they were.
   */
  snapshot(fresh = true): StepSnapshot[] {
    return this.steps.map((s) => {
      if (fresh && s.changed) {
        s.last = encodeHistogram(s.h);
        s.changed = false;
      }
      const { h: _h, changed: _c, last, statusCodes, ...rest } = s;
      return { ...rest, statusCodes: { ...statusCodes }, histogram: last };
    });
  }
}

const ms = (us: number) => Math.round(us / 10) / 100;

/** Every shard's steps merged, step by step: the results' `steps` (undefined without a scenario). */
export function mergeSteps(snapshots: ReadonlyArray<{ steps?: StepSnapshot[] }>): FinalResults['steps'] {
  const names = snapshots.find((s) => s.steps?.length)?.steps?.map((st) => st.name);
  return names?.map((name, i) => {
    const h = newHistogram();
    const codes: Record<string, number> = {};
    let requests = 0;
    let failed = 0;
    let sum = 0;
    let captureFailures = 0;
    for (const snap of snapshots) {
      const s = snap.steps?.[i];
      if (!s) continue;
      requests += s.requests;
      failed += s.failed;
      sum += s.latencySumUs;
      captureFailures += s.captureFailures;
      addEncodedHistogram(h, s.histogram);
      addCounts(codes, s.statusCodes);
    }
    const p = (q: number) => (h.totalCount ? ms(h.getValueAtPercentile(q)) : 0);
    return {
      step: i + 1,
      name,
      requests,
      failed_requests: failed,
      error_rate: requests ? Math.round((failed / requests) * 10_000) / 100 : 0,
      capture_failures: captureFailures,
      avg_response_time: requests ? ms(sum / requests) : 0,
      p50_response_time: p(50),
      p95_response_time: p(95),
      p99_response_time: p(99),
      max_response_time: h.totalCount ? ms(h.maxValue) : 0,
      status_codes: codes,
    };
  });
}
