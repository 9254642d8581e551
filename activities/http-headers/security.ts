// Security header checks. The table is the scoring: each check's category and maximum points are
// written here once; a check scores from 0 to its maximum. Weights follow the penalties of Mozilla's
// HTTP Observatory in their order (CSP 25, HSTS 20, framing 20 split with CORS, nosniff 5, ...).
import { cspWeaknesses, parsePolicies, restrictsFraming } from './csp.ts';
import { grade, percent } from './grades.ts';
import type { CookieReport } from './cookies.ts';

export type Category = 'critical' | 'high' | 'medium' | 'low';

export interface Check {
  name: string;
  category: Category;
  max_score: number;
  score: number;
  present: boolean;
  passed: boolean;
  description: string;
  details: string[];
  value?: string;
  recommendation?: string;
  risk?: string;
}

export interface SecurityInput {
  headers: Readonly<Record<string, string>>;
  https: boolean;
  cookies: readonly CookieReport[];
}

type Outcome = { score: number; details?: string[]; recommendation?: string; risk?: string };

interface Rule {
  name: string;
  header?: string;
  category: Category;
  max: number;
  description: string;
  /** Called with the header's value (or undefined); returns the points and why. */
  evaluate: (value: string | undefined, input: SecurityInput) => Outcome;
}

const HSTS_MIN_AGE = 15_552_000; // 180 days, the Observatory's floor
const GOOD_REFERRER = ['no-referrer', 'same-origin', 'strict-origin', 'strict-origin-when-cross-origin'];

