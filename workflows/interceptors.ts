// Carries the id of the API request that started a job (in the workflow's memo) into the workflow's
// own log lines and, as an activity header, into the log lines of every activity it schedules: one
// id links the API's log, the workflow in Temporal UI and the activities' logs on any pool.
import { defaultPayloadConverter } from '@temporalio/common';
import {
  workflowInfo,
  type ActivityInput,
  type GetLogAttributesInput,
  type Next,
  type WorkflowInterceptorsFactory,
  type WorkflowOutboundCallsInterceptor,
} from '@temporalio/workflow';
import { REQUEST_ID_HEADER } from '../lib/jobs/task-queues.ts';

function requestId(): string | undefined {
  const id = workflowInfo().memo?.requestId;
  return typeof id === 'string' ? id : undefined;
}

class RequestIdOutbound implements WorkflowOutboundCallsInterceptor {
  async scheduleActivity(
    input: ActivityInput,
    next: Next<WorkflowOutboundCallsInterceptor, 'scheduleActivity'>,
  ): Promise<unknown> {
    const id = requestId();
    return next(
      id
        ? { ...input, headers: { ...input.headers, [REQUEST_ID_HEADER]: defaultPayloadConverter.toPayload(id) } }
        : input,
    );
  }

  getLogAttributes(
    input: GetLogAttributesInput,
    next: Next<WorkflowOutboundCallsInterceptor, 'getLogAttributes'>,
  ): Record<string, unknown> {
    const id = requestId();
    return next(id ? { ...input, requestId: id } : input);
  }
}

export const interceptors: WorkflowInterceptorsFactory = () => ({ outbound: [new RequestIdOutbound()] });
