// The webhooks' background work on a real Temporal server. The forwarder: looks at once, delivers each
// batch due, never two batches of one webhook at once and at most four at once, looks again when a
// batch ends, when captures are stored (a signal) and when the earliest retry comes due. The upkeep:
// expires captures, and starts the forwarder, or wakes the one running, when deliveries have stalled.
// The wait (an MCP task's): one activity on the network pool, retried on another worker until its deadline.
import { randomUUID } from 'node:crypto';
import { Context } from '@temporalio/activity';
import { WorkflowNotFoundError, type WorkflowHandle } from '@temporalio/client';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { WebhookActivities } from '../../../activities/webhooks/index.ts';
import type { WebhookWaitActivities } from '../../../activities/webhooks/wait.ts';
import { capturesStored, FORWARDER_WORKFLOW_ID, type DeliveryGroup } from '../../../lib/jobs/index.ts';
import { gate, scheduledActivities, until, useWorkflowEnv } from '../../support/workflow-env.ts';

const network = {
  dueDeliveries: vi.fn<WebhookActivities['dueDeliveries']>(),
  deliverCaptures: vi.fn<WebhookActivities['deliverCaptures']>(),
  expireCaptures: vi.fn<WebhookActivities['expireCaptures']>(),
  deliveriesStalled: vi.fn<WebhookActivities['deliveriesStalled']>(),
  waitForCapture: vi.fn<WebhookWaitActivities['waitForCapture']>(),
};
const { dueDeliveries, deliverCaptures, expireCaptures, deliveriesStalled, waitForCapture } = network;

const env = useWorkflowEnv({ workflows: 'workflows/webhooks.ts', activities: { network } });
beforeEach(() => {
  dueDeliveries.mockReset().mockResolvedValue({ groups: [], nextRetryAt: null });
  deliverCaptures
    .mockReset()
    .mockImplementation(async (groups) => ({ delivered: groups.flatMap((g) => g.ids).length, nextRetryAt: null }));
  expireCaptures.mockReset().mockResolvedValue(0);
  deliveriesStalled.mockReset().mockResolvedValue(false);
  waitForCapture.mockReset();
});

/** The webhooks each look skipped (a batch of theirs on its way), look by look. */
const busyOfLooks = () => dueDeliveries.mock.calls.map(([busy]) => busy);
const looks = (n: number) => until(`${n} looks`, () => dueDeliveries.mock.calls.length >= n);
const batch = (webhookId: string, ...ids: number[]): DeliveryGroup[] => [{ webhookId, ids }];

/** A forwarder of its own (the service's has the one id FORWARDER_WORKFLOW_ID, which the upkeep's tests use). */
const startForwarder = (retryAt: number | null = null) =>
  env.start('webhookForwarder', [retryAt], { workflowId: `forwarder-${randomUUID()}` });

/** A forwarder only ends after ten idle minutes: the tests end theirs. */
const end = (handle: WorkflowHandle) => handle.terminate('the test is over').catch(() => undefined);

