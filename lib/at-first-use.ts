// A package loaded by the first call that needs it, not with the module that names it: a process that
// never uses it (embedded, without S3 or Redis; no page audited, no address placed yet) does without its
// heap. The import graph test (test/unit/workers/all.test.ts) holds the service's start to that.
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

/**
 * A function that loads `specifier` at its first call and returns the same module after. A load that
 * throws (a broken install) throws to that caller, and is tried again at the next call.
 */
export function atFirstUse<T>(specifier: string): () => T {
  let loaded: T | undefined;
  return () => {
    loaded ??= require(specifier) as T;
    return loaded;
  };
}
