// A webhook's captures taken away: as JSON (the shape of my-webhook-requests) or as HAR 1.2 (the
// HTTP Archive format browsers' devtools and proxies open: http://www.softwareishard.com/blog/har-12-spec/),
// written out a capture at a time, never built whole in memory.
import { STATUS_CODES } from 'node:http';
import { queryPairs, sentQuery } from '../../../lib/webhooks/capture-query.ts';
import { VERSION } from '../../../lib/version.ts';
import type { Kysely } from 'kysely';
import type { Database } from '../../../db/schema.ts';
import {
  listCapturedRequestsWithin,
  type CapturedRequest,
  type CaptureFilter,
} from '../../../db/webhooks/captured-requests.ts';
import { CAPTURE_PAGE_BODY_BYTES } from '../../../lib/plans.ts';
import type { WebhookService } from './webhooks.ts';

export type ExportFormat = 'json' | 'har';

/**
 * One capture as a HAR 1.2 entry: the request as the sender made it (its query as sent, its pairs
 * spelled as sent, not decoded); the response is the status it was answered with (200 for captures
 * stored before that was recorded), its headers and body not kept.
 */
function harEntry(c: CapturedRequest, baseUrl: string) {
  const query = sentQuery(c);
  const status = c.answeredStatus ?? 200;
  const mimeType = c.headers['content-type'] ?? 'application/octet-stream';
  return {
    startedDateTime: c.createdAt.toISOString(),
    time: 0,
    request: {
      method: c.method,
      url: `${baseUrl}${c.path}${query ? `?${query}` : ''}`,
      httpVersion: 'HTTP/1.1',
      cookies: [],
      headers: Object.entries(c.headers).map(([name, value]) => ({ name, value })),
      queryString: queryPairs(query ?? ''),
      ...(c.body !== null
        ? { postData: { mimeType, text: c.body, ...(c.bodyEncoding === 'base64' ? { _encoding: 'base64' } : {}) } }
        : {}),
      headersSize: -1,
      bodySize: c.bodySize,
    },
    response: {
      status,
      statusText: STATUS_CODES[status] ?? '',
      httpVersion: 'HTTP/1.1',
      cookies: [],
      headers: [],
      // What was answered besides its status is not kept: its size unknown (-1, as HAR's bodySize says).
      content: { size: -1, mimeType: 'x-unknown' },
      redirectURL: '',
      headersSize: -1,
      bodySize: -1,
      comment: answeredComment(c),
    },
    cache: {},
    timings: { send: 0, wait: 0, receive: 0 },
    _capture_id: c.id,
    _ip_address: c.ipAddress,
  };
}

/** Who answered the capture: the default or the owner's response, or which rule. */
function answeredComment(c: CapturedRequest): string {
  if (c.answeredStatus === null || c.answeredStatus === undefined)
    return 'captured by netops; its answer was not recorded (200 assumed)';
  return `captured by netops; answered ${c.answeredStatus}${c.matchedRule == null ? '' : ` by rule ${c.matchedRule}`}`;
}

export function webhookExportService({
  db,
  baseUrl,
  webhooks,
}: {
  db: Kysely<Database>;
  baseUrl: string;
  webhooks: Pick<WebhookService, 'present' | 'scoped'>;
}) {
  return {
    /**
     * The matching captures (newest first) as text chunks of one JSON or HAR document; 404 unless the
     * caller owns the webhook.
     */
    async export(
      userId: number,
      webhookId: string,
      wanted: CaptureFilter,
      format: ExportFormat,
    ): Promise<AsyncIterable<string>> {
      const { webhook, filter } = await webhooks.scoped(userId, webhookId, wanted);
      return (async function* () {
        const [open, close] =
          format === 'har'
            ? [
                `{"log":{"version":"1.2","creator":{"name":"netops","version":"${VERSION}"},` +
                  `"comment":"captures of webhook ${webhookId}","entries":[`,
                ']}}\n',
              ]
            : [
                `{"success":true,"webhook_id":${JSON.stringify(webhookId)},` +
                  `"exported_at":${JSON.stringify(new Date().toISOString())},"requests":[`,
                ']}\n',
              ];
        yield open;
        let before: number | undefined;
        let first = true;
        // A hundred captures at a time, newest first, and no more bodies than a listing's page holds.
        for (;;) {
          const {
            rows: page,
            ids,
            cut,
            read,
          } = await listCapturedRequestsWithin(
            db,
            webhook.id,
            100,
            { ...filter, ...(before !== undefined ? { beforeId: before } : {}) },
            CAPTURE_PAGE_BODY_BYTES,
          );
          const shown = format === 'json' ? await webhooks.present(webhook, page) : [];
          for (const [i, c] of page.entries()) {
            yield `${first ? '' : ','}${JSON.stringify(format === 'har' ? harEntry(c, baseUrl) : shown[i])}`;
            first = false;
          }
          // Ends when the database had less than a page left; goes on after the page's last capture (a
          // capture deleted meanwhile is neither shown nor ends the export).
          const through = ids.at(-1);
          if ((read < 100 && !cut) || through === undefined) break;
          before = through;
        }
        yield close;
      })();
    },
  };
}
