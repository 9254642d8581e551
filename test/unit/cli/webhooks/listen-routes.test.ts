// Where `netops listen` sends a capture: routes matched by whole path segments, the longest first,
// their path taken off; values checked as the flags typed; the same routes name the same webhook.
import { describe, expect, it } from 'vitest';
import { UsageError } from '../../../../cli/errors.ts';
import {
  isUnder,
  parseRoutes,
  routeFlags,
  routeOf,
  routePath,
  shellWord,
  throughRoute,
} from '../../../../cli/webhooks/listen-routes.ts';
import { routesKey } from '../../../../cli/webhooks/listen-state.ts';

const refusal = (run: () => unknown) => {
  try {
    run();
  } catch (e) {
    expect(e).toBeInstanceOf(UsageError);
    return (e as Error).message;
  }
  throw new Error('accepted');
};

describe('listen routes', () => {
  it('matches a path by whole segments: /stripe takes /stripe and below, never /stripeX', () => {
    expect(isUnder('/stripe', '/stripe')).toBe(true);
    expect(isUnder('/stripe/', '/stripe')).toBe(true);
    expect(isUnder('/stripe/connect/events', '/stripe')).toBe(true);
    expect(isUnder('/stripeX', '/stripe')).toBe(false);
    expect(isUnder('/stripe-connect', '/stripe')).toBe(false);
    expect(isUnder('/str', '/stripe')).toBe(false);
    expect(isUnder('/other/stripe', '/stripe')).toBe(false);
    expect(isUnder('/', '/')).toBe(true);
    expect(isUnder('/anything/at/all', '/')).toBe(true);
  });

  it('picks the route of the longest matching path, whatever order they were given in; none when none matches', () => {
    const routes = parseRoutes(['/stripe=http://a', '/stripe/connect=http://b', '/github=http://c'], undefined);
    expect(routeOf(routes, '/stripe/connect/x')?.url).toBe('http://b');
    expect(routeOf(routes, '/stripe/connect')?.url).toBe('http://b');
    expect(routeOf(routes, '/stripe/connector')?.url).toBe('http://a');
    expect(routeOf(routes, '/stripe')?.url).toBe('http://a');
    expect(routeOf(routes, '/github/push')?.url).toBe('http://c');
    expect(routeOf(routes, '/stripeX')).toBeUndefined();
    expect(routeOf(routes, '/')).toBeUndefined();
    // --forward-to is the route of every other path.
    const withCatchAll = parseRoutes(['/stripe/connect=http://b', '/stripe=http://a'], 'http://all');
    expect(routeOf(withCatchAll, '/stripeX')?.url).toBe('http://all');
    expect(routeOf(withCatchAll, '/')?.url).toBe('http://all');
    expect(routeOf(withCatchAll, '/stripe/connect/y')?.url).toBe('http://b');
  });

  it("takes the route's path off what is appended to its URL, the rest as it was", () => {
    const [stripe] = parseRoutes(['/stripe/=http://localhost:4000/webhooks/stripe'], undefined);
    expect(stripe).toEqual({ path: '/stripe', url: 'http://localhost:4000/webhooks/stripe' });
    const capture = (below: string) => ({ id: 1, path: `/webhook/wh_1${below}`, method: 'POST' });
    expect(throughRoute(capture('/stripe'), 'wh_1', stripe!)).toEqual(capture(''));
    expect(throughRoute(capture('/stripe/'), 'wh_1', stripe!)).toEqual(capture('/'));
    expect(throughRoute(capture('/stripe/connect/events'), 'wh_1', stripe!)).toEqual(capture('/connect/events'));
    const [all] = parseRoutes([], 'http://localhost:4000');
    expect(throughRoute(capture('/stripe/x'), 'wh_1', all!)).toEqual(capture('/stripe/x'));
  });

  it('refuses a bad value naming the flag as typed, before anything is sent', () => {
    expect(refusal(() => parseRoutes(['stripe'], undefined))).toMatch(/^--forward: "stripe" is not PATH=URL \(e\.g\. /);
    expect(refusal(() => parseRoutes(['/stripe'], undefined))).toMatch(/^--forward: "\/stripe" is not PATH=URL/);
    expect(refusal(() => parseRoutes(['stripe=http://a'], undefined))).toMatch(/^--forward: "stripe=http:\/\/a" is/);
    expect(refusal(() => parseRoutes(['/stripe=localhost:4000'], undefined))).toBe(
      '--forward: "localhost:4000" is not an http or https URL',
    );
    expect(refusal(() => parseRoutes(['/s=ftp://x'], undefined))).toMatch(/^--forward: "ftp:\/\/x" is not an http/);
    expect(refusal(() => parseRoutes(['/s?a=http://x'], undefined))).toMatch(
      /^--forward: "\/s\?a" is a path: no query/,
    );
    expect(refusal(() => parseRoutes([], 'nope'))).toBe('--forward-to: "nope" is not an http or https URL');
    expect(refusal(() => parseRoutes(['/a=http://x', '/a/=http://y'], undefined))).toBe(
      '--forward: /a is routed twice (to http://x and to http://y)',
    );
    expect(refusal(() => parseRoutes(['/=http://y'], 'http://x'))).toMatch(/^--forward: \/ is routed twice/);
    expect(refusal(() => parseRoutes([], undefined))).toMatch(/--forward-to URL or --forward PATH=URL is required/);
    expect(refusal(() => routePath('--path', 'stripe'))).toBe('--path: "stripe" must start with / (e.g. /stripe)');
    expect(refusal(() => routePath('--path', '/stripe?live=1'))).toMatch(/^--path: "\/stripe\?live=1" is a path/);
    expect(routePath('--path', '/stripe//')).toBe('/stripe');
    expect(routePath('--path', '/')).toBe('/');
    // The URL may hold a query with its own `=`: only the first one ends PATH.
    expect(parseRoutes(['/s=http://x/hooks?a=b'], undefined)).toEqual([{ path: '/s', url: 'http://x/hooks?a=b' }]);
  });

  it('names the same routes the same in any order; a lone --forward-to by its URL alone, as before routes', () => {
    const one = parseRoutes(['/a=http://x', '/b=http://y'], 'http://z');
    const other = parseRoutes(['/b=http://y', '/a/=http://x'], 'http://z');
    expect(routesKey(one)).toBe(routesKey(other));
    expect(routesKey(one)).not.toBe(routesKey(parseRoutes(['/a=http://x'], 'http://z')));
    expect(routesKey(parseRoutes([], 'http://localhost:4000/hooks'))).toBe('http://localhost:4000/hooks');
    expect(routesKey(parseRoutes(['/=http://localhost:4000/hooks'], undefined))).toBe('http://localhost:4000/hooks');
  });

  it('gives the routes back as flags a shell reads as they were', () => {
    const routes = parseRoutes(["/it's=http://x/?a=1&b=2"], 'http://localhost:4000/hooks');
    expect(routeFlags(routes)).toEqual([
      '--forward-to',
      'http://localhost:4000/hooks',
      '--forward',
      `'/it'\\''s=http://x/?a=1&b=2'`,
    ]);
    expect(shellWord('/stripe')).toBe('/stripe');
  });
});
