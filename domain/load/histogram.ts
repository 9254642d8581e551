// The one histogram of load tests: HDR, microseconds, 3 significant digits, growing as needed.
import hdr from 'hdr-histogram-js';

export function newHistogram() {
  return hdr.build({ bitBucketSize: 64, autoResize: true, numberOfSignificantValueDigits: 3, useWebAssembly: false });
}
