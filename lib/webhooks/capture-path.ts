// The path a sender calls below a capture URL (`/webhook/<id>/<below>`) is sent again below a target's
// own path: by forwarding, `netops listen`, replay and replay as load. It must never climb out of it.
// URL parsers (WHATWG's, which Node's fetch and `new URL` follow) resolve `..` and `.` segments, read
// `%2e` as a dot in them and `\` as `/` in http(s) URLs, and many servers decode `%2f` and `%5c` into
// separators or read `..;` as `..` (Tomcat): `/webhooks` + `/../../admin` is `/admin`. So captures
// refuse such segments, and what is sent again is confined to the target's path whatever was stored.

/** `%2e` is a dot where URL parsers look for `.` and `..` segments (any case). */
const dots = (segment: string) => segment.replace(/%2e/gi, '.');

/** What a climbing segment holds: a dot, a `%` (of `%2e`, `%2f`, `%5c`) or a backslash; an empty one shows as `//`. */
const CLIMBING_CHARACTER = /[.%\\]/;

/** The first segment of `below` that could climb or split under a URL parser or a server, as sent; or null. */
export function climbingSegment(below: string): string | null {
  // Most paths (none at all, on every capture to a bare capture URL) hold nothing that could climb or split.
  if (!CLIMBING_CHARACTER.test(below) && !below.includes('//')) return null;
  const segments = below.split('/');
  for (const [i, segment] of segments.entries()) {
    // An empty segment inside (`//`): a receiver that reads its request target as a URL takes `//host` for a host.
    if (segment === '' && i > 0 && i < segments.length - 1) return segment;
    const name = dots(segment.split(';', 1)[0]!);
    if (name === '.' || name === '..' || segment.includes('\\') || /%(2f|5c)/i.test(segment)) return segment;
  }
  return null;
}

/**
 * `below` with its dot segments resolved inside itself, as a server would resolve a path from its
 * root: `/a/../../admin` is `/admin`, which stays below the target's path it is appended to.
 */
export function confinedPath(below: string): string {
  if (climbingSegment(below) === null) return below;
  const kept: string[] = [];
  const segments = below.split(/[/\\]/).slice(1);
  segments.forEach((segment, i) => {
    const name = dots(segment.split(';', 1)[0]!);
    if (name === '..') kept.pop();
    else if (name !== '.' && (segment !== '' || i === segments.length - 1)) kept.push(encodeSeparators(segment));
  });
  return `/${kept.join('/')}`;
}

/** `%2f` and `%5c` spelled so that no server decodes them into a separator (`%252f`). */
const encodeSeparators = (segment: string) => segment.replace(/%(2f|5c)/gi, (m) => `%25${m.slice(1)}`);
