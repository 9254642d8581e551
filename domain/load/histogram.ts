// The one histogram of load tests: HDR, microseconds, 3 significant digits, growing as needed; and its
// encoding, HdrHistogram's compressed V2 format (what hdr-histogram-js decodes), written here because
// a shard encodes its histograms every second: the library's encoder puts each byte through a growing
// buffer and takes ~4 times as long, which was most of a shard's reporting cost.
//
// V2 (HdrHistogram's own encoder is the reference): a header of cookie 0x1c849313, payload length,
// normalizing offset, significant digits (int32 each), lowest discernible and highest trackable value
// and the integer-to-double ratio (int64 each), all big-endian; then the counts from index 0 to the
// maximum's, each a ZigZag LEB128 (9 bytes at most) long, a run of N > 1 zeros written as -N. The
// compressed form is cookie 0x1c849314, the deflated length (int32), and the zlib-deflated V2 bytes.
// Deflated with Huffman codes only (no search for repeats, which the run-length form leaves few of):
// any zlib reader inflates it, and for a shard's histograms it is faster than zlib's default level
// and about as small (bench:shard-scale, docs/benchmarks.md).
import zlib from 'node:zlib';
import hdr from 'hdr-histogram-js';

export function newHistogram() {
  return hdr.build({ bitBucketSize: 64, autoResize: true, numberOfSignificantValueDigits: 3, useWebAssembly: false });
}

type Histogram = ReturnType<typeof hdr.build>;

/**
 * What the encoder reads of hdr-histogram-js's histograms (JsHistogram: not in the Histogram
 * interface); a typed-array histogram's counts directly (a call per index was most of the time).
 */
interface Counts {
  countsArrayIndex(value: number): number;
  getCountAtIndex(index: number): number;
  lowestDiscernibleValue: number;
  highestTrackableValue: number;
  _counts?: ArrayLike<number>;
}

const V2_COOKIE = 0x1c849313;
const V2_COMPRESSED_COOKIE = 0x1c849314;
const HEADER_BYTES = 40;
const HUFFMAN_ONLY = { strategy: zlib.constants.Z_HUFFMAN_ONLY };
const TWO_POW_32 = 2 ** 32;
let scratch = Buffer.alloc(64 * 1024);

function writeInt64(buf: Buffer, value: number, at: number) {
  buf.writeUInt32BE(Math.floor(value / TWO_POW_32) >>> 0, at);
  buf.writeUInt32BE(value >>> 0, at + 4);
}

/** `h` in HdrHistogram's compressed V2 encoding, base64: what hdr.encodeIntoCompressedBase64 gives, faster. */
export function encodeHistogram(h: Histogram): string {
  const c = h as unknown as Counts;
  const limit = c.countsArrayIndex(h.maxValue) + 1;
  const counts: ArrayLike<number> = c._counts ?? Array.from({ length: limit }, (_, i) => c.getCountAtIndex(i));
  if (scratch.length < HEADER_BYTES + 9 * limit) scratch = Buffer.alloc(HEADER_BYTES + 9 * limit);
  const buf = scratch;
  let p = HEADER_BYTES;
  let i = 0;
  while (i < limit) {
    let value = counts[i++]!;
    if (value === 0) {
      let zeros = 1;
      while (i < limit && counts[i] === 0) {
        zeros++;
        i++;
      }
      if (zeros > 1) value = -zeros;
    }
    let z = value >= 0 ? value * 2 : -value * 2 - 1; // ZigZag
    // LEB128, 7 bits a byte (a count never reaches the 9-byte form's 2^56).
    while (z >= 0x80) {
      buf[p++] = (z % 0x80) | 0x80;
      z = Math.floor(z / 0x80);
    }
    buf[p++] = z;
  }
  buf.writeInt32BE(V2_COOKIE, 0);
  buf.writeInt32BE(p - HEADER_BYTES, 4);
  buf.writeInt32BE(1, 8);
  buf.writeInt32BE(h.numberOfSignificantValueDigits, 12);
  writeInt64(buf, c.lowestDiscernibleValue, 16);
  writeInt64(buf, c.highestTrackableValue, 24);
  writeInt64(buf, 1, 32);
  const deflated = zlib.deflateSync(buf.subarray(0, p), HUFFMAN_ONLY);
  const out = Buffer.allocUnsafe(8 + deflated.length);
  out.writeInt32BE(V2_COMPRESSED_COOKIE, 0);
  out.writeInt32BE(deflated.length, 4);
  deflated.copy(out, 8);
  return out.toString('base64');
}
