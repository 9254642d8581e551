import hdr from 'hdr-histogram-js';
import { describe, expect, it } from 'vitest';
import { newHistogram } from '../../../../../domain/load/metrics/histogram.ts';
import { mergeSnapshots } from '../../../../../domain/load/metrics/snapshot-merge.ts';

describe('a shard on two threads', () => {
  it('merges parts exactly: counts add, times take the earliest and latest', () => {
    const base = {
      bytesSent: 1,
      bytesReceived: 2,
      latencySumUs: 3,
      histogram: hdr.encodeIntoCompressedBase64(newHistogram()),
      errors: {},
      inFlight: 1,
      dropped: 0,
    };
    const report = (second: number) => [{ second, sent: 1, answered: 1, failed: 0, latencySumUs: 3, latencyMaxUs: 3 }];
    const merged = mergeSnapshots([
      {
        ...base,
        total: 3,
        successful: 3,
        failed: 0,
        statusCodes: { 200: 3 },
        firstSentAt: 50,
        takenAt: 100,
        sending: { first: 0, last: 1, pace: 2 },
        newSeconds: report(1),
      },
      {
        ...base,
        total: 2,
        successful: 1,
        failed: 1,
        statusCodes: { 200: 1, 500: 1 },
        firstSentAt: 40,
        takenAt: 90,
        errors: { ECONNRESET: 1, ECONNREFUSED: 4 },
        connectionErrors: 4, // apart from total: never sent
        sending: { first: 0, last: 1, pace: 2 },
        newSeconds: report(0),
      },
    ]);
    expect(merged).toMatchObject({
      total: 5,
      successful: 4,
      failed: 1,
      connectionErrors: 4,
      bytesSent: 2,
      inFlight: 2,
      statusCodes: { 200: 4, 500: 1 },
      errors: { ECONNRESET: 1, ECONNREFUSED: 4 },
      firstSentAt: 40,
      takenAt: 100,
      sending: { first: 0, last: 1, pace: 4 },
      newSeconds: [...report(1), ...report(0)], // each part's, to be merged where they are read
    });
  });

  it('leaves the phases out when not asked for them, one part or several', () => {
    const h = hdr.encodeIntoCompressedBase64(newHistogram());
    const phases = { dns: h, connect: h, tls: h, ttfb: h, transfer: h };
    const part = {
      total: 1,
      successful: 1,
      failed: 0,
      bytesSent: 1,
      bytesReceived: 2,
      latencySumUs: 3,
      histogram: h,
      statusCodes: { 200: 1 },
      errors: {},
      inFlight: 0,
      dropped: 0,
      firstSentAt: 1,
      takenAt: 2,
      phases,
    };
    expect(mergeSnapshots([part], false)).not.toHaveProperty('phases');
    expect(mergeSnapshots([part, part], false)).not.toHaveProperty('phases');
    expect(mergeSnapshots([part])).toHaveProperty('phases', phases);
    expect(Object.keys(mergeSnapshots([part, part]).phases ?? {})).toEqual(Object.keys(phases));
  });
});
