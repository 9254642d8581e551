// The HTTP Observatory's content-security-policy test, from MDN's "HTTP Observatory scoring methodology"
// and the scanner's observed behaviour (our own implementation). Policies come from every CSP header
// and from <meta http-equiv> tags; several policies are combined the way the Observatory does (a
// directive keeps only the sources every policy that names it allows).
import { resultsOf, type TestResult } from './types.ts';

type Policy = Map<string, Set<string>>;

/** Sources that allow any host of a scheme, or any scheme. */
const BROAD = new Set(['ftp:', 'http:', 'https:', '*', 'http://*', 'http://*.*', 'https://*', 'https://*.*']);
const NONCE_OR_HASH = /^'(nonce-|sha256-|sha384-|sha512-)/;
const isBroad = (s: string) => BROAD.has(s);
const insecure = (s: string) => s.startsWith('http:') || s.startsWith('ftp:');

class InvalidPolicy extends Error {}

/** One serialized policy; a repeated directive (other than the reporting ones) makes it invalid. */
function parsePolicy(text: string): Policy {
  if (text.trim().length < 6) throw new InvalidPolicy('a policy is empty or too short to mean anything');
  const policy: Policy = new Map();
  for (const part of text.split(';')) {
    const [name, ...values] = part.trim().toLowerCase().split(/\s+/);
    if (!name) continue;
    if (policy.has(name)) {
      if (name === 'report-uri' || name === 'report-to') continue;
      throw new InvalidPolicy(`the directive ${name} appears twice in one policy`);
    }
    policy.set(name, new Set(values));
  }
  return policy;
}

/** Policies combined: a directive named again keeps only the sources both allow; a new one allows nothing. */
function combine(policies: Policy[]): Policy {
  const combined: Policy = new Map();
  policies.forEach((policy, i) => {
    for (const [name, sources] of policy) {
      const before = combined.get(name);
      if (before) combined.set(name, new Set([...before].filter((s) => sources.has(s))));
      else combined.set(name, i === 0 ? new Set(sources) : new Set(["'none'"]));
    }
  });
  for (const [name, sources] of combined) if (name.endsWith('-src') && sources.size === 0) sources.add("'none'");
  return combined;
}

export interface CspInput {
  /** Every Content-Security-Policy header value (each may hold several policies separated by commas). */
  headers: readonly string[];
  /** The content of each <meta http-equiv="content-security-policy"> of an HTML page. */
  meta: readonly string[];
  reportOnly: boolean;
  https: boolean;
}

export function cspTest(input: CspInput): TestResult {
  const result = resultsOf({
    test: 'content-security-policy',
    name: 'Content-Security-Policy',
    best: 10,
    description: 'Limits where scripts, styles and other resources may come from; the main defence against XSS.',
  });
  let policy: Policy;
  let duplicateReporting = false;
  try {
    const split = (values: readonly string[]) => values.flatMap((v) => v.split(','));
    const headerPolicies = split(input.headers).map(parsePolicy);
    // A meta policy cannot carry frame-ancestors, report-uri or sandbox: browsers ignore them there.
    const metaPolicies = split(input.meta)
      .map(parsePolicy)
      .map((p) => new Map([...p].filter(([n]) => !['frame-ancestors', 'report-uri', 'sandbox'].includes(n))));
    duplicateReporting = [...input.headers, ...input.meta].some((v) =>
      v.split(',').some((p) => (p.match(/(^|;)\s*report-(uri|to)\b/gi) ?? []).length > 1),
    );
    policy = combine([...headerPolicies, ...metaPolicies]);
  } catch (err) {
    if (!(err instanceof InvalidPolicy)) throw err;
    return result(
      'csp-header-invalid',
      -25,
      false,
      'Fix the policy: one directive once per policy, no empty policies (a trailing comma makes one)',
      [err.message],
    );
  }
  if (policy.size === 0) {
    return input.reportOnly
      ? result(
          'csp-not-implemented-but-reporting-enabled',
          -25,
          false,
          'Enforce the policy you report on: send it as Content-Security-Policy (starting from default-src ' +
            "'self'; object-src 'none')",
          ['only Content-Security-Policy-Report-Only is set: nothing is enforced'],
        )
      : result(
          'csp-not-implemented',
          -25,
          false,
          "Set a policy, starting from default-src 'self'; object-src 'none'; base-uri 'self'; frame-ancestors 'self'",
        );
  }
  const evaluated = evaluate(policy, input, result);
  return evaluated.pass && duplicateReporting
    ? result('csp-implemented-but-duplicate-directives', 0, true, 'Name report-uri or report-to once per policy', [
        'a reporting directive is repeated',
      ])
    : evaluated;
}

