// The pipeline check: a workflow that asks every activity pool for a live worker.
import { z } from 'zod';
import { operation } from './operation.ts';
import * as R from './responses.ts';
import { publicIdField } from './input-fields.ts';

/** The check a state names in its path ({check_id}). */
export const checkIdParams = z.strictObject({ check_id: publicIdField('a pipeline check') });

export const diagnosticsOperations = {
  start: operation({
    method: 'post',
    path: '/diagnostics/pipeline-checks',
    summary: 'Start the pipeline check (API -> workflow -> every pool)',
    tag: 'Diagnostics',
    success: { status: 202, schema: R.pipelineCheckStartResult, description: 'Started' },
    errors: [],
  }),
  state: operation({
    method: 'get',
    path: '/diagnostics/pipeline-checks/{check_id}',
    params: checkIdParams,
    summary: 'State of a pipeline check',
    tag: 'Diagnostics',
    success: { status: 200, schema: R.pipelineCheckStatusResult, description: 'State' },
    errors: [404, 503],
  }),
};
