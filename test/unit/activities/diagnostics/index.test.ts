// The activity every pool registers for the pipeline check, in an activity context: it names its pool,
// this worker, and the request behind the job as the activity interceptor hands it on.
import os from 'node:os';
import { MockActivityEnvironment } from '@temporalio/testing';
import { DefaultLogger } from '@temporalio/worker';
import { describe, expect, it } from 'vitest';
import { createDiagnosticsActivities } from '../../../../activities/diagnostics/index.ts';
import type { WorkerReport } from '../../../../lib/jobs/index.ts';
import { withRequest } from '../../../../lib/request-context.ts';

describe('reportWorker', () => {
  it('names its pool and this worker, and the request behind the job when there is one', async () => {
    const { reportWorker } = createDiagnosticsActivities('media');
    const context = new MockActivityEnvironment(undefined, { logger: new DefaultLogger('WARN') });
    const before = Date.now();
    const report = (await context.run(reportWorker)) as WorkerReport;
    expect(report).toEqual({
      pool: 'media',
      hostname: os.hostname(),
      pid: process.pid,
      answeredAt: expect.any(String),
      requestId: null,
    });
    expect(Date.parse(report.answeredAt)).toBeGreaterThanOrEqual(before);
    expect(await withRequest({ requestId: 'req-42' }, () => context.run(reportWorker))).toMatchObject({
      requestId: 'req-42',
    });
  });
});
