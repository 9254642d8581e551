// Content-Security-Policy parsing (CSP Level 3 serialized form: directives split by `;`, name and
// space-separated values) and the weaknesses the analysis reports.
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

/** The sources that govern scripts: script-src, else default-src. */
export function scriptSources(csp: Csp): string[] | undefined {
  return csp.get('script-src') ?? csp.get('default-src');
}

export function cspWeaknesses(csp: Csp): string[] {
  const problems: string[] = [];
  const scripts = scriptSources(csp);
  if (!scripts) problems.push('no script-src or default-src: scripts may load from anywhere');
  else {
    const hasNonceOrHash = scripts.some((s) => /^'(nonce-|sha256-|sha384-|sha512-)/.test(s));
    if (scripts.includes("'unsafe-inline'") && !hasNonceOrHash && !scripts.includes("'strict-dynamic'")) {
      problems.push("script sources allow 'unsafe-inline': injected inline scripts run");
    }
    if (scripts.includes("'unsafe-eval'")) problems.push("script sources allow 'unsafe-eval'");
    if (scripts.some((s) => s === '*' || s === 'http:' || s === 'https:' || s === 'data:')) {
      problems.push('script sources allow any host or scheme (*, http:, https: or data:)');
    }
  }
  const objects = csp.get('object-src') ?? csp.get('default-src');
  if (!objects || !objects.includes("'none'")) problems.push("object-src is not 'none': plugins may load");
  if (!csp.has('base-uri')) problems.push('no base-uri: an injected <base> can redirect relative URLs');
  if (!csp.has('frame-ancestors')) problems.push('no frame-ancestors: framing is governed only by X-Frame-Options');
  return problems;
}
