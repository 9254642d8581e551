// The load-testing endpoints as the suites call them: start, status, results, and a wait on the status.
import { afterAll, beforeAll } from 'vitest';
import { startLoadTarget, type LoadTarget } from '../fixtures/load-target.ts';
import { call, newAccount } from './client.ts';
import type { Target } from './global-setup.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export function loadTestCalls(target: Target, account: Promise<{ key: string }>) {
  const start = async (body: Record<string, unknown>) =>
    call(target, 'POST', '/api/v1/load-testing/start', { key: (await account).key, json: body });
  const status = async (id: string) =>
    call(target, 'GET', `/api/v1/load-testing/status/${id}`, { key: (await account).key });
  const results = async (id: string) =>
    call(target, 'GET', `/api/v1/load-testing/results/${id}`, { key: (await account).key });
  /** The status body once `done` says so (polled every 200 ms); throws with the last one past the time. */
  const waitFor = async (id: string, done: (b: any) => boolean, timeoutMs = 60_000) => {
    const until = Date.now() + timeoutMs;
    let last: any;
    while (Date.now() < until) {
      last = (await status(id)).body;
      if (done(last)) return last;
      await sleep(200);
    }
    throw new Error(`status never matched: ${JSON.stringify(last)}`);
  };
  return { start, status, results, waitFor };
}

/**
 * For a describe block: a loopback load target started before its tests (read it with `site()`), an account, and the
 * calls.
 */
export function loadTestSuite(target: Target) {
  let site: LoadTarget;
  beforeAll(async () => {
    site = await startLoadTarget();
  });
  afterAll(() => site.close());
  const account = newAccount(target);
  return { site: () => site, account, ...loadTestCalls(target, account) };
}
