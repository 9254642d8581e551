// Prometheus remote write 1.0 (https://prometheus.io/docs/specs/prw/remote_write_spec/): samples as a
// protobuf WriteRequest, compressed with snappy's block format, POSTed with the spec's headers. Label
// names are sorted and each series carries its name as `__name__`, as the spec requires. protobufjs
// encodes the message (described here as JSON, the fields of prometheus/prompb's types.proto and
// remote.proto that 1.0 uses); snappyjs compresses it.
import protobuf from 'protobufjs';
import snappy from 'snappyjs';
import type { GuardedFetch } from './net/guarded-fetch.ts';

export interface RemoteWriteSeries {
  name: string;
  labels: Record<string, string>;
  value: number;
  /** Epoch milliseconds. */
  timestamp: number;
}

const root = protobuf.Root.fromJSON({
  nested: {
    prometheus: {
      nested: {
        WriteRequest: { fields: { timeseries: { rule: 'repeated', type: 'TimeSeries', id: 1 } } },
        TimeSeries: {
          fields: {
            labels: { rule: 'repeated', type: 'Label', id: 1 },
            samples: { rule: 'repeated', type: 'Sample', id: 2 },
          },
        },
        Label: { fields: { name: { type: 'string', id: 1 }, value: { type: 'string', id: 2 } } },
        Sample: { fields: { value: { type: 'double', id: 1 }, timestamp: { type: 'int64', id: 2 } } },
      },
    },
  },
});
const WriteRequest = root.lookupType('prometheus.WriteRequest');

/** The WriteRequest of `series` (one sample each), snappy-compressed: a remote write's body. */
export function encodeWriteRequest(series: readonly RemoteWriteSeries[]): Buffer {
  const timeseries = series.map((s) => ({
    labels: Object.entries({ ...s.labels, __name__: s.name })
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([name, value]) => ({ name, value })),
    samples: [{ value: s.value, timestamp: s.timestamp }],
  }));
  const bytes = WriteRequest.encode(WriteRequest.create({ timeseries })).finish();
  return Buffer.from(snappy.compress(bytes));
}

/** The message back, for tests and for checking what was sent. */
export function decodeWriteRequest(body: Buffer): RemoteWriteSeries[] {
  const message = WriteRequest.toObject(WriteRequest.decode(snappy.uncompress(new Uint8Array(body))), {
    longs: Number,
  }) as {
    timeseries?: Array<{
      labels: Array<{ name: string; value: string }>;
      samples: Array<{ value: number; timestamp: number }>;
    }>;
  };
  return (message.timeseries ?? []).flatMap((ts) => {
    const labels = Object.fromEntries(ts.labels.map((l) => [l.name, l.value]));
    const { __name__: name = '', ...rest } = labels;
    return ts.samples.map((s) => ({ name, labels: rest, value: s.value ?? 0, timestamp: s.timestamp ?? 0 }));
  });
}

/** A write the receiver did not take: its status, and whether the spec lets the sender try it again. */
export class RemoteWriteRefused extends Error {
  readonly status: number;
  constructor(status: number, text: string) {
    super(`the receiver answered ${status}${text ? `: ${text}` : ''}`);
    this.status = status;
  }
  /** 5xx and 429 may be tried again; other 4xx must not be (the same data would be refused again). */
  get retryable(): boolean {
    return this.status >= 500 || this.status === 429;
  }
}

/**
 * Sends `series` to a remote-write receiver through `fetch` (the SSRF guard's). A 2xx takes them;
 * any other answer throws RemoteWriteRefused with the start of the receiver's answer.
 */
export async function remoteWrite(
  fetch: GuardedFetch,
  url: string,
  series: readonly RemoteWriteSeries[],
  headers: Record<string, string> = {},
): Promise<void> {
  const answer = await fetch(url, {
    method: 'POST',
    headers: {
      ...headers,
      'content-type': 'application/x-protobuf',
      'content-encoding': 'snappy',
      'x-prometheus-remote-write-version': '0.1.0',
      'user-agent': 'netops-load-test',
    },
    body: encodeWriteRequest(series),
  });
  if (answer.status < 200 || answer.status > 299)
    throw new RemoteWriteRefused(answer.status, answer.body.subarray(0, 200).toString('utf8').trim());
}
