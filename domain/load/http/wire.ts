// The protocol a load test speaks, as the generator (generator.ts) uses it: its requests built once
// (request.ts) and each user's connection: HTTP/1.1, a connection per user (http1.ts), or HTTP/2,
// runs of `streamsPerConnection` users sharing one (http2.ts).
import type { ShardTarget } from '../../../lib/jobs/load-test.ts';
import type { ConnectionOptions } from './connect.ts';
import type { LoadConnection } from './connection.ts';
import { Http1Connection } from './http1.ts';
import { type Http2Counts, Http2Connection, Http2Slot } from './http2.ts';
import { http2Request, requestBytes, type RequestSpec } from './request.ts';

/** A protocol as the generator uses it: its requests built once, and a user's connection. */
export interface Wire<R> {
  /** A request; `reused` (the default) when it is built once and sent again and again. */
  encode(spec: RequestSpec, reused?: boolean): R;
  connection(request: R, user: number): LoadConnection<R>;
}

const http1Wire = (options: ConnectionOptions, headOnly: boolean): Wire<Buffer> => ({
  encode: requestBytes,
  connection: (request) => new Http1Connection(options, request, headOnly),
});

/** Users 0..n-1 of a shard: each run of `streams` of them shares a connection. */
function http2Wire(
  options: ConnectionOptions,
  streams: number,
  counts: Http2Counts,
): Wire<ReturnType<typeof http2Request>> {
  let shared: Http2Connection | null = null;
  return {
    encode: http2Request,
    connection: (request, user) => {
      if (user % streams === 0 || !shared) shared = new Http2Connection(options, counts);
      return new Http2Slot(shared, request);
    },
  };
}

/** The wire of `target`'s protocol; HTTP/2 counts its connections in `counts`. */
export function wireOf(target: ShardTarget, options: ConnectionOptions, counts: Http2Counts | null): Wire<unknown> {
  return counts
    ? http2Wire(options, target.streamsPerConnection ?? 1, counts)
    : http1Wire(options, target.method === 'HEAD');
}
