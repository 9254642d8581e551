// The pipeline check: a workflow that asks every activity pool for a live worker.
import { operations } from './operation.ts';
import * as R from './responses.ts';

export const diagnosticsOperations = operations('Diagnostics', {
  start: {
    method: 'post',
    path: '/diagnostics/pipeline-checks',
    summary: 'Start the pipeline check (API -> workflow -> every pool)',
    success: { status: 202, schema: R.pipelineCheckStartResult, description: 'Started' },
    errors: [],
  },
  state: {
    method: 'get',
    path: '/diagnostics/pipeline-checks/{check_id}',
    summary: 'State of a pipeline check',
    success: { status: 200, schema: R.pipelineCheckStatusResult, description: 'State' },
    errors: [404],
  },
});
