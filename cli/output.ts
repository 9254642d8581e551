// What the command prints: human output on a terminal (colours; tables in table.ts), exactly the API's
// JSON with --json, progress and errors on stderr. Colours only on a terminal and never with NO_COLOR set
// (https://no-color.org); FORCE_COLOR turns them on anywhere. Human output shows what others sent (a
// capture's headers and body, a checked site's headers, WHOIS text) with its control characters made
// visible: only our own colours reach the terminal as codes (see visible).
import pc from 'picocolors';

export type Colors = ReturnType<typeof pc.createColors>;

function colorsOn(stream: NodeJS.WriteStream): boolean {
  const env = process.env;
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  if (env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== '0') return true;
  return stream.isTTY === true && env.TERM !== 'dumb';
}

/** Colours for what goes to stdout, and for what goes to stderr. */
export const out: Colors = pc.createColors(colorsOn(process.stdout));
export const err: Colors = pc.createColors(colorsOn(process.stderr));

/**
 * After an ESC, the colour codes picocolors writes (bold, dim, italic, underline, strikethrough, the
 * foreground colours and their ends): the only codes a terminal is given as they are.
 */
const OUR_COLOUR = /^\[(?:[0-49]|2[2-49]|3\d|9[0-7])m/;
/** C0 and C1 controls and DEL (8-bit CSI, OSC... in some terminals). */
const CONTROL = /\p{Cc}/gu;

/**
 * `text` safe to write to a terminal: every control character shown as an escape (`\x1b`, `\r`), so
 * that what a sender wrote cannot move the cursor, retitle the window, set the clipboard or hide
 * lines; tabs, line ends and our own colour codes kept, CRLF made a line end.
 */
export function visible(text: string): string {
  return text.replace(CONTROL, (c: string, at: number) => {
    if (c === '\n' || c === '\t') return c;
    if (c === '\r') return text[at + 1] === '\n' ? '' : '\\r';
    if (c === '\u001b' && OUR_COLOUR.test(text.slice(at + 1, at + 6))) return c;
    return `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`;
  });
}

export function print(line = ''): void {
  process.stdout.write(`${visible(line)}\n`);
}

/** One JSON document on stdout: the API's answer as it came. */
export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

/** One JSON document per line, for streams. */
export function printJsonLine(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value)}\n`);
}

export function note(line: string): void {
  process.stderr.write(`${visible(line)}\n`);
}

/** Label/value lines, labels aligned. */
export function fields(pairs: Array<[string, string | number | null | undefined]>): string {
  const shown = pairs.filter(([, v]) => v !== undefined && v !== null && v !== '');
  const width = Math.max(...shown.map(([k]) => k.length));
  return shown.map(([k, v]) => `${out.dim(k.padEnd(width))}  ${v}`).join('\n');
}

/** A time as the terminal's user reads it: local, to the second. */
export function localTime(iso: string | number): string {
  const d = new Date(iso);
  const pad = (n: number) => String(n).padStart(2, '0');
  return (
    `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ` +
    `${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`
  );
}

export const ms = (n: number) =>
  n >= 1000 ? `${(n / 1000).toFixed(2)}s` : `${n < 10 ? n.toFixed(2) : n.toFixed(1)}ms`;
