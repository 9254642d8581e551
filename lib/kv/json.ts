// JSON values in the key-value store, read back checked against their shape: a value that is not
// JSON, or not of its shape (written by an older release, or by hand), reads as absent, with a
// warning naming what it was, so that a cache computes its answer again and a session asks to sign
// in again, never a crash or a wrong type further on. The warning names the kind of value, not its
// key, which may hold a secret (a session's token).
import { z } from 'zod';
import type { KvStore } from './kv-store.ts';

/**
 * The JSON value at `key` checked against `schema`; null when there is none, or when it is not JSON or
 * not of the shape (`what` names the value in the warning then).
 */
export async function getJson<T>(
  kv: KvStore,
  key: string,
  schema: z.ZodType<T, unknown>,
  what: string,
): Promise<T | null> {
  const raw = await kv.get(key);
  if (raw === null) return null;
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    process.emitWarning(`a stored ${what} is not JSON: read as absent`, { code: 'NETOPS_KV_VALUE' });
    return null;
  }
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const why = z.prettifyError(parsed.error);
  process.emitWarning(`a stored ${what} does not hold its shape, read as absent: ${why}`, { code: 'NETOPS_KV_VALUE' });
  return null;
}
