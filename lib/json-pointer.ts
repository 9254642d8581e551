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

/** JSON text of a value, or undefined for one too deeply nested to write (never a throw on a sender's data). */
export function jsonText(value: JsonValue): string | undefined {
  try {
    return JSON.stringify(value);
  } catch {
    return undefined;
  }
}