type Result = ReturnType<typeof resultsOf>;

/** The result of a policy that parsed, first matching rule first. */
function evaluate(policy: Policy, input: CspInput, result: Result): TestResult {
  const star = new Set(['*']);
  const fallback = (name: string) => policy.get(name) ?? policy.get('default-src') ?? star;
  const script = new Set(fallback('script-src'));
  const object = fallback('object-src');
  const style = new Set(fallback('style-src'));
  for (const list of [script, style]) if ([...list].some((s) => NONCE_OR_HASH.test(s))) list.delete("'unsafe-inline'");
  if (script.has("'strict-dynamic'")) {
    if (![...script].some((s) => NONCE_OR_HASH.test(s)))
      return result('csp-header-invalid', -25, false, "'strict-dynamic' needs a nonce or a hash in script-src", [
        "'strict-dynamic' without a nonce or hash",
      ]);
    // With 'strict-dynamic', browsers ignore host and scheme sources, 'self' and 'unsafe-inline'.
    for (const s of [...script])
      if (s === "'self'" || s === "'unsafe-inline'" || /^(\*|https?:|ftp:)/.test(s)) script.delete(s);
  }
  if (script.has("'unsafe-inline'") || script.has('data:') || [...script].some(isBroad) || [...object].some(isBroad)) {
    return result(
      'csp-implemented-with-unsafe-inline',
      -20,
      false,
      "Remove 'unsafe-inline', data: and any-host sources from script-src (use nonces or hashes), and set " +
        "object-src 'none'",
    );
  }
  const active = [
    ...[...policy]
      .filter(([n]) => n !== 'img-src' && n !== 'media-src' && n !== 'script-src')
      .flatMap(([, s]) => [...s]),
    ...script,
  ];
  if (input.https && active.some(insecure))
    return result(
      'csp-implemented-with-insecure-scheme',
      -20,
      false,
      'Load scripts, styles, frames and connections over https: only (no http: sources)',
    );
  if (script.has("'unsafe-eval'") || style.has("'unsafe-eval'"))
    return result(
      'csp-implemented-with-unsafe-eval',
      -10,
      false,
      "Remove 'unsafe-eval': code built from strings (eval, new Function) can be injected",
    );
  if (input.https && [...fallback('img-src'), ...fallback('media-src')].some(insecure))
    return result(
      'csp-implemented-with-insecure-scheme-in-passive-content-only',
      -10,
      true,
      'Load images and media over https: too',
    );
  if (style.has("'unsafe-inline'") || style.has('data:') || [...style].some(isBroad)) {
    return result(
      'csp-implemented-with-unsafe-inline-in-style-src-only',
      0,
      true,
      "Remove 'unsafe-inline' from style-src for the bonus (use nonces or hashes)",
      ["style-src allows 'unsafe-inline', data: or any host (styles only: no points lost)"],
    );
  }
  const defaultSrc = policy.get('default-src');
  if (defaultSrc && defaultSrc.size === 1 && defaultSrc.has("'none'"))
    return result('csp-implemented-with-no-unsafe-default-src-none', 10, true);
  return result('csp-implemented-with-no-unsafe', 5, true, undefined, [
    "for the best score, start from default-src 'none' and allow what the page needs",
  ]);
}

/**
 * Whether the policies parse and one has a frame-ancestors directive, whatever it allows (the
 * Observatory's X-Frame-Options test then defers to CSP).
 */
export function hasFrameAncestors(policies: readonly string[]): boolean {
  try {
    return policies
      .flatMap((v) => v.split(','))
      .map(parsePolicy)
      .some((p) => p.has('frame-ancestors'));
  } catch (err) {
    if (err instanceof InvalidPolicy) return false;
    throw err;
  }
}
