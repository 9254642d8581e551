// The bulk domain check on a real Temporal server: every name checked once (in the mode asked) and
// kept with the answers known before, a bounded number of names of a registry and of registries at
// once, a name whose check fails reported rather than the check, its state answered while it runs,
// and a cancellation that ends it.
import { Context } from '@temporalio/activity';
import { WorkflowFailedError } from '@temporalio/client';
import { ApplicationFailure, CancelledFailure } from '@temporalio/common';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { WhoisActivities } from '../../../activities/whois/index.ts';
import { getDomainCheckState, type CheckedDomain, type DomainCheckJob } from '../../../lib/jobs/index.ts';
import { MAX_PARALLEL_GROUPS } from '../../../workflows/domain-check.ts';
import { checkSummary } from '../../support/domain-checks.ts';
import { gate, until, useWorkflowEnv } from '../../support/workflow-env.ts';

const checkDomain = vi.fn<WhoisActivities['checkDomain']>();
const checkDomains = vi.fn<WhoisActivities['checkDomains']>();

const env = useWorkflowEnv({
  workflows: 'workflows/domain-check.ts',
  activities: { network: { checkDomain, checkDomains } },
});
beforeEach(() => {
  checkDomain.mockReset().mockImplementation(async (domain) => answer(domain));
  checkDomains
    .mockReset()
    .mockImplementation(async (domains) => Object.fromEntries(domains.map((d) => [d, answer(d)])));
});

const answer = (domain: string): CheckedDomain => ({ check: checkSummary(domain), cached: false });

const group = (registry: string, domains: string[], concurrency: number) => ({ registry, domains, concurrency });
const callsOf = (domain: string) => checkDomain.mock.calls.filter(([d]) => d === domain).length;

/**
 * Checks that count how many run at once per `key` of a name (the most seen): each waits until as
 * many as the key's `limit` allows are running (those still to check allowing), so a limit kept is
 * reached, and one not kept shows as more.
 */
function countingChecks(
  key: (domain: string) => string,
  limits: Record<string, number>,
  names: Record<string, number>,
) {
  const running = new Map<string, number>();
  const most = new Map<string, number>();
  checkDomain.mockImplementation(async (domain) => {
    const k = key(domain);
    running.set(k, (running.get(k) ?? 0) + 1);
    most.set(k, Math.max(most.get(k) ?? 0, running.get(k)!));
    await until(`${limits[k]} checks of ${k} at once`, () => running.get(k)! >= Math.min(limits[k]!, names[k]!), 5000);
    await new Promise((r) => setTimeout(r, 50)); // time for one more to start, were the limit not kept
    running.set(k, running.get(k)! - 1);
    names[k]! -= 1;
    return answer(domain);
  });
  return most;
}

