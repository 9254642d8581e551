// How long a client may take to send a whole request (REQUEST_TIMEOUT_MS), per request rather than
// Node's one server-wide requestTimeout, so that one route can move it: an upload to a video job's
// link may take as long as the link lives (api/routes/video-links.ts), once the link was accepted.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { AppError } from '../lib/errors.ts';
import { errorBody } from './middleware/errors.ts';

const DEADLINE = Symbol('request deadline');
type WithDeadline = IncomingMessage & { [DEADLINE]?: (ms: number) => void };

/**
 * Cuts the request off with 408 when its body has not all arrived within `ms` (a request that arrived
 * or was answered is left alone).
 */
export function requestDeadline(req: IncomingMessage, res: ServerResponse, ms: number): void {
  let timer: NodeJS.Timeout | undefined;
  const arm = (after: number) => {
    clearTimeout(timer);
    if (res.closed) return; // extended after its response closed (its client gone): nothing left to cut off
    timer = setTimeout(() => {
      if (req.complete || res.writableEnded) return;
      const body = JSON.stringify(
        errorBody(new AppError('request_timeout', `The whole request did not arrive within ${after} ms`)),
      );
      if (!res.headersSent)
        res
          .writeHead(408, { 'content-type': 'application/json; charset=utf-8', connection: 'close' })
          .end(body, () => req.socket.destroy());
      else req.socket.destroy();
    }, after);
    timer.unref();
  };
  arm(ms);
  (req as WithDeadline)[DEADLINE] = arm;
  // 'close' ends every response, answered or cut off; a timer that finds its request whole does nothing.
  res.once('close', () => clearTimeout(timer));
}

/** Gives the request `ms` from now to arrive whole, instead of what requestDeadline gave it. */
export function extendDeadline(req: IncomingMessage, ms: number): void {
  (req as WithDeadline)[DEADLINE]?.(ms);
}
