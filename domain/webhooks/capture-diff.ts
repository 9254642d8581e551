// What changed between two captured requests: method, path, query and headers by name (added,
// removed, changed), and the body: JSON bodies by JSON Pointer (microdiff; arrays index by index),
// other text as a unified line diff (jsdiff), binary bodies by their bytes. Headers that differ on
// every delivery (date, content-length, trace ids) are left out unless the caller names its own list.
// The body's part is bounded in work (edits, time, nesting) and in size (MAX_BODY_DIFF_CHARS); it takes
// up to a second over two 1 MiB bodies, so the service runs it on a thread of its own (capture-diff-threads.ts).
import { isDeepStrictEqual } from 'node:util';
import { structuredPatch } from 'diff';
import microdiff from 'microdiff';
import {
  headOf,
  jsonText,
  MAX_JSON_DEPTH,
  nestedDeeper,
  pointerToken,
  type JsonValue,
} from '../../lib/webhooks/json-pointer.ts';
import type { StoredCapture } from '../../lib/webhooks/webhook-resend.ts';

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
/** Past this many line edits (or this long), a text diff is given up: `patch` is null, `reason` says why. */
export const MAX_EDIT_LINES = 5_000;
export const TEXT_DIFF_MS = 500;
/** At most this many changes of a JSON body are listed (`truncated` says when there were more). */
export const MAX_BODY_CHANGES = 1_000;
/**
 * The body's part of a diff is at most this many characters: of `patch`, or of the changes' pointers
 * and values as JSON (`truncated` says when there was more). Unbounded, two 1 MiB bodies that differ
 * everywhere made a 2 MiB patch, and 1,000 changes under one long name pointers of a gigabyte; this
 * bound keeps what the event loop does with the answer (read it, write it, show it) to milliseconds.
 */
export const MAX_BODY_DIFF_CHARS = 256 * 1024;

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
  | { format: 'text'; same: boolean; patch: string | null; truncated: boolean; reason?: string }
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

/**
 * The body as JSON, its objects without a prototype (microdiff looks names up with `in`); null when it
 * is not JSON, or nests deeper than MAX_JSON_DEPTH (microdiff and the answer's writer recurse).
 */
const parseJson = (text: string | null): { value: JsonValue } | null => {
  if (text === null || nestedDeeper(text, MAX_JSON_DEPTH)) return null;
  try {
    return {
      value: JSON.parse(text, (_k, v) =>
        v !== null && typeof v === 'object' && !Array.isArray(v) ? Object.setPrototypeOf(v, null) : v,
      ) as JsonValue,
    };
  } catch {
    return null;
  }
};

/** The changes from `a` to `b` by pointer: the first MAX_BODY_CHANGES, within MAX_BODY_DIFF_CHARS. */
function jsonChanges(a: JsonValue, b: JsonValue): { changes: BodyChange[]; truncated: boolean } {
  const objects = (v: JsonValue) => v !== null && typeof v === 'object';
  // An object and an array are not the same, whatever their entries: one change at the whole.
  const found =
    !objects(a) || !objects(b) || Array.isArray(a) !== Array.isArray(b)
      ? isDeepStrictEqual(a, b)
        ? []
        : [{ type: 'CHANGE' as const, path: [], oldValue: a, value: b }]
      : microdiff(a as object, b as object, { cyclesFix: false });
  const changes: BodyChange[] = [];
  let size = 0;
  for (const d of found) {
    if (changes.length === MAX_BODY_CHANGES) return { changes, truncated: true };
    const pointer = d.path.map((p) => `/${pointerToken(p)}`).join('');
    const change: BodyChange =
      d.type === 'CREATE'
        ? { change: 'added', pointer, b: d.value }
        : d.type === 'REMOVE'
          ? { change: 'removed', pointer, a: d.oldValue }
          : { change: 'changed', pointer, a: d.oldValue, b: d.value };
    // Values within MAX_JSON_DEPTH: JSON.stringify writes them (each one once, a part of a body).
    size +=
      pointer.length +
      ('a' in change ? jsonText(change.a)!.length : 0) +
      ('b' in change ? jsonText(change.b)!.length : 0);
    if (size > MAX_BODY_DIFF_CHARS) return { changes, truncated: true };
    changes.push(change);
  }
  return { changes, truncated: false };
}

