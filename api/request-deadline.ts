// How long a client may take to send a whole request (REQUEST_TIMEOUT_MS), per request rather than
// Node's one server-wide requestTimeout: an upload to a video job's link may take as long as the link
// lives (api/routes/video-links.ts sets that deadline itself), every other request gets this one.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { AppError } from '../lib/errors.ts';
import { errorBody } from './middleware/errors.ts';

/** Cuts the request off with 408 when its body has not all arrived within `ms` (an answered request is left alone). */
export function requestDeadline(req: IncomingMessage, res: ServerResponse, ms: number): void {
  const timer = setTimeout(() => {
    if (req.complete || res.writableEnded) return;
    const body = JSON.stringify(errorBody(new AppError('request_timeout', `The whole request did not arrive within ${ms} ms`)));
    if (!res.headersSent) res.writeHead(408, { 'content-type': 'application/json; charset=utf-8', connection: 'close' }).end(body, () => req.socket.destroy());
    else req.socket.destroy();
  }, ms);
  timer.unref();
  const clear = () => clearTimeout(timer);
  req.once('end', clear);
  res.once('finish', clear);
  res.once('close', clear);
}
