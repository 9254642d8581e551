// Requests Node's HTTP parser refuses before any route sees them (a request line and headers over its
// 16-KB limit, a request that is not HTTP, headers that took too long) get the error shape of every
// other answer, naming what was wrong, instead of Node's bare status line.
import { maxHeaderSize, STATUS_CODES, type Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { AppError } from '../lib/errors.ts';
import { errorBody } from './middleware/errors.ts';

/** The answer to a parser error (its `code`, as Node names it). */
export function clientErrorAnswer(code: string | undefined): AppError {
  if (code === 'HPE_HEADER_OVERFLOW')
    return new AppError(
      'headers_too_large',
      `The request line and headers are larger than ${Math.round(maxHeaderSize / 1024)} KB: ` +
        'send a shorter URL (a long query belongs in a POST body) or fewer headers',
    );
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT')
    return new AppError('request_timeout', 'The request headers did not all arrive in time');
  return new AppError('invalid_input', 'The request is not valid HTTP');
}

export function answerClientErrors(server: Server): void {
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Duplex) => {
    // Nothing to answer on a connection the client already closed, or whose previous answer is on its
    // way (a pipelined request after it): an answer now would land inside that one. As Node does.
    const answering = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
    if (err.code === 'ECONNRESET' || !socket.writable || answering?.headersSent) return void socket.destroy();
    const error = clientErrorAnswer(err.code);
    const body = JSON.stringify(errorBody(error));
    const head = [
      `HTTP/1.1 ${error.status} ${STATUS_CODES[error.status]}`,
      'Content-Type: application/json; charset=utf-8',
      `Content-Length: ${Buffer.byteLength(body)}`,
      'Connection: close',
    ];
    socket.end(`${head.join('\r\n')}\r\n\r\n${body}`);
    // The server keeps half-open sockets: this one is done once the answer is out.
    setTimeout(() => socket.destroy(), 2000).unref();
  });
}
