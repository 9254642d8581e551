// Content-Security-Policy parsing (CSP Level 3 serialized form: directives split by `;`, name and
// space-separated values) and the weaknesses the analysis reports. A header may carry several
// policies separated by `,` (or come several times, which we receive joined with ", "): browsers
// enforce every one, so something is allowed only when all policies allow it.
export type Csp = Map<string, string[]>;

export function parseCsp(value: string): Csp {
  const csp: Csp = new Map();
  for (const part of value.split(';')) {
    const [name, ...values] = part.trim().split(/\s+/);
    // The first occurrence of a directive wins; later duplicates are ignored by browsers.
    if (name && !csp.has(name.toLowerCase())) csp.set(name.toLowerCase(), values);
  }
  return csp;
}

export function parsePolicies(value: string): Csp[] {
  return value.split(',').map((p) => p.trim()).filter(Boolean).map(parseCsp);
}

/** The sources that govern scripts: script-src, else default-src. */
export function scriptSources(csp: Csp): string[] | undefined {
  return csp.get('script-src') ?? csp.get('default-src');
}

const ANY_SOURCE = (s: string) => s === '*' || s === 'http:' || s === 'https:' || s === 'data:';

function weaknessesOf(csp: Csp): string[] {
  const problems: string[] = [];
  const scripts = scriptSources(csp);
  if (!scripts) problems.push('no script-src or default-src: scripts may load from anywhere');
  else {
    const hasNonceOrHash = scripts.some((s) => /^'(nonce-|sha256-|sha384-|sha512-)/.test(s));
    if (scripts.includes("'unsafe-inline'") && !hasNonceOrHash && !scripts.includes("'strict-dynamic'")) {
      problems.push("script sources allow 'unsafe-inline': injected inline scripts run");
    }
    if (scripts.includes("'unsafe-eval'")) problems.push("script sources allow 'unsafe-eval'");
    if (scripts.some(ANY_SOURCE)) problems.push('script sources allow any host or scheme (*, http:, https: or data:)');
  }
  const objects = csp.get('object-src') ?? csp.get('default-src');
  if (!objects || !objects.includes("'none'")) problems.push("object-src is not 'none': plugins may load");
  if (!csp.has('base-uri')) problems.push('no base-uri: an injected <base> can redirect relative URLs');
  const ancestors = csp.get('frame-ancestors');
  if (!ancestors) problems.push('no frame-ancestors: framing is governed only by X-Frame-Options');
  else if (ancestors.length === 0 || ancestors.some(ANY_SOURCE)) problems.push('frame-ancestors allows any site to frame the page');
  return problems;
}

/** Weaknesses that hold in every policy: one policy that forbids something is enough to forbid it. */
export function cspWeaknesses(policies: readonly Csp[]): string[] {
  if (policies.length === 0) return weaknessesOf(new Map());
  const [first, ...rest] = policies.map(weaknessesOf);
  return first!.filter((w) => rest.every((other) => other.includes(w)));
}

/** True when some policy limits who may frame the page (to 'none', 'self' or named hosts). */
export function restrictsFraming(value: string | undefined): boolean {
  return parsePolicies(value ?? '').some((csp) => {
    const ancestors = csp.get('frame-ancestors');
    return ancestors !== undefined && ancestors.length > 0 && !ancestors.some(ANY_SOURCE);
  });
}
