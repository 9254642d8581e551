import hdr from 'hdr-histogram-js';
import { describe, expect, it } from 'vitest';
import { newHistogram } from '../../../../domain/load/histogram.ts';
import { mergeSnapshots } from '../../../../domain/load/snapshot-merge.ts';

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
      perSecond: [1, 2],
    };
    const merged = mergeSnapshots([
      { ...base, total: 3, successful: 3, failed: 0, statusCodes: { 200: 3 }, firstSentAt: 50, takenAt: 100 },
      {
        ...base,
        total: 2,
        successful: 1,
        failed: 1,
        statusCodes: { 200: 1, 500: 1 },
        firstSentAt: 40,
        takenAt: 90,
        errors: { ECONNRESET: 1 },
      },
    ]);
    expect(merged).toMatchObject({
      total: 5,
      successful: 4,
      failed: 1,
      bytesSent: 2,
      inFlight: 2,
      statusCodes: { 200: 4, 500: 1 },
      errors: { ECONNRESET: 1 },
      firstSentAt: 40,
      takenAt: 100,
      perSecond: [2, 4],
    });
  });
});
