// The HTTP Observatory's tests of the site rather than one header, from MDN's scoring documentation
// (our own implementation): redirection (plain HTTP to HTTPS), subresource-integrity (scripts of the
// page), cross-origin-resource-sharing (a CORS preflight); and what they read from the page.
import { Parser } from 'htmlparser2';
import { getDomain } from 'tldts';
import { resultsOf, type TestResult } from './types.ts';

export interface PageFacts {
  /** <meta http-equiv="content-security-policy" content>. */
  metaCsp: string[];
  /** The last <meta name="referrer" content>. */
  metaReferrer: string | undefined;
  /** Every <script>: its src (null for inline) and integrity. */
  scripts: Array<{ src: string | null; integrity: string | null }>;
}

/** The facts of an HTML page the tests read (meta policies, scripts), in one pass. */
export function pageFacts(html: string | null): PageFacts {
  const facts: PageFacts = { metaCsp: [], metaReferrer: undefined, scripts: [] };
  if (html === null) return facts;
  const parser = new Parser(
    {
      onopentag(tag, attrs) {
        if (tag === 'meta' && attrs['http-equiv']?.toLowerCase() === 'content-security-policy' && attrs.content)
          facts.metaCsp.push(attrs.content);
        if (tag === 'meta' && attrs.name?.toLowerCase() === 'referrer' && attrs.content !== undefined)
          facts.metaReferrer = attrs.content;
        if (tag === 'script') facts.scripts.push({ src: attrs.src ?? null, integrity: attrs.integrity ?? null });
      },
    },
    { decodeEntities: true, lowerCaseTags: true, lowerCaseAttributeNames: true },
  );
  parser.end(html);
  return facts;
}

/** The plain-HTTP session: `http://host/` and where it was redirected, first to last. */
export function redirectionTest(chain: readonly string[] | null): TestResult {
  const r = resultsOf({
    test: 'redirection',
    name: 'HTTP to HTTPS redirection',
    best: 0,
    description: 'Plain-HTTP visitors are sent to HTTPS at once, on the same host (so HSTS can apply).',
  });
  const advice = 'Answer http:// with a 301 to the same host over https://';
  if (chain === null)
    return r('redirection-not-needed-no-http', 0, true, undefined, ['the site does not answer over plain HTTP']);
  const urls = chain.map((u) => new URL(u));
  const steps = [chain.join(' -> ')];
  if (urls.length === 1)
    return r('redirection-missing', -20, false, advice, ['plain HTTP is answered without a redirect']);
  if (urls.at(-1)!.protocol !== 'https:') return r('redirection-not-to-https', -20, false, advice, steps);
  if (urls[1]!.protocol !== 'https:')
    return r(
      'redirection-not-to-https-on-initial-redirection',
      -10,
      false,
      'Redirect to https:// on the first hop',
      steps,
    );
  if (urls[1]!.hostname !== urls[0]!.hostname)
    return r(
      'redirection-off-host-from-http',
      -5,
      false,
      'Redirect to https:// on the same host first (then elsewhere), so HSTS is set for it',
      steps,
    );
  return r('redirection-to-https', 0, true, undefined, steps);
}

/** Scripts of the page: whether those from other sites carry integrity and come over HTTPS. */
export function subresourceIntegrityTest(facts: PageFacts, isHtml: boolean, pageUrl: string): TestResult {
  const r = resultsOf({
    test: 'subresource-integrity',
    name: 'Subresource Integrity',
    best: 5,
    description: 'Scripts from other sites carry an integrity hash, so a compromised CDN cannot change them.',
  });
  if (!isHtml) return r('sri-not-implemented-response-not-html', 0, true);
  if (facts.scripts.length === 0) return r('sri-not-implemented-but-no-scripts-loaded', 0, true);
  const page = new URL(pageUrl);
  const site = (host: string) => getDomain(host) ?? host;
  // From best to worst: a later finding replaces an earlier one.
  const order: Array<[string, number, boolean, string?]> = [
    ['sri-implemented-and-all-scripts-loaded-securely', 5, true],
    ['sri-implemented-and-external-scripts-loaded-securely', 5, true],
    [
      'sri-implemented-but-external-scripts-not-loaded-securely',
      -20,
      false,
      'Load every external script over https://',
    ],
    [
      'sri-not-implemented-but-external-scripts-loaded-securely',
      -5,
      false,
      'Add integrity="sha384-..." crossorigin="anonymous" to scripts from other sites',
    ],
    [
      'sri-not-implemented-and-external-scripts-not-loaded-securely',
      -50,
      false,
      'Load external scripts over https:// with integrity="sha384-..."',
    ],
  ];
  let worst = -1;
  let foreign = false;
  const details: string[] = [];
  for (const s of facts.scripts) {
    if (s.src === null) continue;
    const protocolRelative = s.src.startsWith('//');
    const absolute = /^https?:\/\//i.test(s.src);
    const url = absolute ? new URL(s.src) : null;
    const sameSite = !protocolRelative && (!absolute || site(url!.hostname) === site(page.hostname));
    const secure = protocolRelative ? false : absolute ? url!.protocol === 'https:' : page.protocol === 'https:';
    if (sameSite) {
      if (s.integrity && secure && worst < 0) worst = 0;
      continue;
    }
    foreign = true;
    const index = s.integrity ? (secure ? 1 : 2) : secure ? 3 : 4;
    if (index >= 2)
      details.push(
        `${s.src.slice(0, 200)}: ` +
          `${s.integrity ? 'not over https' : secure ? 'no integrity' : 'no integrity, not over https'}`,
      );
    worst = Math.max(worst, index);
  }
  if (worst < 0)
    return foreign
      ? r(order[1]![0], 5, true)
      : r('sri-not-implemented-but-all-scripts-loaded-from-secure-origin', 0, true);
  const [result, modifier, pass, advice] = order[worst]!;
  return r(result, modifier, pass, advice, details);
}

/** The answer to a CORS preflight from an origin of no relation to the site. */
export function corsTest(preflight: { origin: string; headers: Readonly<Record<string, string>> } | null): TestResult {
  const r = resultsOf({
    test: 'cross-origin-resource-sharing',
    name: 'Access-Control-Allow-Origin',
    best: 0,
    description: 'CORS: which other origins may read responses (checked with a preflight from an unrelated origin).',
  });
  const allowed = preflight?.headers['access-control-allow-origin']?.trim().toLowerCase();
  if (!preflight || allowed === undefined)
    return r('cross-origin-resource-sharing-not-implemented', 0, true, undefined, [
      'other origins may not read responses',
    ]);
  if (allowed === '*')
    return r('cross-origin-resource-sharing-implemented-with-public-access', 0, true, undefined, [
      'any origin may read responses, without credentials (fine for public data)',
    ]);
  const credentials = preflight.headers['access-control-allow-credentials']?.trim().toLowerCase() === 'true';
  if (allowed === preflight.origin.toLowerCase() && credentials) {
    return r(
      'cross-origin-resource-sharing-implemented-with-universal-access',
      -50,
      false,
      'Allow only the origins you trust (a fixed list), never whichever origin asks, with credentials',
      [`an unrelated origin (${preflight.origin}) may read responses with the user's cookies`],
    );
  }
  return r('cross-origin-resource-sharing-implemented-with-restricted-access', 0, true, undefined, [
    `allowed origin: ${allowed}`,
  ]);
}