describe('bulkDomainCheck', () => {
  it('checks every name once in the mode asked and answers them with those known before', async () => {
    const job: DomainCheckJob = {
      mode: 'full',
      groups: [group('verisign', ['one.com', 'two.com', 'three.net'], 2), group('pir', ['four.org'], 1)],
      known: { 'cached.com': answer('cached.com'), 'refused.test': { error: 'a reserved name' } },
    };
    const handle = await env.start('bulkDomainCheck', [job]);
    const result = await handle.result();
    expect(result).toEqual({
      'cached.com': answer('cached.com'),
      'refused.test': { error: 'a reserved name' },
      'one.com': answer('one.com'),
      'two.com': answer('two.com'),
      'three.net': answer('three.net'),
      'four.org': answer('four.org'),
    });
    expect(checkDomain.mock.calls.map((c) => c.join(' ')).sort()).toEqual([
      'four.org full',
      'one.com full',
      'three.net full',
      'two.com full',
    ]);
    expect(await handle.query(getDomainCheckState)).toEqual({
      status: 'completed',
      total: 4,
      done: 4,
      results: result,
    });
    await env.record(handle, 'bulk-domain-check');
  });

  it("checks at most a registry's `concurrency` names at once, each registry by its own", async () => {
    const com = ['a', 'b', 'c', 'd', 'e'].map((n) => `${n}.com`);
    const org = ['a', 'b', 'c'].map((n) => `${n}.org`);
    const most = countingChecks((d) => d.split('.')[1]!, { com: 2, org: 1 }, { com: com.length, org: org.length });
    const job: DomainCheckJob = { mode: 'fast', groups: [group('verisign', com, 2), group('pir', org, 1)] };
    const result = await (await env.start('bulkDomainCheck', [job])).result();
    expect(Object.keys(result).sort()).toEqual([...com, ...org].sort());
    expect(Object.fromEntries(most)).toEqual({ com: 2, org: 1 });
  });

  it(`checks at most ${MAX_PARALLEL_GROUPS} registries at once`, async () => {
    const registries = Array.from({ length: MAX_PARALLEL_GROUPS + 3 }, (_, i) => `r${i}`);
    const most = countingChecks(() => 'all', { all: MAX_PARALLEL_GROUPS }, { all: registries.length });
    const job: DomainCheckJob = { mode: 'fast', groups: registries.map((r) => group(r, [`${r}.com`], 1)) };
    const result = await (await env.start('bulkDomainCheck', [job])).result();
    expect(Object.keys(result)).toHaveLength(registries.length);
    expect(most.get('all')).toBe(MAX_PARALLEL_GROUPS);
  });

  it(
    'reports a name whose check failed (at once when it cannot succeed, after a second try otherwise) ' +
      'and answers the rest',
    async () => {
      checkDomain.mockImplementation(async (domain) => {
        const { attempt } = Context.current().info;
        if (domain === 'refused.com') throw ApplicationFailure.nonRetryable('the registry refused the query');
        if (domain === 'flaky.com' && attempt === 1) throw new Error('connection reset');
        if (domain === 'down.com') throw new Error(`the registry is down (attempt ${attempt})`);
        return answer(domain);
      });
      const job: DomainCheckJob = {
        mode: 'full',
        groups: [group('verisign', ['ok.com', 'refused.com', 'flaky.com', 'down.com'], 4)],
      };
      const result = await (await env.start('bulkDomainCheck', [job])).result();
      expect(result).toEqual({
        'ok.com': answer('ok.com'),
        'flaky.com': answer('flaky.com'),
        'refused.com': { error: 'the check failed: the registry refused the query' },
        'down.com': { error: 'the check failed: the registry is down (attempt 2)' },
      });
      expect(['ok.com', 'refused.com', 'flaky.com', 'down.com'].map(callsOf)).toEqual([1, 1, 2, 2]);
    },
  );

  it(
    'answers what is known while it runs, ' + 'and a cancellation ends it rather than being reported as a failed name',
    async () => {
      const slow = gate();
      checkDomain.mockImplementation(async (domain) => {
        if (domain === 'slow.com') await Promise.race([slow.opened, Context.current().cancelled]);
        return answer(domain);
      });
      const handle = await env.start('bulkDomainCheck', [
        {
          mode: 'fast',
          groups: [group('verisign', ['fast.com', 'slow.com'], 2)],
          known: { 'kept.com': answer('kept.com') },
        },
      ]);
      try {
        const state = await until('the first answer', async () => {
          const s = await handle.query(getDomainCheckState);
          return s.done === 1 && s;
        });
        expect(state).toEqual({
          status: 'running',
          total: 2,
          done: 1,
          results: { 'kept.com': answer('kept.com'), 'fast.com': answer('fast.com') },
        });
        await handle.cancel();
        const err = await handle.result().catch((e: unknown) => e);
        expect(err).toBeInstanceOf(WorkflowFailedError);
        expect((err as WorkflowFailedError).cause).toBeInstanceOf(CancelledFailure);
      } finally {
        slow.open();
      }
    },
  );

  it(
    "checks the fast modes' names in batches: a group's bound kept across them, " +
      'a failed batch reported for its names',
    async () => {
      const com = Array.from({ length: 60 }, (_, i) => `n${i}.com`);
      const org = ['a.org', 'b.org'];
      checkDomains.mockImplementation(async (domains) => {
        if (domains.includes('b.org')) throw ApplicationFailure.nonRetryable('the worker fell over');
        return Object.fromEntries(domains.map((d) => [d, answer(d)]));
      });
      const job: DomainCheckJob = {
        mode: 'fast',
        batch: 25,
        groups: [group('verisign', com, 50), group('pir', org, 50)],
      };
      const handle = await env.start('bulkDomainCheck', [job]);
      const result = await handle.result();
      expect(checkDomain).not.toHaveBeenCalled();
      // 60 names of one registry: batches of 25, 25 and 10, all three at once, each checking at most 16
      // at once (48 in all, within the group's 50); the other registry's one batch of 2, on its own bound.
      const calls = checkDomains.mock.calls.map(([domains, mode, inside]) => [domains.length, mode, inside]);
      expect(calls.sort()).toEqual([
        [10, 'fast', 16],
        [2, 'fast', 25],
        [25, 'fast', 16],
        [25, 'fast', 16],
      ]);
      expect(Object.keys(result)).toHaveLength(62);
      expect(result['n59.com']).toEqual(answer('n59.com'));
      expect(result['a.org']).toEqual({ error: 'the check failed: the worker fell over' });
      expect(await handle.query(getDomainCheckState)).toMatchObject({ status: 'completed', total: 62, done: 62 });
    },
  );

  it('replays the recorded history with the current code', async () => {
    await env.replay('bulk-domain-check');
  });

  it("replays a fast check recorded before a group's batches ran at once, as it began (two at a time)", async () => {
    // Recorded at b1ccc21 from the batches test above (60 names: two batches of 25 at once, then 10).
    await env.replay('bulk-domain-check-fast-two-at-a-time');
  });
});
