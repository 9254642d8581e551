// Webhooks and what they captured.
import { z } from 'zod';
import { PUBLIC_ID_PATTERN } from '../../lib/tokens.ts';
import { operation } from './operation.ts';
import * as R from './responses.ts';

export const webhookIdField = z
  .string({ error: 'must be a string' })
  .trim()
  .min(1, 'must not be empty')
  .regex(PUBLIC_ID_PATTERN, 'is not a webhook id (up to 64 letters, digits, - and _)');
export const requestsQuery = z.object({ webhook_id: webhookIdField });
/** A reconnecting Server-Sent Events client sends the last event id it received: the stream resumes after it. */
export const resumeHeaders = z.object({
  'last-event-id': z
    .string()
    .regex(/^\d{1,15}$/, 'must be the id of an event this stream sent')
    .transform(Number)
    .optional(),
});
export const deleteBody = z.object({ webhook_id: webhookIdField });

const path = (name: string) => `/network/${name}`;
export const webhookOperations = {
  create: operation({ method: 'post', path: path('my-webhook-create'), summary: 'Create a webhook and its capture URL', tag: 'Webhooks', success: { status: 201, schema: R.webhookCreateResult, description: 'Created' }, errors: [403] }),
  list: operation({ method: 'get', path: path('my-webhooks'), summary: 'List your webhooks with request counts', tag: 'Webhooks', success: { status: 200, schema: R.webhookListResult, description: 'Your webhooks' }, errors: [] }),
  requests: operation({ method: 'get', path: path('my-webhook-requests'), summary: 'Read the captured requests of a webhook, newest first', tag: 'Webhooks', query: requestsQuery, success: { status: 200, schema: R.webhookRequestsResult, description: 'Captured requests' }, errors: [400, 404] }),
  events: operation({ method: 'get', path: path('my-webhook-requests/events'), summary: 'New captured requests as Server-Sent Events', tag: 'Webhooks', query: requestsQuery, headers: resumeHeaders, success: { status: 200, schema: null, description: 'text/event-stream: `requests` events (the shape of my-webhook-requests, with the highest capture id sent as the event id), `end` when the webhook is deleted. With Last-Event-ID, only captures after that id.' }, errors: [400, 404] }),
  remove: operation({ method: 'post', path: path('my-webhook-delete'), summary: 'Delete a webhook and what it captured', tag: 'Webhooks', body: deleteBody, success: { status: 200, schema: R.webhookDeleteResult, description: 'Deleted' }, errors: [400, 404] }),
};