describe('webhookForwarder', () => {
  it(
    'delivers each batch due, skipping webhooks with a batch on its way, ' +
      'and looks again when a batch ends and when captures are stored',
    async () => {
      const w1Sent = gate();
      const w1Answered = gate();
      const due = [batch('w1', 1, 2), batch('w2', 3)];
      dueDeliveries.mockImplementation(async () => ({ groups: due.shift() ?? [], nextRetryAt: null }));
      deliverCaptures.mockImplementation(async (groups) => {
        if (groups[0]!.webhookId === 'w1') {
          w1Sent.open();
          await Promise.race([w1Answered.opened, Context.current().cancelled]);
        }
        return { delivered: groups[0]!.ids.length, nextRetryAt: null };
      });
      const handle = await startForwarder();
      try {
        await w1Sent.opened;
        // w1's batch, then w2's; a look with both on their way, and one when w2's ended.
        await looks(4);
        expect(busyOfLooks()).toEqual([[], ['w1'], ['w1', 'w2'], ['w1']]);
        w1Answered.open();
        await looks(5);
        expect(busyOfLooks()[4]).toEqual([]);
        expect(deliverCaptures.mock.calls).toEqual([[batch('w1', 1, 2)], [batch('w2', 3)]]);
        // Idle now until a signal: captures were stored.
        await handle.signal(capturesStored);
        await looks(6);
        expect(busyOfLooks()[5]).toEqual([]);
        // Each look asks for at most 20 captures of each of at most 25 webhooks.
        expect(dueDeliveries.mock.calls.every(([, perWebhook, webhooks]) => perWebhook === 20 && webhooks === 25)).toBe(
          true,
        );
      } finally {
        w1Answered.open();
        await end(handle);
      }
      await env.record(handle, 'webhook-forwarder');
    },
  );

  it('has at most four batches on their way at once', async () => {
    let n = 0;
    dueDeliveries.mockImplementation(async () => ({ groups: n < 5 ? batch(`w${++n}`, n) : [], nextRetryAt: null }));
    const answer = gate();
    deliverCaptures.mockImplementation(async () => {
      await Promise.race([answer.opened, Context.current().cancelled]);
      return { delivered: 1, nextRetryAt: null };
    });
    const handle = await startForwarder();
    try {
      const scheduled = await until('four batches on their way', async () => {
        const s = await scheduledActivities(handle);
        return s.filter((a) => a === 'deliverCaptures').length === 4 && s;
      });
      // The workflow task that sent the fourth batch looked no more: every lane was taken.
      expect(scheduled).toEqual(Array.from({ length: 4 }, () => ['dueDeliveries', 'deliverCaptures']).flat());
      answer.open();
      await until('the fifth batch', () => deliverCaptures.mock.calls.length === 5);
      expect(deliverCaptures.mock.calls.map(([groups]) => groups[0]!.webhookId)).toEqual([
        'w1',
        'w2',
        'w3',
        'w4',
        'w5',
      ]);
    } finally {
      answer.open();
      await end(handle);
    }
  });

  it('looks again, without a signal, when the earliest retry waiting comes due', async () => {
    // As the database answers: the failed delivery's retry waits two seconds from the first look that
    // sees the failure, and every look reports it until the fourth, the one its time wakes: a look that
    // comes late (a loaded machine) still sees it, past, and the forwarder's timer fires at once.
    let failed = false;
    let retryAt = 0; // none waiting until a look after the failure
    dueDeliveries.mockResolvedValueOnce({ groups: batch('w1', 1), nextRetryAt: null }).mockImplementation(async () => {
      if (failed && retryAt === 0) retryAt = Date.now() + 2000;
      const look = dueDeliveries.mock.calls.length;
      return { groups: [], nextRetryAt: retryAt && look < 4 ? retryAt : null };
    });
    deliverCaptures.mockImplementation(async () => {
      failed = true;
      return { delivered: 0, nextRetryAt: Date.now() + 2000 };
    });
    const handle = await startForwarder();
    try {
      // The first look, the look beside the batch, the look when it ended, then the retry's.
      await looks(4);
      const { events } = await handle.fetchHistory();
      expect(events!.some((e) => e.timerFiredEventAttributes)).toBe(true);
      expect(deliverCaptures).toHaveBeenCalledTimes(1);
    } finally {
      await end(handle);
    }
  });

  it('ends cancelled when cancelled while a batch is on its way', async () => {
    const sent = gate();
    dueDeliveries.mockResolvedValueOnce({ groups: batch('w1', 1), nextRetryAt: null });
    deliverCaptures.mockImplementation(async () => {
      sent.open();
      await Context.current().cancelled.catch(() => undefined);
      return { delivered: 0, nextRetryAt: null };
    });
    const handle = await startForwarder();
    try {
      await sent.opened;
      await handle.cancel();
      await until('the forwarder cancelled', async () => (await handle.describe()).status.name === 'CANCELLED', 10_000);
    } finally {
      await end(handle);
    }
  });

  it('replays the recorded history with the current code', async () => {
    await env.replay('webhook-forwarder');
  });
});

