// A SQL text as Postgres's lexer reads it, for the embedded database's socket (pglite-socket.ts),
// which looks at a statement's shape before PGlite runs it.

/** A character that may be in an identifier (Postgres: letters, including any non-ASCII, digits, `_`, `$`). */
const IDENTIFIER_CHAR = /[A-Za-z0-9_$\u0080-\uffff]/;

/**
 * A dollar quote's opening tag at `at`: `$$` or `$name$` (its name as an identifier's, without `$`),
 * not a parameter (`$1`) nor a `$` inside an identifier (`a$$`); null when none is.
 */
function dollarTagAt(text: string, at: number): string | null {
  if (at > 0 && IDENTIFIER_CHAR.test(text.charAt(at - 1))) return null;
  const tag = /\$(?:[A-Za-z_\u0080-\uffff][A-Za-z0-9_\u0080-\uffff]*)?\$/y;
  tag.lastIndex = at;
  return tag.exec(text)?.[0] ?? null;
}

/** Where the block comment opening at `at` ends (block comments nest); the text's end when it does not. */
function blockCommentEnd(text: string, at: number): number {
  const marks = /\/\*|\*\//g;
  marks.lastIndex = at;
  let depth = 0;
  for (let m = marks.exec(text); m; m = marks.exec(text)) {
    depth += m[0] === '/*' ? 1 : -1;
    if (depth === 0) return marks.lastIndex;
  }
  return text.length;
}

/** Where the string or quoted name opening at `at` ends (after its closing quote); the text's end when it does not. */
function quotedEnd(text: string, at: number): number {
  const quote = text.charAt(at);
  // E'...' takes backslash escapes (an E that starts a token: not the end of a name such as `date`).
  const escapes = quote === "'" && /[Ee]/.test(text[at - 1] ?? '') && !IDENTIFIER_CHAR.test(text[at - 2] ?? '');
  let j = at + 1;
  while (j < text.length) {
    if (escapes && text[j] === '\\') j += 2;
    else if (text[j] === quote && text[j + 1] === quote) j += 2;
    else if (text[j] === quote) return j + 1;
    else j += 1;
  }
  return text.length;
}

/**
 * `text`'s shape: each comment a space (`--` to the line's end, at `\n` or `\r`; block comments,
 * which nest in Postgres: `/* a /* b *\/ c *\/`), and each string literal (with `''`, and in `E'...'`
 * backslash, escapes), quoted name and dollar-quoted string emptied to its quotes, so that neither a
 * comment's marks nor a `;` inside one is read as the statement's. One pass, plain runs copied whole.
 */
export function sqlShape(text: string): string {
  let out = '';
  let i = 0;
  const special = /--|\/\*|['"$]/g; // where a comment, a quoted text or a dollar quote may start
  while (i < text.length) {
    special.lastIndex = i;
    const next = special.exec(text)?.index ?? text.length;
    out += text.slice(i, next);
    i = next;
    if (i >= text.length) break;
    const two = text.slice(i, i + 2);
    const tag = text[i] === '$' ? dollarTagAt(text, i) : null;
    if (two === '--') {
      const lineEnd = /[\r\n]/g;
      lineEnd.lastIndex = i;
      i = lineEnd.exec(text)?.index ?? text.length;
      out += ' ';
    } else if (two === '/*') {
      i = blockCommentEnd(text, i);
      out += ' ';
    } else if (text[i] === "'" || text[i] === '"') {
      out += text.charAt(i).repeat(2);
      i = quotedEnd(text, i);
    } else if (tag) {
      const end = text.indexOf(tag, i + tag.length);
      i = end < 0 ? text.length : end + tag.length;
      out += tag + tag;
    } else {
      out += text[i];
      i += 1;
    }
  }
  return out;
}
