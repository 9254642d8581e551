// Sends one capture to a local URL as it came: its method, its path below the capture URL appended to
// the URL's path, its query, its headers without the hop-by-hop ones, its body's bytes
// (lib/webhook-resend.ts, which the service's own replay and forwarding use). node:http, not fetch:
// fetch adds headers of its own (accept, sec-fetch-mode, user-agent) that the sender never sent.
import http from 'node:http';
import https from 'node:https';
import { resentRequest } from '../lib/webhook-resend.ts';
import type { Capture } from './commands/webhooks.ts';

const agents = { http: new http.Agent({ keepAlive: true }), https: new https.Agent({ keepAlive: true }) };
/** A local service that takes longer than this to answer has failed this attempt. */
const ANSWER_TIMEOUT_MS = 30_000;

export type Forwarded = { status: number; durationMs: number } | { error: string; durationMs: number };

export function forward(capture: Capture, webhookId: string, targetUrl: string, insecure = false): Promise<Forwarded> {
  const req = resentRequest(
    {
      method: capture.method,
      path: capture.path,
      headers: capture.headers,
      body: capture.body,
      bodyEncoding: capture.body_encoding,
      queryParams: capture.query_params,
    },
    webhookId,
    targetUrl,
  );
  const url = new URL(req.url);
  const secure = url.protocol === 'https:';
  const began = performance.now();
  const took = () => Math.round((performance.now() - began) * 10) / 10;
  return new Promise((resolve) => {
    const headers: Record<string, string | number> = { ...req.headers };
    if (req.body) headers['content-length'] = req.body.length;
    const r = (secure ? https : http).request(
      url,
      {
        method: req.method,
        headers,
        agent: secure ? agents.https : agents.http,
        timeout: ANSWER_TIMEOUT_MS,
        ...(secure && insecure ? { rejectUnauthorized: false } : {}),
      },
      (res) => {
        res.resume(); // the answer's body is not ours to keep
        res.once('end', () => resolve({ status: res.statusCode ?? 0, durationMs: took() }));
        res.once('error', (e) => resolve({ error: errorName(e), durationMs: took() }));
      },
    );
    r.once('timeout', () => r.destroy(Object.assign(new Error('no answer within 30 s'), { code: 'ETIMEDOUT' })));
    r.once('error', (e) => resolve({ error: errorName(e), durationMs: took() }));
    r.end(req.body);
  });
}

function errorName(e: Error): string {
  const code = (e as NodeJS.ErrnoException).code;
  return code ? `${code}${code === 'ETIMEDOUT' ? '' : `: ${e.message}`}` : e.message;
}
