// What makes an owner's JSON Schema unfit to check with, found without compiling it: linear in its
// size, fit for the event loop and for the command line (no Ajv here). Compiling, which can take
// seconds for a 64 KiB schema, happens on the checker's threads (lib/json-schema/json-schema-check.ts).

const MAX_SCHEMA_BYTES = 64 * 1024;
const MAX_DEPTH = 32;
const MAX_UNIQUE_ITEMS = 1_000;

/** Where a schema asks for unique items of an array it does not bound (each pair is compared), or null. */
function unboundedUnique(value: unknown, at = ''): string | null {
  if (value === null || typeof value !== 'object') return null;
  const o = value as Record<string, unknown>;
  if (
    !Array.isArray(value) &&
    o.uniqueItems === true &&
    !(typeof o.maxItems === 'number' && o.maxItems <= MAX_UNIQUE_ITEMS)
  )
    return at || '/';
  for (const [k, v] of Object.entries(value)) {
    const found = unboundedUnique(v, `${at}/${k}`);
    if (found) return found;
  }
  return null;
}

function depth(value: unknown, at = 0): number {
  if (value === null || typeof value !== 'object' || at > MAX_DEPTH) return at;
  let most = at;
  for (const v of Object.values(value)) most = Math.max(most, depth(v, at + 1));
  return most;
}

/**
 * Why a schema cannot be used, found without compiling it (linear in its size: fit for the event
 * loop), or null. Compiling can take seconds for a 64 KiB schema: that happens on the checker's threads.
 */
export function schemaProblem(schema: unknown): string | null {
  if (schema === null || typeof schema !== 'object' || Array.isArray(schema)) return 'must be a JSON Schema object';
  if (Buffer.byteLength(JSON.stringify(schema)) > MAX_SCHEMA_BYTES) return 'must be at most 64 KiB as JSON';
  if (depth(schema) > MAX_DEPTH) return `must nest at most ${MAX_DEPTH} levels deep`;
  const unique = unboundedUnique(schema);
  if (unique)
    return (
      `must give uniqueItems a maxItems of at most ${MAX_UNIQUE_ITEMS} (at ${unique}): it compares every ` +
      `pair of items`
    );
  return null;
}