describe('webhookUpkeep', () => {
  const forwarder = () => env.client.workflow.getHandle(FORWARDER_WORKFLOW_ID);
  const forwarderRunning = () =>
    forwarder()
      .describe()
      .then((d) => d.status.name === 'RUNNING')
      .catch((err: unknown) => {
        if (err instanceof WorkflowNotFoundError) return false;
        throw err;
      });

  it('expires the captures past their retention and leaves the forwarder be when no delivery has stalled', async () => {
    expireCaptures.mockResolvedValue(7);
    const handle = await env.start('webhookUpkeep', []);
    expect(await handle.result()).toEqual({ deleted: 7, woken: false });
    expect(await scheduledActivities(handle)).toEqual(['expireCaptures', 'deliveriesStalled']);
    expect(await forwarderRunning()).toBe(false);
    expect(dueDeliveries).not.toHaveBeenCalled();
  });

  it('starts the forwarder when deliveries have stalled, and the forwarder outlives it', async () => {
    deliveriesStalled.mockResolvedValue(true);
    const handle = await env.start('webhookUpkeep', []);
    try {
      expect(await handle.result()).toEqual({ deleted: 0, woken: true });
      await looks(1);
      expect(await forwarderRunning()).toBe(true);
      expect((await forwarder().describe()).parentExecution?.workflowId).toBe(handle.workflowId);
    } finally {
      await end(forwarder());
    }
  });

  it('wakes the forwarder running instead of starting another', async () => {
    deliveriesStalled.mockResolvedValue(true);
    const running = await env.start('webhookForwarder', [null], { workflowId: FORWARDER_WORKFLOW_ID });
    try {
      await looks(1);
      const handle = await env.start('webhookUpkeep', []);
      expect(await handle.result()).toEqual({ deleted: 0, woken: true });
      await looks(2);
      expect((await forwarder().describe()).runId).toBe(running.firstExecutionRunId);
      await env.record(handle, 'webhook-upkeep');
    } finally {
      await end(running);
    }
  });

  it('replays the recorded history with the current code', async () => {
    await env.replay('webhook-upkeep');
  });
});

describe('webhookWait', () => {
  const input = (deadlineInMs: number) => ({
    userId: 7,
    webhookId: 'wh_wait',
    filter: { method: 'POST', text: 'order' },
    afterId: 41,
    deadline: Date.now() + deadlineInMs,
    slot: { holder: 'wait-1', limit: 5 },
  });

  it('waits with one activity on the network pool and answers what it found', async () => {
    waitForCapture.mockResolvedValue({ webhookId: 'wh_wait', requestId: 42 });
    const given = input(60_000);
    const handle = await env.start('webhookWait', [given]);
    expect(await handle.result()).toEqual({ webhookId: 'wh_wait', requestId: 42 });
    expect(waitForCapture).toHaveBeenCalledExactlyOnceWith(given);
    expect(await scheduledActivities(handle)).toEqual(['waitForCapture']);
    await env.record(handle, 'webhook-wait');
  });

  it("retries a lost attempt until the wait's deadline, with the same input", async () => {
    waitForCapture
      .mockRejectedValueOnce(new Error('the network worker went away'))
      .mockResolvedValueOnce({ webhookId: 'wh_wait', requestId: null });
    const given = input(60_000);
    const handle = await env.start('webhookWait', [given]);
    expect(await handle.result()).toEqual({ webhookId: 'wh_wait', requestId: null });
    expect(waitForCapture.mock.calls).toEqual([[given], [given]]);
  });

  it('replays the recorded history with the current code', async () => {
    await env.replay('webhook-wait');
  });
});
