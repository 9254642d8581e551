// Sends one capture to a URL as it came: its method, its path below the capture URL appended to
// the URL's path, its query as sent, its headers without the hop-by-hop ones, its body's bytes
// (lib/webhooks/webhook-resend.ts, which the service's own replay and forwarding use). node:http, not fetch:
// fetch adds headers of its own (accept, sec-fetch-mode, user-agent) that the sender never sent.
// `listen` forwards with it (the answer's body dropped); `webhook replay --to` sends with it from this
// machine and shows the answer.
import http from 'node:http';
import https from 'node:https';
import { resentRequest, sentTarget } from '../../lib/webhooks/webhook-resend.ts';
import type { Capture } from './captures.ts';

const agents = { http: new http.Agent({ keepAlive: true }), https: new https.Agent({ keepAlive: true }) };
/** A local service that takes longer than this to answer has failed this attempt. */
const ANSWER_TIMEOUT_MS = 30_000;

export type Forwarded = { status: number; durationMs: number } | { error: string; durationMs: number };

/** What was sent and what came back (the answer's body up to `keepBytes`). */
export interface Exchange {
  url: string;
  method: string;
  sentHeaders: Record<string, string | number>;
  bodySize: number;
  status: number;
  headers: Record<string, string>;
  body: Buffer;
  truncated: boolean;
  durationMs: number;
}

export interface SendOptions {
  /** Accept a self-signed certificate. */
  insecure?: boolean;
  /** Keep this much of the answer's body (0: read and drop it). */
  keepBytes?: number;
}

export async function forward(
  capture: Capture,
  webhookId: string,
  targetUrl: string,
  insecure = false,
): Promise<Forwarded> {
  const began = performance.now();
  try {
    const answer = await sendCapture(capture, webhookId, targetUrl, { insecure });
    return { status: answer.status, durationMs: answer.durationMs };
  } catch (e) {
    return { error: errorName(e as Error), durationMs: Math.round((performance.now() - began) * 10) / 10 };
  }
}

/** Sends the capture; rejects with the socket's error (refused, reset, no answer within 30 s). */
export function sendCapture(
  capture: Capture,
  webhookId: string,
  targetUrl: string,
  options: SendOptions = {},
): Promise<Exchange> {
  const req = resentRequest(
    {
      method: capture.method,
      path: capture.path,
      headers: capture.headers,
      body: capture.body,
      bodyEncoding: capture.body_encoding,
      queryParams: capture.query_params,
      // undefined from a service of the release before: rebuilt from query_params.
      queryString: capture.query_string,
    },
    webhookId,
    targetUrl,
  );
  const url = new URL(req.url);
  const secure = url.protocol === 'https:';
  const keep = options.keepBytes ?? 0;
  const began = performance.now();
  const took = () => Math.round((performance.now() - began) * 10) / 10;
  const headers: Record<string, string | number> = { ...req.headers };
  if (req.body) headers['content-length'] = req.body.length;
  return new Promise((resolve, reject) => {
    const r = (secure ? https : http).request(
      url,
      {
        method: req.method,
        // The path and query as the sender spelled them (the URL's own re-spells `"`, `'`, `<`, `>`).
        path: sentTarget(req.url),
        headers,
        agent: secure ? agents.https : agents.http,
        timeout: ANSWER_TIMEOUT_MS,
        ...(secure && options.insecure ? { rejectUnauthorized: false } : {}),
      },
      (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        let truncated = false;
        res.on('data', (c: Buffer) => {
          if (size + c.length > keep) truncated = truncated || keep > 0;
          if (size < keep) chunks.push(c.subarray(0, keep - size));
          size += c.length;
        });
        res.once('error', reject);
        res.once('end', () =>
          resolve({
            url: req.url,
            method: req.method,
            sentHeaders: headers,
            bodySize: req.body?.length ?? 0,
            status: res.statusCode ?? 0,
            headers: Object.fromEntries(Object.entries(res.headers).map(([k, v]) => [k, [v].flat().join(', ')])),
            body: Buffer.concat(chunks),
            truncated,
            durationMs: took(),
          }),
        );
      },
    );
    r.once('timeout', () => r.destroy(Object.assign(new Error('no answer within 30 s'), { code: 'ETIMEDOUT' })));
    r.once('error', reject);
    r.end(req.body);
  });
}

export function errorName(e: Error): string {
  const code = (e as NodeJS.ErrnoException).code;
  return code ? `${code}${code === 'ETIMEDOUT' ? '' : `: ${e.message}`}` : e.message;
}
