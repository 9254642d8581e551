// Remote write 1.0's body: a snappy-compressed protobuf WriteRequest, labels sorted by name with the
// metric's name as __name__; what is sent decodes back to the same series. The request's headers are
// the spec's, and a receiver that does not take a write is an error with its answer.
import snappy from 'snappyjs';
import { describe, expect, it } from 'vitest';
import type { GuardedFetch } from '../../../lib/net/guarded-fetch.ts';
import {
  decodeWriteRequest,
  encodeWriteRequest,
  RemoteWriteRefused,
  remoteWrite,
  type RemoteWriteSeries,
} from '../../../lib/prometheus-remote-write.ts';

const series: RemoteWriteSeries[] = [
  { name: 'netops_http_reqs_total', labels: { test_id: 't1', env: 'ci' }, value: 1234, timestamp: 1_795_000_000_123 },
  { name: 'netops_http_req_duration_seconds', labels: { stat: 'p95', test_id: 't1' }, value: 0.0425, timestamp: 1 },
];

describe('encodeWriteRequest', () => {
  it('encodes a WriteRequest that decodes to the same series, with the labels sorted', () => {
    const body = encodeWriteRequest(series);
    expect(decodeWriteRequest(body)).toEqual(series);
    // The protobuf inside: field 1 (timeseries), its labels sorted: __name__ < env < test_id.
    const raw = Buffer.from(snappy.uncompress(new Uint8Array(body))).toString('latin1');
    expect(raw.indexOf('__name__')).toBeLessThan(raw.indexOf('env'));
    expect(raw.indexOf('env')).toBeLessThan(raw.indexOf('test_id'));
    expect(raw.charCodeAt(0)).toBe((1 << 3) | 2);
  });
});

describe('remoteWrite', () => {
  const answering = (status: number, body = '') => {
    const calls: Array<{ url: string; headers: Record<string, string> }> = [];
    const fetch = (async (url: string, init?: { headers?: Record<string, string> }) => {
      calls.push({ url, headers: init?.headers ?? {} });
      return { status, body: Buffer.from(body) };
    }) as unknown as GuardedFetch;
    return { fetch, calls };
  };

  it("sends the spec's headers with the caller's", async () => {
    const { fetch, calls } = answering(204);
    await remoteWrite(fetch, 'http://127.0.0.1:9090/api/v1/write', series, { Authorization: 'Bearer x' });
    expect(calls[0]!.headers).toMatchObject({
      Authorization: 'Bearer x',
      'content-type': 'application/x-protobuf',
      'content-encoding': 'snappy',
      'x-prometheus-remote-write-version': '0.1.0',
    });
  });

  it("throws the receiver's status and answer when it does not take the write", async () => {
    const { fetch } = answering(400, 'out of order sample\n');
    await expect(remoteWrite(fetch, 'http://127.0.0.1:9090/api/v1/write', series)).rejects.toThrow(
      'the receiver answered 400: out of order sample',
    );
  });

  it('lets 5xx and 429 be tried again, never another 4xx (the spec)', () => {
    expect([500, 503, 429, 400, 401, 404].map((s) => new RemoteWriteRefused(s, '').retryable)).toEqual([
      true,
      true,
      true,
      false,
      false,
      false,
    ]);
  });
});
