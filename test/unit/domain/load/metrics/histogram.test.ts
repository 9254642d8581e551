// The histograms' encoder writes what hdr-histogram-js writes (HdrHistogram's compressed V2): the
// same V2 bytes, byte for byte, deflated otherwise (Huffman codes only), so anything that decodes one
// decodes the other; and an encoded histogram added into another gives what the library's decode and
// add give.
import zlib from 'node:zlib';
import hdr from 'hdr-histogram-js';
import { describe, expect, it } from 'vitest';
import { addEncodedHistogram, encodeHistogram, newHistogram } from '../../../../../domain/load/metrics/histogram.ts';

describe('encodeHistogram', () => {
  it('writes what the library writes, for every shape a shard has', () => {
    const long = newHistogram();
    for (let i = 0; i < 50_000; i++) long.recordValue(Math.round(300 + 2000 * -Math.log(1 - (i + 0.5) / 50_000)));
    long.recordValue(30_000_000); // a timeout's latency: the counts reach far
    long.recordValueWithCount(1200, 2 ** 33); // a count beyond 32 bits
    const perSecond = hdr.build({ bitBucketSize: 32, autoResize: true, numberOfSignificantValueDigits: 3 });
    for (let i = 1; i <= 200; i++) perSecond.recordValue(i * 97);
    const zeros = newHistogram();
    for (let i = 0; i < 1000; i++) zeros.recordValue(0); // a kept-alive connection's connect phase
    for (const h of [long, perSecond, zeros, newHistogram()]) {
      const ours = encodeHistogram(h);
      const oursBytes = Buffer.from(ours, 'base64');
      const theirs = Buffer.from(hdr.encodeIntoCompressedBase64(h), 'base64');
      expect(oursBytes.subarray(0, 4)).toEqual(theirs.subarray(0, 4)); // the compressed form's cookie
      expect(oursBytes.readInt32BE(4)).toBe(oursBytes.length - 8);
      expect(oursBytes.readUInt16BE(8)).toBe(0x7801); // zlib's header: deflated the fastest way (Huffman codes only)
      expect(zlib.inflateSync(oursBytes.subarray(8))).toEqual(zlib.inflateSync(theirs.subarray(8)));
      const back = hdr.decodeFromCompressedBase64(ours, 64, false);
      expect([back.totalCount, back.getValueAtPercentile(50), back.getValueAtPercentile(99)]).toEqual([
        h.totalCount,
        h.getValueAtPercentile(50),
        h.getValueAtPercentile(99),
      ]);
    }
  });
});

/** Everything a merge reads of a histogram: its counts, total, extremes and percentiles. */
function seen(h: ReturnType<typeof newHistogram>) {
  const counts: Array<[number, number]> = [];
  for (let i = 0; i < (h as unknown as { countsArrayLength: number }).countsArrayLength; i++) {
    const n = (h as unknown as { getCountAtIndex(i: number): number }).getCountAtIndex(i);
    if (n) counts.push([i, n]);
  }
  return {
    counts,
    total: h.totalCount,
    min: h.minNonZeroValue,
    max: h.maxValue,
    percentiles: [0, 50, 90, 99, 99.9, 100].map((q) => h.getValueAtPercentile(q)),
  };
}

describe('addEncodedHistogram', () => {
  it(
    'adds what the library’s decode and add give, for every shape, encoded by either, into an empty or a ' +
      'fuller one',
    () => {
      const shapes = () => {
        const long = newHistogram();
        for (let i = 0; i < 20_000; i++) long.recordValue(Math.round(300 + 2000 * -Math.log(1 - (i + 0.5) / 20_000)));
        long.recordValue(30_000_000); // the counts reach far: the histogram added into grows
        long.recordValueWithCount(1200, 2 ** 33); // a count beyond 32 bits
        const perSecond = hdr.build({ bitBucketSize: 32, autoResize: true, numberOfSignificantValueDigits: 3 });
        for (let i = 1; i <= 200; i++) perSecond.recordValue(i * 97);
        const zeros = newHistogram();
        for (let i = 0; i < 1000; i++) zeros.recordValue(0); // only the value 0: no lowest non-zero value
        zeros.recordValue(0);
        const one = newHistogram();
        one.recordValue(1);
        const twoDigits = hdr.build({ bitBucketSize: 64, autoResize: true, numberOfSignificantValueDigits: 2 });
        twoDigits.recordValue(12_345); // another layout: through the library
        // A range set when built, far beyond its values: the library adds it value by value.
        const wide = hdr.build({ bitBucketSize: 64, highestTrackableValue: 3.6e9, numberOfSignificantValueDigits: 3 });
        wide.recordValue(40_000_000);
        wide.recordValue(333);
        return [long, perSecond, zeros, one, newHistogram(), twoDigits, wide];
      };
      const base = () => {
        const h = newHistogram();
        for (const us of [5, 700, 900, 40_000]) h.recordValue(us);
        return h;
      };
      for (const encode of [
        encodeHistogram,
        (h: ReturnType<typeof newHistogram>) => hdr.encodeIntoCompressedBase64(h),
      ]) {
        for (const into of [newHistogram, base]) {
          const ours = into();
          const theirs = into();
          for (const h of shapes()) {
            const encoded = encode(h);
            addEncodedHistogram(ours, encoded);
            theirs.add(hdr.decodeFromCompressedBase64(encoded, 64, false));
            expect(seen(ours)).toEqual(seen(theirs));
          }
          expect(ours.totalCount).toBe(2 ** 33 + 20_001 + 200 + 1001 + 1 + 1 + 2 + (into === base ? 4 : 0));
        }
      }
    },
  );

  it(
    'refuses what is not an encoded histogram, and what does not fit a histogram that cannot grow, as the ' +
      'library does',
    () => {
      expect(() => addEncodedHistogram(newHistogram(), Buffer.from('not a histogram').toString('base64'))).toThrow();
      const small = () =>
        hdr.build({
          bitBucketSize: 64,
          autoResize: false,
          highestTrackableValue: 1000,
          numberOfSignificantValueDigits: 3,
        });
      const far = newHistogram();
      far.recordValue(50_000);
      expect(() => small().add(hdr.decodeFromCompressedBase64(encodeHistogram(far), 64, false))).toThrow('range');
      expect(() => addEncodedHistogram(small(), encodeHistogram(far))).toThrow('range');
    },
  );
});
