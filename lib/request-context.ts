// The request a piece of work belongs to, without threading it through every call: the API runs
// each request inside `withRequest`, and whatever starts a workflow meanwhile (lib/temporal/jobs.ts)
// puts its id in the workflow's memo, so one id links an API log line to its workflow in Temporal UI.
import { AsyncLocalStorage } from 'node:async_hooks';
import { randomBytes } from 'node:crypto';

export interface RequestContext {
  requestId: string;
}

const storage = new AsyncLocalStorage<RequestContext>();

/** An incoming `X-Request-Id` when it is a sane token, else a new one. */
export function requestIdFrom(header: string | undefined): string {
  return header && /^[A-Za-z0-9._:-]{1,64}$/.test(header) ? header : randomBytes(9).toString('base64url');
}

export function withRequest<T>(context: RequestContext, work: () => T): T {
  return storage.run(context, work);
}

export function currentRequestId(): string | undefined {
  return storage.getStore()?.requestId;
}
