// JSON Pointers (RFC 6901): `/a/b~1c/0` names a value inside a JSON document; "" is the whole of it.
// Read by response rules and their placeholders; written by the captures' diffs.

export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

/** Why `pointer` is not a JSON Pointer, or null when it is one. */
export function pointerProblem(pointer: string): string | null {
  if (pointer !== '' && !pointer.startsWith('/')) return 'must be a JSON Pointer: "" or starting with "/" (RFC 6901)';
  if (/~(?![01])/.test(pointer)) return 'must escape "~" as "~0" and "/" as "~1" inside a name (RFC 6901)';
  return null;
}

/** A pointer's names, unescaped (parse once what is read many times). */
export const pointerTokens = (pointer: string): string[] =>
  pointer === ''
    ? []
    : pointer
        .slice(1)
        .split('/')
        .map((t) => t.replace(/~1/g, '/').replace(/~0/g, '~'));

/** The value at `pointer` (or its tokens) in `doc` ({value}), or undefined when there is none. */
export function getPointer(doc: JsonValue, pointer: string | readonly string[]): { value: JsonValue } | undefined {
  let at: JsonValue = doc;
  for (const token of typeof pointer === 'string' ? pointerTokens(pointer) : pointer) {
    if (Array.isArray(at)) {
      // An index is digits without a leading zero (RFC 6901 section 4); "-" (past the end) names nothing.
      if (!/^(0|[1-9]\d*)$/.test(token) || Number(token) >= at.length) return undefined;
      at = at[Number(token)]!;
    } else if (at !== null && typeof at === 'object' && Object.hasOwn(at, token)) {
      at = at[token]!;
    } else return undefined;
  }
  return { value: at };
}

/** A name as one token of a pointer. */
export const pointerToken = (name: string | number) => String(name).replace(/~/g, '~0').replace(/\//g, '~1');

/** JSON nested deeper than this is taken as no JSON by the rules and the diffs (the writers and walkers recurse). */
export const MAX_JSON_DEPTH = 1_000;

/**
 * Whether JSON `text` nests arrays and objects deeper than `max` levels: one pass over its characters
 * (a few milliseconds a megabyte), run before JSON.parse, which takes a quarter of a second over a
 * megabyte of `[[[[...`.
 */
export function nestedDeeper(text: string, max = MAX_JSON_DEPTH): boolean {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      // A string: to its closing quote, over escaped characters.
      for (i++; i < text.length; i++) {
        const d = text.charCodeAt(i);
        if (d === 0x5c) i++;
        else if (d === 0x22) break;
      }
    } else if (c === 0x5b || c === 0x7b) {
      if (++depth > max) return true;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return false;
}

/** JSON text of a value, or undefined for one too deeply nested to write (never a throw on a sender's data). */
export function jsonText(value: JsonValue): string | undefined {
  try {
    return JSON.stringify(value);
  } catch {
    return undefined;
  }
}

/** `text`'s first `max` characters, a surrogate pair never cut in two (one fewer then). */
export function headOf(text: string, max: number): string {
  if (text.length <= max) return text;
  const code = text.charCodeAt(max - 1);
  return text.slice(0, code >= 0xd800 && code <= 0xdbff ? max - 1 : max);
}

/**
 * `text` JSON-escaped (as between quotes), at most its first `max` characters of escapes: the work is bounded by `max`.
 */
export function escapedHead(text: string, max: number): string {
  const escaped = JSON.stringify(headOf(text, max)).slice(1, -1);
  return escaped.length > max ? escaped.slice(0, max) : escaped;
}

/**
 * The first `max` characters of `value`'s JSON text, the same characters as JSON.stringify's, written
 * without recursion and stopping there: the work is bounded by `max` (and by the names of the objects
 * it opens), whatever the value's size or depth, and a value too deep for JSON.stringify is written
 * too. `names` keeps each object's names for the next call over the same values (a request's).
 */
export function jsonHead(value: JsonValue, max: number, names = new WeakMap<object, readonly string[]>()): string {
  let out = '';
  // The arrays and objects open, innermost last: each one's names (null for an array) and next index.
  const open: Array<JsonValue[] | { [key: string]: JsonValue }> = [];
  const openNames: Array<readonly string[] | null> = [];
  const next: number[] = [];
  let v: JsonValue | undefined = value;
  for (;;) {
    if (v !== undefined) {
      if (v === null || typeof v !== 'object')
        out += typeof v === 'string' ? `"${escapedHead(v, max - out.length)}"` : JSON.stringify(v);
      else {
        let keys: readonly string[] | null = null;
        if (!Array.isArray(v)) {
          keys = names.get(v) ?? null;
          if (!keys) {
            keys = Object.keys(v);
            names.set(v, keys);
          }
        }
        out += keys ? '{' : '[';
        open.push(v);
        openNames.push(keys);
        next.push(0);
      }
      v = undefined;
    }
    const top = open.length - 1;
    if (top < 0 || out.length >= max) break;
    const keys = openNames[top]!;
    const container = open[top]!;
    const i = next[top]!;
    if (i === (keys ? keys.length : (container as JsonValue[]).length)) {
      out += keys ? '}' : ']';
      open.pop();
      openNames.pop();
      next.pop();
      continue;
    }
    next[top] = i + 1;
    if (i > 0) out += ',';
    if (keys) {
      out += `"${escapedHead(keys[i]!, max - out.length)}":`;
      if (out.length < max) v = (container as { [key: string]: JsonValue })[keys[i]!]!;
    } else v = (container as JsonValue[])[i]!;
  }
  return out.length > max ? out.slice(0, max) : out;
}
