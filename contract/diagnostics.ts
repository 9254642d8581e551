// The pipeline check: a workflow that asks every activity pool for a live worker.
import { accepted, get, ok, operations, post } from './operation.ts';
import * as R from './responses.ts';

export const diagnosticsOperations = operations('Diagnostics', {
  start: post('/diagnostics/pipeline-checks', {
    summary: 'Start the pipeline check (API -> workflow -> every pool)',
    success: accepted(R.pipelineCheckStartResult, 'Started'),
    errors: [],
  }),
  state: get('/diagnostics/pipeline-checks/{check_id}', {
    summary: 'State of a pipeline check',
    success: ok(R.pipelineCheckStatusResult, 'State'),
    errors: [404],
  }),
});
