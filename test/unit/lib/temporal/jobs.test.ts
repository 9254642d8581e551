// lib/temporal/jobs.ts: workflowOutcome reads a workflow's standing from what the Temporal server describes
// (stubbed here: the server's own answers are the integration suites' business, load-failover.test.ts).
import { WorkflowNotFoundError, type WorkflowHandle } from '@temporalio/client';
import { describe, expect, it } from 'vitest';
import { workflowOutcome } from '../../../../lib/temporal/jobs.ts';

/** A handle whose describe answers `status` (or throws `error`) and whose result is `result`. */
function handle(status: string, options: { closeTime?: Date; result?: unknown; error?: Error } = {}) {
  return {
    describe: async () => {
      if (options.error) throw options.error;
      return { status: { name: status }, closeTime: options.closeTime };
    },
    result: async () => options.result,
  } as unknown as WorkflowHandle;
}

describe('workflowOutcome', () => {
  it('is open while the workflow runs, is paused or continues as new; a result once it completed', async () => {
    for (const status of ['RUNNING', 'PAUSED', 'CONTINUED_AS_NEW', 'UNSPECIFIED'])
      expect(await workflowOutcome(handle(status)), status).toEqual({ open: true });
    expect(await workflowOutcome(handle('COMPLETED', { result: { status: 'completed' } }))).toEqual({
      result: { status: 'completed' },
    });
  });

  it('says how a workflow closed without a result, and when; throws for one the server does not know', async () => {
    const closeTime = new Date('2026-11-30T12:00:00.000Z');
    expect(await workflowOutcome(handle('TERMINATED', { closeTime }))).toEqual({ closed: 'terminated', closeTime });
    expect(await workflowOutcome(handle('TIMED_OUT', { closeTime }))).toEqual({ closed: 'timed out', closeTime });
    expect(await workflowOutcome(handle('FAILED', { closeTime }))).toMatchObject({ closed: 'failed' });
    expect(await workflowOutcome(handle('CANCELLED', { closeTime }))).toMatchObject({ closed: 'cancelled' });
    // One the server does not know throws, as describe does (a video job past retention is a 404).
    const gone = new WorkflowNotFoundError('gone', 'video-x', undefined);
    await expect(workflowOutcome(handle('', { error: gone }))).rejects.toBe(gone);
  });
});
