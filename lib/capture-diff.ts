// What changed between two captured requests: method, path, query and headers by name (added,
// removed, changed), and the body: JSON bodies by JSON Pointer (microdiff; arrays index by index),
// other text as a unified line diff (jsdiff), binary bodies by their bytes. Headers that differ on
// every delivery (date, content-length, trace ids) are left out unless the caller names its own list.
import { isDeepStrictEqual } from 'node:util';
import { structuredPatch } from 'diff';
import microdiff from 'microdiff';
import { pointerToken, type JsonValue } from './json-pointer.ts';
import type { StoredCapture } from './webhook-resend.ts';

/** Headers that differ between any two deliveries, left out of a diff unless the caller names others. */
export const DEFAULT_IGNORED_HEADERS = [
  'date',
  'content-length',
  'x-request-id',
  'x-amzn-trace-id',
  'traceparent',
  'tracestate',
  'cf-ray',
  'x-forwarded-for',
  'x-real-ip',
] as const;
/** Past this many line edits (or this long), a text diff is given up: `patch` is null. */
const MAX_EDIT_LINES = 5_000;
const TEXT_DIFF_MS = 500;
/** At most this many changes of a JSON body are listed (`truncated` says when there were more). */
export const MAX_BODY_CHANGES = 1_000;

/** A capture as the diff reads it (the stored fields). */
export type DiffSide = StoredCapture;

type Value = string | string[];
export interface NamedChanges<V> {
  added: Record<string, V>;
  removed: Record<string, V>;
  changed: Record<string, { a: V; b: V }>;
}
export type BodyChange =
  | { change: 'added'; pointer: string; b: JsonValue }
  | { change: 'removed'; pointer: string; a: JsonValue }
  | { change: 'changed'; pointer: string; a: JsonValue; b: JsonValue };
export type BodyDiff =
  | { format: 'json'; same: boolean; changes: BodyChange[]; truncated: boolean }
  | { format: 'text'; same: boolean; patch: string | null }
  | { format: 'binary'; same: boolean; a_size: number; b_size: number };

export interface CaptureDiff {
  same: boolean;
  method: { a: string; b: string } | null;
  path: { a: string; b: string } | null;
  query: NamedChanges<Value>;
  headers: NamedChanges<string> & { ignored: string[] };
  body: BodyDiff;
}

/** An object without a prototype: a name such as __proto__ or constructor is data like any other. */
const bare = <T>(): Record<string, T> => Object.create(null);

function named<V>(a: Record<string, V>, b: Record<string, V>): NamedChanges<V> {
  const out: NamedChanges<V> = { added: bare(), removed: bare(), changed: bare() };
  for (const [k, v] of Object.entries(a)) {
    if (!Object.hasOwn(b, k)) out.removed[k] = v;
    else if (!isDeepStrictEqual(v, b[k])) out.changed[k] = { a: v, b: b[k]! };
  }
  for (const [k, v] of Object.entries(b)) if (!Object.hasOwn(a, k)) out.added[k] = v;
  return out;
}
const none = (c: NamedChanges<unknown>) =>
  !Object.keys(c.added).length && !Object.keys(c.removed).length && !Object.keys(c.changed).length;

/** The body as JSON, its objects without a prototype (microdiff looks names up with `in`). */
const parseJson = (text: string | null): { value: JsonValue } | null => {
  if (text === null) return null;
  try {
    return {
      value: JSON.parse(text, (_k, v) =>
        v !== null && typeof v === 'object' && !Array.isArray(v) ? Object.assign(bare(), v) : v,
      ) as JsonValue,
    };
  } catch {
    return null;
  }
};

/** The changes from `a` to `b` by pointer, or null when they cannot be walked (nested deeper than the stack). */
function jsonChanges(a: JsonValue, b: JsonValue): BodyChange[] | null {
  const objects = (v: JsonValue) => v !== null && typeof v === 'object';
  // An object and an array are not the same, whatever their entries: one change at the whole.
  if (!objects(a) || !objects(b) || Array.isArray(a) !== Array.isArray(b))
    return isDeepStrictEqual(a, b) ? [] : [{ change: 'changed', pointer: '', a, b }];
  try {
    return microdiff(a as object, b as object).map((d) => {
      const pointer = d.path.map((p) => `/${pointerToken(p)}`).join('');
      if (d.type === 'CREATE') return { change: 'added', pointer, b: d.value };
      if (d.type === 'REMOVE') return { change: 'removed', pointer, a: d.oldValue };
      return { change: 'changed', pointer, a: d.oldValue, b: d.value };
    });
  } catch {
    return null;
  }
}

function bodyDiff(a: DiffSide, b: DiffSide): BodyDiff {
  if (a.bodyEncoding === 'base64' || b.bodyEncoding === 'base64') {
    const bytes = (s: DiffSide) => Buffer.from(s.body ?? '', s.bodyEncoding === 'base64' ? 'base64' : 'utf8');
    const [x, y] = [bytes(a), bytes(b)];
    return { format: 'binary', same: x.equals(y), a_size: x.length, b_size: y.length };
  }
  const [x, y] = [parseJson(a.body), parseJson(b.body)];
  const changes = x && y ? jsonChanges(x.value, y.value) : null;
  if (changes)
    return {
      format: 'json',
      same: changes.length === 0,
      changes: changes.slice(0, MAX_BODY_CHANGES),
      truncated: changes.length > MAX_BODY_CHANGES,
    };
  const [s, t] = [a.body ?? '', b.body ?? ''];
  if (s === t) return { format: 'text', same: true, patch: '' };
  const patch = structuredPatch('a', 'b', s, t, undefined, undefined, {
    context: 3,
    maxEditLength: MAX_EDIT_LINES,
    timeout: TEXT_DIFF_MS,
  });
  return {
    format: 'text',
    same: false,
    patch: patch
      ? patch.hunks
          .map((h) => `@@ -${h.oldStart},${h.oldLines} +${h.newStart},${h.newLines} @@\n${h.lines.join('\n')}\n`)
          .join('')
      : null,
  };
}

/** How capture `b` differs from capture `a`; headers named in `ignore` (lower-case) are left out. */
export function diffCaptures(
  a: DiffSide,
  b: DiffSide,
  ignore: readonly string[] = DEFAULT_IGNORED_HEADERS,
): CaptureDiff {
  const skip = new Set(ignore);
  const kept = (h: Record<string, string>) => Object.fromEntries(Object.entries(h).filter(([k]) => !skip.has(k)));
  const query = (s: DiffSide) => (s.queryParams ? (JSON.parse(s.queryParams) as Record<string, Value>) : {});
  const diff = {
    method: a.method === b.method ? null : { a: a.method, b: b.method },
    path: a.path === b.path ? null : { a: a.path, b: b.path },
    query: named(query(a), query(b)),
    headers: { ...named(kept(a.headers), kept(b.headers)), ignored: [...skip].sort() },
    body: bodyDiff(a, b),
  };
  const same = !diff.method && !diff.path && none(diff.query) && none(diff.headers) && diff.body.same;
  return { same, ...diff };
}
