// A SQL text as Postgres reads it, for the embedded database's socket (pglite-socket.ts), which
// looks at a statement before PGlite runs it.

/** A dollar quote's opening tag at `at`: `$$` or `$name$` (not a parameter such as `$1`); null when none is. */
function dollarTagAt(text: string, at: number): string | null {
  const tag = /\$(?:[A-Za-z_][A-Za-z0-9_]*)?\$/y;
  tag.lastIndex = at;
  return tag.exec(text)?.[0] ?? null;
}

/**
 * `text` with each comment as a space: `--` to the line's end, and block comments, which nest in
 * Postgres (`/* a /* b *\/ c *\/`). String literals (with `''`, and in `E'...'` backslash, escapes),
 * quoted identifiers and dollar-quoted strings are kept whole, so a comment's marks inside them are
 * text. One pass over the text.
 */
export function withoutComments(text: string): string {
  let out = '';
  let i = 0;
  const special = /--|\/\*|['"$]/g; // where a comment, a string or a dollar quote may start
  while (i < text.length) {
    special.lastIndex = i;
    const next = special.exec(text)?.index ?? text.length;
    out += text.slice(i, next); // plain text up to there, in one piece
    i = next;
    if (i >= text.length) break;
    const two = text.slice(i, i + 2);
    const tag = text[i] === '$' ? dollarTagAt(text, i) : null;
    if (two === '--') {
      const end = text.indexOf('\n', i);
      i = end < 0 ? text.length : end;
      out += ' ';
    } else if (two === '/*') {
      let depth = 0;
      while (i < text.length) {
        const at = text.slice(i, i + 2);
        if (at === '/*') depth += 1;
        else if (at === '*/') depth -= 1;
        i += at === '/*' || at === '*/' ? 2 : 1;
        if (depth === 0) break;
      }
      out += ' ';
    } else if (text[i] === "'" || text[i] === '"') {
      const quote = text[i]!;
      const escapes = quote === "'" && /[Ee]/.test(text[i - 1] ?? '') && !/[\w$]/.test(text[i - 2] ?? '');
      let j = i + 1;
      while (j < text.length) {
        if (escapes && text[j] === '\\') j += 2;
        else if (text[j] === quote && text[j + 1] === quote) j += 2;
        else if (text[j] === quote) break;
        else j += 1;
      }
      out += text.slice(i, j + 1);
      i = j + 1;
    } else if (tag) {
      const end = text.indexOf(tag, i + tag.length);
      const to = end < 0 ? text.length : end + tag.length;
      out += text.slice(i, to);
      i = to;
    } else {
      out += text[i];
      i += 1;
    }
  }
  return out;
}
