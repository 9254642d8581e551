// The histograms' encoder writes what hdr-histogram-js writes (HdrHistogram's compressed V2): the
// same V2 bytes, byte for byte, deflated otherwise (Huffman codes only), so anything that decodes one
// decodes the other.
import zlib from 'node:zlib';
import hdr from 'hdr-histogram-js';
import { describe, expect, it } from 'vitest';
import { encodeHistogram, newHistogram } from '../../../../domain/load/histogram.ts';

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
