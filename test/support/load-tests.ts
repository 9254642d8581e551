// The load-testing endpoints as the suites call them: start, status, results, and a wait on the status.
import { afterAll, beforeAll } from 'vitest';
import { startLoadTarget, type LoadTarget } from '../fixtures/load-target.ts';
import { call, newAccount } from './client.ts';
import type { Target } from './global-setup.ts';
import { startApp, type AppProcess } from './processes.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export function loadTestCalls(target: Target, account: Promise<{ key: string }>) {
  const start = async (body: Record<string, unknown>) =>
    call(target, 'POST', '/api/v1/load-testing/start', { key: (await account).key, json: body });
  const status = async (id: string) =>
    call(target, 'GET', `/api/v1/load-testing/status/${id}`, { key: (await account).key });
  const results = async (id: string) =>
    call(target, 'GET', `/api/v1/load-testing/results/${id}`, { key: (await account).key });
  /**
   * The status body once `done` says so (polled every 200 ms); throws with the last one past the time. A 503
   * is asked again, as the docs tell a client to; any other error throws (never read as a status).
   */
  const waitFor = async (id: string, done: (b: any) => boolean, timeoutMs = 60_000) => {
    const until = Date.now() + timeoutMs;
    let last: any;
    while (Date.now() < until) {
      const answer = await status(id);
      last = answer.body;
      if (answer.status !== 200 && answer.status !== 503) throw new Error(`status answered ${JSON.stringify(last)}`);
      if (answer.status === 200 && done(last)) return last;
      await sleep(200);
    }
    throw new Error(`status never matched: ${JSON.stringify(last)}`);
  };
  return { start, status, results, waitFor };
}

/**
 * The start body of a short paced test: 2 users sending GET to `targetUrl` at 20 requests a second for 10 s,
 * no ramp-up; `over` sets the rest.
 */
export const pacedTest = (targetUrl: string, over: Record<string, unknown> = {}) => ({
  targetUrl,
  httpMethod: 'GET',
  concurrentUsers: 2,
  testDuration: 10,
  rampUpTime: 0,
  requestsPerSecond: 20,
  ...over,
});

/**
 * For a describe block: a loopback load target started before its tests and closed after them (read it with
 * `site()`).
 */
export function loadTargetSuite(): () => LoadTarget {
  let site: LoadTarget | undefined;
  beforeAll(async () => {
    site = await startLoadTarget();
  });
  afterAll(() => site?.close());
  return () => {
    if (!site) throw new Error('The load target is read before its beforeAll started it');
    return site;
  };
}

/**
 * For a describe block: a loopback load target started before its tests (read it with `site()`), an account, and the
 * calls.
 */
export function loadTestSuite(target: Target) {
  const site = loadTargetSuite();
  const account = newAccount(target);
  return { site, account, ...loadTestCalls(target, account) };
}

/**
 * For a describe block of the distributed mode: a loopback load target (`site()`), and `startSecond()`, which
 * starts a second API process on the target's backends and BASE_URL (the tokens' audience), on a port of its
 * own. The last one started is stopped after the block.
 */
export function secondApiSuite(target: Target) {
  const site = loadTargetSuite();
  let second: AppProcess | undefined;
  afterAll(() => second?.stop());
  const startSecond = async () => {
    second = await startApp({ ...target.env, ROLE: 'api', PORT: '', BASE_URL: target.env.BASE_URL ?? target.baseUrl });
    return second;
  };
  return { site, startSecond };
}
