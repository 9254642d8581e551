// Where `netops listen` sends each capture: routes from the path below the capture URL to a local URL
// (`--forward /stripe=http://localhost:4000/webhooks/stripe`, `--forward-to URL` the route of `/`),
// so one webhook feeds several local services. A path matches whole segments (`/stripe` takes
// `/stripe` and `/stripe/...`, never `/stripeX`); the longest matching one wins. The route's path is
// taken off before the rest is appended to its URL, as a reverse proxy's `location /stripe/ {
// proxy_pass http://x/webhooks/stripe/; }` does: the URL says where the route's captures land.
import { UsageError } from '../errors.ts';

export interface Route {
  /** A path below the capture URL: `/` or segments, without a trailing `/`. */
  path: string;
  url: string;
}

/** The catch-all route's path: every capture is below it. */
export const EVERY_PATH = '/';

/** `value` of `flag` when it is an http or https URL; else wrong usage naming the flag. */
export function httpUrl(flag: string, value: string): string {
  if (!URL.canParse(value) || !/^https?:$/.test(new URL(value).protocol))
    throw new UsageError(`${flag}: "${value}" is not an http or https URL`);
  return value;
}

/**
 * A path to match below the capture URL, as `flag` gave it: it starts with `/` and has no query or
 * fragment (captures are matched by their path alone); a trailing `/` is dropped (`/stripe/` is `/stripe`).
 */
export function routePath(flag: string, value: string): string {
  if (!value.startsWith('/')) throw new UsageError(`${flag}: "${value}" must start with / (e.g. /stripe)`);
  if (/[?#]/.test(value))
    throw new UsageError(`${flag}: "${value}" is a path: no query or fragment (captures are matched by path)`);
  return value.replace(/\/+$/, '') || EVERY_PATH;
}

/**
 * The routes of `--forward PATH=URL` (each as typed) and `--forward-to URL`, checked: wrong usage
 * naming the flag for a value that is not PATH=URL, a URL that is not http(s), a path given twice.
 */
export function parseRoutes(forward: readonly string[], forwardTo: string | undefined): Route[] {
  const routes: Route[] = [];
  const add = (flag: string, route: Route) => {
    const same = routes.find((r) => r.path === route.path);
    if (same) throw new UsageError(`${flag}: ${route.path} is routed twice (to ${same.url} and to ${route.url})`);
    routes.push(route);
  };
  if (forwardTo !== undefined) add('--forward-to', { path: EVERY_PATH, url: httpUrl('--forward-to', forwardTo) });
  for (const value of forward) {
    const at = value.indexOf('=');
    if (!value.startsWith('/') || at < 0)
      throw new UsageError(
        `--forward: "${value}" is not PATH=URL (e.g. /stripe=http://localhost:4000/webhooks/stripe)`,
      );
    add('--forward', {
      path: routePath('--forward', value.slice(0, at)),
      url: httpUrl('--forward', value.slice(at + 1)),
    });
  }
  if (routes.length === 0)
    throw new UsageError('--forward-to URL or --forward PATH=URL is required: where should captures go?');
  return routes;
}

/** Whether `below` (a path below the capture URL) is `path` or under it, segment by segment. */
export function isUnder(below: string, path: string): boolean {
  return path === EVERY_PATH || below === path || below.startsWith(`${path}/`);
}

/** The route whose path is the longest that `below` is under; undefined when none is. */
export function routeOf(routes: readonly Route[], below: string): Route | undefined {
  let best: Route | undefined;
  for (const route of routes)
    if (isUnder(below, route.path) && (!best || route.path.length > best.path.length)) best = route;
  return best;
}

/**
 * The capture as its route sends it: the route's path taken off the path below the capture URL
 * (`/webhook/<id>/stripe/events` through `/stripe` is `/webhook/<id>/events`), the rest as it was.
 */
export function throughRoute<T extends { path: string }>(capture: T, webhookId: string, route: Route): T {
  if (route.path === EVERY_PATH) return capture;
  const base = `/webhook/${webhookId}`;
  return { ...capture, path: base + capture.path.slice(base.length + route.path.length) };
}

/** The flags that give these routes again, quoted for a POSIX shell where a character needs it. */
export function routeFlags(routes: readonly Route[]): string[] {
  return routes.flatMap((r) =>
    r.path === EVERY_PATH ? ['--forward-to', shellWord(r.url)] : ['--forward', shellWord(`${r.path}=${r.url}`)],
  );
}

/** `word` as a shell reads it back: as is when nothing in it is special, else in single quotes. */
export function shellWord(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`;
}
