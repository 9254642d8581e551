// One way to read an HTTP message's headers, for requests we capture and responses we fetch.

/** Lower-case names; a repeated header's values joined with ", " as HTTP allows. */
export function headerObject(rawHeaders: string[]): Record<string, string> {
  const out: Record<string, string> = Object.create(null); // a header named __proto__ is data too
  for (let i = 0; i < rawHeaders.length; i += 2) {
    const name = rawHeaders[i]!.toLowerCase();
    const value = rawHeaders[i + 1]!;
    out[name] = name in out ? `${out[name]}, ${value}` : value;
  }
  return out;
}