export const RULES: Rule[] = [
  {
    name: 'Content-Security-Policy', header: 'content-security-policy', category: 'critical', max: 25,
    description: 'Limits where scripts, styles and other resources may come from; the main defence against XSS.',
    evaluate(value) {
      if (!value) return { score: 0, recommendation: "Set a policy, starting from default-src 'self'; object-src 'none'; base-uri 'self'; frame-ancestors 'self'", risk: 'Injected scripts run with full access to the page.' };
      const problems = cspWeaknesses(parsePolicies(value));
      const serious = problems.filter((p) => /unsafe-inline|unsafe-eval|any host|no script-src/.test(p)).length;
      const score = Math.max(0, 25 - serious * 10 - (problems.length - serious) * 2);
      return { score, details: problems.length ? problems : ['policy restricts scripts, objects, base URI and framing'], ...(problems.length ? { recommendation: 'Tighten the policy: ' + problems.join('; ') } : {}) };
    },
  },
  {
    name: 'Strict-Transport-Security', header: 'strict-transport-security', category: 'critical', max: 20,
    description: 'Makes browsers use HTTPS for this host on every later visit.',
    evaluate(value, { https }) {
      if (!https) return { score: 0, details: ['served over plain HTTP: HSTS cannot apply'], recommendation: 'Serve the site over HTTPS, redirect HTTP to it, then set Strict-Transport-Security', risk: 'Traffic can be read and changed on the way.' };
      if (!value) return { score: 0, recommendation: `Strict-Transport-Security: max-age=${31_536_000}; includeSubDomains`, risk: 'A first visit over HTTP can be downgraded (SSL stripping).' };
      const maxAge = Number(/max-age\s*=\s*"?(\d+)/i.exec(value)?.[1] ?? 0);
      const details = [`max-age ${maxAge} s`];
      if (maxAge === 0) return { score: 0, details: [...details, 'max-age=0 tells browsers to forget HSTS'], recommendation: 'Strict-Transport-Security: max-age=31536000; includeSubDomains', risk: 'A first visit over HTTP can be downgraded (SSL stripping).' };
      if (/includesubdomains/i.test(value)) details.push('includeSubDomains');
      if (/preload/i.test(value)) details.push('preload');
      if (maxAge < HSTS_MIN_AGE) return { score: 8, details: [...details, `max-age below ${HSTS_MIN_AGE} s (180 days)`], recommendation: 'Raise max-age to at least 15552000 (a year: 31536000)' };
      return { score: 20, details };
    },
  },
  {
    name: 'X-Frame-Options', header: 'x-frame-options', category: 'high', max: 10,
    description: 'Stops other sites from framing the page (clickjacking); CSP frame-ancestors supersedes it.',
    evaluate(value, { headers }) {
      if (restrictsFraming(headers['content-security-policy'])) return { score: 10, details: ['CSP frame-ancestors restricts framing'] };
      if (value && /^(deny|sameorigin)$/i.test(value.trim())) return { score: 10 };
      return { score: 0, recommendation: "X-Frame-Options: DENY (or CSP frame-ancestors 'self')", risk: 'The page can be framed and clicks hijacked.' };
    },
  },
  {
    name: 'X-Content-Type-Options', header: 'x-content-type-options', category: 'high', max: 10,
    description: 'Stops browsers from guessing content types (MIME sniffing).',
    evaluate: (value) => (value?.trim().toLowerCase() === 'nosniff' ? { score: 10 } : { score: 0, recommendation: 'X-Content-Type-Options: nosniff', risk: 'Uploaded or reflected content may be run as script.' }),
  },
  {
    name: 'Access-Control-Allow-Origin', header: 'access-control-allow-origin', category: 'high', max: 10,
    description: 'CORS: which other origins may read responses.',
    evaluate(value, { headers }) {
      if (!value) return { score: 10, details: ['no CORS: other origins cannot read responses'] };
      const credentials = headers['access-control-allow-credentials']?.trim().toLowerCase() === 'true';
      if (value.trim() === '*' && credentials) return { score: 0, details: ['wildcard origin with credentials'], recommendation: 'Never combine Access-Control-Allow-Origin: * with credentials; list trusted origins', risk: 'Any site may read authenticated responses.' };
      if (value.trim() === '*') return { score: 7, details: ['any origin may read responses (fine for public data only)'] };
      return { score: 10, details: [`allowed origin: ${value}`] };
    },
  },
  {
    name: 'Set-Cookie', category: 'high', max: 10,
    description: 'Cookies carry Secure, HttpOnly and SameSite.',
    evaluate(_value, { cookies }) {
      if (cookies.length === 0) return { score: 10, details: ['no cookies set'] };
      const weakest = Math.min(...cookies.map((c) => c.score));
      const issues = cookies.flatMap((c) => c.issues.map((i) => `${c.name}: ${i}`));
      return { score: weakest, details: issues.length ? issues : ['every cookie is Secure, HttpOnly and SameSite'], ...(issues.length ? { recommendation: 'Set Secure; HttpOnly; SameSite=Lax on every cookie', risk: 'Session cookies can be stolen or sent cross-site.' } : {}) };
    },
  },
  {
    name: 'Referrer-Policy', header: 'referrer-policy', category: 'medium', max: 5,
    description: 'How much of the URL is sent to other sites as Referer.',
    evaluate(value) {
      // Several comma-separated values: the last one the browser knows applies.
      const effective = value?.split(',').map((v) => v.trim().toLowerCase()).filter(Boolean).pop();
      if (effective && GOOD_REFERRER.includes(effective)) return { score: 5 };
      if (effective === 'unsafe-url' || effective === 'no-referrer-when-downgrade') return { score: 0, details: [`${effective} leaks full URLs`], recommendation: 'Referrer-Policy: strict-origin-when-cross-origin' };
      return { score: value ? 2 : 3, details: [value ? `unrecognised value ${value}` : 'browser default (strict-origin-when-cross-origin) applies'], recommendation: 'Referrer-Policy: strict-origin-when-cross-origin' };
    },
  },
  {
    name: 'Permissions-Policy', header: 'permissions-policy', category: 'medium', max: 5,
    description: 'Which browser features (camera, geolocation, ...) the page and its frames may use.',
    evaluate: (value) => (value ? { score: 5 } : { score: 0, recommendation: 'Permissions-Policy: camera=(), microphone=(), geolocation=()' }),
  },
  {
    name: 'Cross-Origin-Opener-Policy', header: 'cross-origin-opener-policy', category: 'medium', max: 5,
    description: 'Isolates the browsing context from cross-origin windows (XS-Leaks, Spectre).',
    evaluate: (value) => (/^same-origin(-allow-popups)?$/i.test(value?.trim() ?? '') ? { score: 5 } : { score: 0, recommendation: 'Cross-Origin-Opener-Policy: same-origin' }),
  },
  {
    name: 'Cross-Origin-Embedder-Policy', header: 'cross-origin-embedder-policy', category: 'low', max: 3,
    description: 'Requires embedded resources to opt in (needed for cross-origin isolation).',
    evaluate: (value) => (/^(require-corp|credentialless)$/i.test(value?.trim() ?? '') ? { score: 3 } : { score: 0, recommendation: 'Cross-Origin-Embedder-Policy: require-corp' }),
  },
  {
    name: 'Cross-Origin-Resource-Policy', header: 'cross-origin-resource-policy', category: 'low', max: 3,
    description: 'Which origins may embed this response.',
    evaluate: (value) => (/^(same-origin|same-site|cross-origin)$/i.test(value?.trim() ?? '') ? { score: 3 } : { score: 0, recommendation: 'Cross-Origin-Resource-Policy: same-origin' }),
  },
  {
    name: 'Server', header: 'server', category: 'low', max: 2,
    description: 'Server software and version disclosed to everyone.',
    evaluate: (value) => (value && /\d/.test(value) ? { score: 0, details: [`discloses ${value}`], recommendation: 'Remove the version from the Server header', risk: 'Helps attackers pick known exploits.' } : { score: 2 }),
  },
  {
    name: 'X-Powered-By', header: 'x-powered-by', category: 'low', max: 2,
    description: 'Framework disclosed to everyone.',
    evaluate: (value) => (value ? { score: 0, details: [`discloses ${value}`], recommendation: 'Remove X-Powered-By' } : { score: 2 }),
  },
  {
    name: 'X-XSS-Protection', header: 'x-xss-protection', category: 'low', max: 2,
    description: 'Deprecated XSS auditor switch; modern browsers ignore it and old ones could be abused through it.',
    evaluate(value) {
      if (!value || value.trim() === '0') return { score: 2, details: [value ? 'auditor disabled, as recommended' : 'absent, as recommended'] };
      return { score: 1, details: ['deprecated: rely on Content-Security-Policy'], recommendation: 'X-XSS-Protection: 0, or remove it' };
    },
  },
  {
    name: 'Expect-CT', header: 'expect-ct', category: 'low', max: 1,
    description: 'Deprecated: Certificate Transparency is enforced by browsers without it.',
    evaluate: (value) => (value ? { score: 0, details: ['deprecated header'], recommendation: 'Remove Expect-CT' } : { score: 1 }),
  },
];

export function analyzeSecurity(input: SecurityInput) {
  const checks: Check[] = RULES.map((rule) => {
    const value = rule.header ? input.headers[rule.header] : undefined;
    const outcome = rule.evaluate(value, input);
    const present = rule.header ? value !== undefined : input.cookies.length > 0;
    return {
      name: rule.name,
      category: rule.category,
      max_score: rule.max,
      score: outcome.score,
      present,
      passed: outcome.score === rule.max,
      description: rule.description,
      details: outcome.details ?? [],
      ...(value !== undefined ? { value } : {}),
      ...(outcome.recommendation ? { recommendation: outcome.recommendation } : {}),
      ...(outcome.risk ? { risk: outcome.risk } : {}),
    };
  });
  const score = checks.reduce((s, c) => s + c.score, 0);
  const max = checks.reduce((s, c) => s + c.max_score, 0);
  const percentage = percent(score, max);
  const summary = { critical: 0, high: 0, medium: 0, low: 0 };
  for (const c of checks) if (!c.passed) summary[c.category] += 1;
  return { score, max_score: max, percentage, grade: grade(percentage), summary, checks };
}