const lineCount = (text: string) => {
  let n = text.length && !text.endsWith('\n') ? 1 : 0;
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) n++;
  return n;
};

/** Unified diff hunks (3 lines of context) from `s` to `t`, at most MAX_BODY_DIFF_CHARS of them. */
function textDiff(s: string, t: string): BodyDiff {
  const began = Date.now();
  const patch = structuredPatch('a', 'b', s, t, undefined, undefined, {
    context: 3,
    maxEditLength: MAX_EDIT_LINES,
    timeout: TEXT_DIFF_MS,
  });
  if (!patch) {
    const [bytesS, bytesT] = [Buffer.byteLength(s), Buffer.byteLength(t)];
    const sizes = `${bytesS} and ${bytesT} bytes, ${lineCount(s)} and ${lineCount(t)} lines`;
    return {
      format: 'text',
      same: false,
      patch: null,
      truncated: false,
      reason:
        Date.now() - began >= TEXT_DIFF_MS
          ? `the texts (${sizes}) took more than ${TEXT_DIFF_MS} ms to compare line by line: not compared`
          : `the texts (${sizes}) differ in more than ${MAX_EDIT_LINES} lines: too different to diff line by line`,
    };
  }
  let out = '';
  for (const h of patch.hunks) {
    for (const line of [`@@ -${h.oldStart},${h.oldLines} +${h.newStart},${h.newLines} @@`, ...h.lines]) {
      if (out.length + line.length + 1 > MAX_BODY_DIFF_CHARS) {
        // A line that does not fit: its beginning, to the bound.
        out += headOf(line, MAX_BODY_DIFF_CHARS - out.length);
        return { format: 'text', same: false, patch: out, truncated: true };
      }
      out += `${line}\n`;
    }
  }
  return { format: 'text', same: false, patch: out, truncated: false };
}

/** How the bodies of `a` and `b` differ: the part of a diff that is bounded in work and size, and may run apart. */
export function bodyDiff(a: BodySide, b: BodySide): BodyDiff {
  if (a.bodyEncoding === 'base64' || b.bodyEncoding === 'base64') {
    const bytes = (s: BodySide) => Buffer.from(s.body ?? '', s.bodyEncoding === 'base64' ? 'base64' : 'utf8');
    const [x, y] = [bytes(a), bytes(b)];
    return { format: 'binary', same: x.equals(y), a_size: x.length, b_size: y.length };
  }
  const [s, t] = [a.body ?? '', b.body ?? ''];
  const [x, y] = [parseJson(a.body), parseJson(b.body)];
  if (x && y) {
    const { changes, truncated } = jsonChanges(x.value, y.value);
    return { format: 'json', same: changes.length === 0 && !truncated, changes, truncated };
  }
  if (s === t) return { format: 'text', same: true, patch: '', truncated: false };
  return textDiff(s, t);
}

/** What of a capture the body's diff reads. */
export type BodySide = Pick<DiffSide, 'body' | 'bodyEncoding'>;

/**
 * How capture `b` differs from capture `a`; headers named in `ignore` (lower-case) are left out.
 * `body`: the bodies' diff when it was made apart (capture-diff-threads.ts), else made here.
 */
export function diffCaptures(
  a: DiffSide,
  b: DiffSide,
  ignore: readonly string[] = DEFAULT_IGNORED_HEADERS,
  body: BodyDiff = bodyDiff(a, b),
): CaptureDiff {
  const skip = new Set(ignore);
  const kept = (h: Record<string, string>) => Object.fromEntries(Object.entries(h).filter(([k]) => !skip.has(k)));
  const query = (s: DiffSide) => (s.queryParams ? (JSON.parse(s.queryParams) as Record<string, Value>) : {});
  const diff = {
    method: a.method === b.method ? null : { a: a.method, b: b.method },
    path: a.path === b.path ? null : { a: a.path, b: b.path },
    query: named(query(a), query(b)),
    headers: { ...named(kept(a.headers), kept(b.headers)), ignored: [...skip].sort() },
    body,
  };
  const same = !diff.method && !diff.path && none(diff.query) && none(diff.headers) && diff.body.same;
  return { same, ...diff };
}
