// What a load test's start body becomes: the request the shards send (credentials in its headers) and
// the configuration shown back (never the credentials or header values).
import { VERSION } from '../../../lib/version.ts';
import type { LoadTestConfig, LoadTestInput, ScenarioStep } from '../../../lib/jobs/load-test.ts';
import type { RemoteWriteTarget } from '../../../lib/jobs/load-outputs.ts';
import type { StartBody } from '../../../contract/load/load-test-start.ts';
import type { StepInput } from '../../../contract/load/load-steps.ts';

/** What every request of a load test says it is, unless the test (or a replayed request) sets its own User-Agent. */
export const LOAD_USER_AGENT = `netops-load/${VERSION}`;

/** The test's own headers and its credentials, names in lower case: on every request it sends. */
export function testHeaders(b: StartBody): Record<string, string> {
  const headers = lowerCaseNames(b.headers);
  if (b.authType === 'basic')
    headers.authorization = `Basic ${Buffer.from(`${b.authUsername}:${b.authPassword}`).toString('base64')}`;
  if (b.authType === 'bearer') headers.authorization = `Bearer ${b.authToken}`;
  if (b.authType === 'apikey') headers[b.apiKeyHeader.toLowerCase()] = b.apiKeyValue!;
  return headers;
}

/** Header names in lower case, so that one set over another replaces it whatever the case (a later value wins). */
const lowerCaseNames = (headers: Record<string, string>): Record<string, string> =>
  Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]));

/** The request every user sends: method, URL, headers with the credentials, body. */
export function targetOf(b: StartBody, url: URL): LoadTestInput['target'] {
  const headers: Record<string, string> = { 'user-agent': LOAD_USER_AGENT, ...testHeaders(b) };
  const withType = (h: Record<string, string>, body: string | undefined) =>
    body !== undefined && !Object.keys(h).some((k) => k.toLowerCase() === 'content-type')
      ? { ...h, 'content-type': 'application/json' }
      : h;
  return {
    url: url.href,
    method: b.httpMethod,
    headers: withType(headers, b.body),
    body: b.body,
    ...(b.insecureTls ? { insecureTls: true } : {}),
    ...(b.iterations !== undefined ? { iterations: b.iterations } : {}),
    ...(b.httpVersion === '2'
      ? { httpVersion: '2' as const, streamsPerConnection: b.http2?.streamsPerConnection ?? 1 }
      : {}),
    ...(b.steps
      ? {
          steps: b.steps.map((st) =>
            scenarioStep(st, b, url, withType({ ...headers, ...lowerCaseNames(st.headers) }, st.body)),
          ),
        }
      : {}),
    ...(b.replay ? { replay: { speed: b.replay.speed, loop: b.replay.loop, headers: testHeaders(b) } } : {}),
  };
}

/**
 * A step as the shards run it: its method, its path on the target's origin (placeholders kept as
 * written), every header.
 */
function scenarioStep(st: StepInput, b: StartBody, target: URL, headers: Record<string, string>): ScenarioStep {
  const path =
    st.path === undefined
      ? `${target.pathname}${target.search}`
      : st.path.startsWith('/')
        ? st.path
        : st.path.slice(target.origin.length) || '/';
  return {
    ...(st.name ? { name: st.name } : {}),
    method: st.method ?? b.httpMethod,
    path,
    headers,
    ...(st.body !== undefined ? { body: st.body } : {}),
    capture: st.capture,
  };
}

/** What is shown of a test's configuration: never the credentials or header values. */
export function publicConfig(b: StartBody, replay?: LoadTestConfig['replay']): LoadTestConfig {
  return {
    target_url: b.targetUrl,
    concurrent_users: b.concurrentUsers,
    test_duration: b.testDuration,
    ramp_up_time: b.rampUpTime,
    requests_per_second: b.requestsPerSecond,
    http_method: replay ? 'REPLAY' : b.httpMethod,
    auth_type: b.authType,
    header_names: Object.keys(b.headers),
    body_bytes: b.body === undefined ? 0 : Buffer.byteLength(b.body),
    insecure_tls: b.insecureTls,
    http_version: b.httpVersion,
    ...(b.iterations !== undefined ? { iterations: b.iterations } : {}),
    ...(b.httpVersion === '2' ? { http2: { streams_per_connection: b.http2?.streamsPerConnection ?? 1 } } : {}),
    ...(b.stages ? { stages: b.stages, stage_target: b.stageTarget } : {}),
    ...(b.steps
      ? {
          steps: b.steps.map((st) => ({
            name: st.name ?? null,
            method: st.method ?? b.httpMethod,
            path: st.path ?? null,
            header_names: Object.keys(st.headers),
            body_bytes: st.body === undefined ? 0 : Buffer.byteLength(st.body),
            capture: st.capture,
          })),
        }
      : {}),
    ...(replay ? { replay } : {}),
    thresholds: b.thresholds.map((t) =>
      t.abortOnFail ? { threshold: t.threshold, abortOnFail: true, delayAbortEval: t.delayAbortEval } : t.threshold,
    ),
    ...(b.outputs
      ? {
          outputs: b.outputs.map((o) =>
            o.type === 'prometheus_remote_write'
              ? {
                  type: o.type,
                  url: o.url,
                  header_names: Object.keys(o.headers),
                  interval_seconds: o.interval_seconds,
                }
              : { type: o.type },
          ),
        }
      : {}),
    ...(b.tags ? { tags: b.tags } : {}),
  };
}

/** The start body's remote-write outputs as the workflow sends them, each with its place in `outputs`. */
export function remoteWriteTargets(outputs: StartBody['outputs']): RemoteWriteTarget[] {
  return (outputs ?? []).flatMap((o, index) =>
    o.type === 'prometheus_remote_write'
      ? [{ index, url: o.url, headers: o.headers, intervalSeconds: o.interval_seconds }]
      : [],
  );
}
