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

/**
 * What addEncodedHistogram reads and calls of hdr-histogram-js's histograms (JsHistogram: not in the Histogram
 * interface).
 */
interface Target {
  autoResize: boolean;
  numberOfSignificantValueDigits: number;
  lowestDiscernibleValue: number;
  lowestDiscernibleValueRounded: number;
  unitMagnitudeMask: number;
  countsArrayLength: number;
  totalCount: number;
  maxValue: number;
  minNonZeroValue: number;
  bucketCount: number;
  getBucketsNeededToCoverValue(value: number): number;
  valueFromIndex(index: number): number;
  highestEquivalentValue(value: number): number;
  resize(highestTrackableValue: number): void;
  addToCountAtIndex(index: number, count: number): void;
  setTotalCount(count: number): void;
  updatedMaxValue(value: number): void;
  updateMinNonZeroValue(value: number): void;
}

/** The non-zero counts read from an encoding, by index (reused from one call to the next). */
let found = { index: new Int32Array(4096), count: new Float64Array(4096) };

/**
 * Adds a histogram in the compressed V2 encoding (encodeHistogram's, or the library's) to `into`,
 * with what `into.add(hdr.decodeFromCompressedBase64(encoded, 64, false))` gives (its counts, total,
 * maximum and lowest non-zero value), without building the decoded histogram (a counts array sized
 * for its highest trackable value, filled a byte at a time: three quarters of a merge's time). One
 * with another layout (significant digits, lowest value) goes through the library.
 */
export function addEncodedHistogram(into: Histogram, encoded: string): void {
  const t = into as unknown as Target;
  const raw = Buffer.from(encoded, 'base64');
  const v2 =
    raw.length >= 8 && raw.readInt32BE(0) === V2_COMPRESSED_COOKIE
      ? zlib.inflateSync(raw.subarray(8, 8 + raw.readInt32BE(4)))
      : null;
  if (
    !v2 ||
    v2.length < HEADER_BYTES ||
    v2.readInt32BE(0) !== V2_COOKIE ||
    v2.readInt32BE(12) !== t.numberOfSignificantValueDigits ||
    readInt64(v2, 16) !== t.lowestDiscernibleValue
  ) {
    into.add(hdr.decodeFromCompressedBase64(encoded, 64, false));
    return;
  }
  const end = Math.min(v2.length, HEADER_BYTES + v2.readInt32BE(4));
  let p = HEADER_BYTES;
  let index = 0;
  let n = 0;
  let { index: indexes, count: counts } = found;
  let total = 0;
  let minIndex = -1;
  while (p < end) {
    // LEB128 (7 bits a byte, the ninth byte's 8 whole), then ZigZag: a negative value is a run of zeros.
    let z = v2[p++]!;
    if (z >= 0x80) {
      z &= 0x7f;
      let scale = 0x80;
      for (let k = 1; k < 9 && p < end; k++) {
        const b = v2[p++]!;
        if (k === 8) {
          z += b * scale;
          break;
        }
        z += (b & 0x7f) * scale;
        scale *= 0x80;
        if (b < 0x80) break;
      }
    }
    const value = z < 0x80000000 ? (z >>> 1) ^ -(z & 1) : z % 2 === 0 ? z / 2 : -(z + 1) / 2;
    if (value < 0) {
      index -= value;
      continue;
    }
    if (value > 0) {
      if (n === indexes.length) {
        found = { index: new Int32Array(2 * n), count: new Float64Array(2 * n) };
        found.index.set(indexes);
        found.count.set(counts);
        ({ index: indexes, count: counts } = found);
      }
      indexes[n] = index;
      counts[n++] = value;
      total += value;
      if (minIndex === -1 && index !== 0) minIndex = index;
    }
    index += 1;
  }
  if (n === 0) return;
  // As the library's add of its decoded histogram: grown to the other's maximum, the counts added
  // index by index (the same layout), then the total, maximum and lowest non-zero value.
  const top = t.valueFromIndex(indexes[n - 1]!);
  const otherMax = t.highestEquivalentValue(top) + t.unitMagnitudeMask;
  if (t.highestEquivalentValue(t.valueFromIndex(t.countsArrayLength - 1)) < otherMax) {
    if (!t.autoResize)
      throw new Error("The other histogram includes values that do not fit in this histogram's range.");
    t.resize(otherMax);
  }
  for (let k = 0; k < n; k++) t.addToCountAtIndex(indexes[k]!, counts[k]!);
  t.setTotalCount(t.totalCount + total);
  // The library adds a histogram whose range (its header's highest trackable value) spans other
  // buckets than this one's value by value instead: its maximum then counts as the lowest of its bucket.
  if (t.bucketCount === t.getBucketsNeededToCoverValue(readInt64(v2, 24)))
    t.updatedMaxValue(Math.max(t.maxValue, otherMax));
  else if (top > t.maxValue) t.updatedMaxValue(top);
  const lowest = minIndex === -1 ? 0 : t.valueFromIndex(minIndex);
  const otherMin =
    lowest <= t.unitMagnitudeMask
      ? Number.MAX_VALUE
      : Math.floor(lowest / t.lowestDiscernibleValueRounded) * t.lowestDiscernibleValueRounded;
  t.updateMinNonZeroValue(Math.min(t.minNonZeroValue, otherMin));
}

function readInt64(buf: Buffer, at: number): number {
  return buf.readUInt32BE(at) * TWO_POW_32 + buf.readUInt32BE(at + 4);
}
