// analysis.security: the grade of MDN's HTTP Observatory method (observatory/), as checks in the
// contract's shape, and our own checks beyond it, which weigh nothing in the grade.
import { runObservatory, type ObservatoryInput } from './observatory/index.ts';
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
  /** The Observatory test and result this check is (null for our own checks, which weigh nothing). */
  observatory_test: string | null;
  observatory_result: string | null;
}

export interface SecurityInput {
  headers: Readonly<Record<string, string>>;
  https: boolean;
  cookies: readonly CookieReport[];
  observatory: ObservatoryInput;
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

/**
 * Our checks beyond the Observatory's tests (never one it makes itself, such as Cross-Origin-Resource-Policy): shown
 * with their advice, weighing nothing in the grade.
 */
export const RULES: Rule[] = [
  {
    name: 'Permissions-Policy',
    header: 'permissions-policy',
    category: 'medium',
    max: 5,
    description: 'Which browser features (camera, geolocation, ...) the page and its frames may use.',
    evaluate: (value) =>
      value
        ? { score: 5 }
        : { score: 0, recommendation: 'Permissions-Policy: camera=(), microphone=(), geolocation=()' },
  },
  {
    name: 'Cross-Origin-Opener-Policy',
    header: 'cross-origin-opener-policy',
    category: 'medium',
    max: 5,
    description: 'Isolates the browsing context from cross-origin windows (XS-Leaks, Spectre).',
    evaluate: (value) =>
      /^same-origin(-allow-popups)?$/i.test(value?.trim() ?? '')
        ? { score: 5 }
        : { score: 0, recommendation: 'Cross-Origin-Opener-Policy: same-origin' },
  },
  {
    name: 'Cross-Origin-Embedder-Policy',
    header: 'cross-origin-embedder-policy',
    category: 'low',
    max: 3,
    description: 'Requires embedded resources to opt in (needed for cross-origin isolation).',
    evaluate: (value) =>
      /^(require-corp|credentialless)$/i.test(value?.trim() ?? '')
        ? { score: 3 }
        : { score: 0, recommendation: 'Cross-Origin-Embedder-Policy: require-corp' },
  },
  {
    name: 'Server',
    header: 'server',
    category: 'low',
    max: 2,
    description: 'Server software and version disclosed to everyone.',
    evaluate: (value) =>
      value && /\d/.test(value)
        ? {
            score: 0,
            details: [`discloses ${value}`],
            recommendation: 'Remove the version from the Server header',
            risk: 'Helps attackers pick known exploits.',
          }
        : { score: 2 },
  },
  {
    name: 'X-Powered-By',
    header: 'x-powered-by',
    category: 'low',
    max: 2,
    description: 'Framework disclosed to everyone.',
    evaluate: (value) =>
      value ? { score: 0, details: [`discloses ${value}`], recommendation: 'Remove X-Powered-By' } : { score: 2 },
  },
  {
    name: 'X-XSS-Protection',
    header: 'x-xss-protection',
    category: 'low',
    max: 2,
    description: 'Deprecated XSS auditor switch; modern browsers ignore it and old ones could be abused through it.',
    evaluate(value) {
      if (!value || value.trim() === '0')
        return { score: 2, details: [value ? 'auditor disabled, as recommended' : 'absent, as recommended'] };
      return {
        score: 1,
        details: ['deprecated: rely on Content-Security-Policy'],
        recommendation: 'X-XSS-Protection: 0, or remove it',
      };
    },
  },
  {
    name: 'Expect-CT',
    header: 'expect-ct',
    category: 'low',
    max: 1,
    description: 'Deprecated: Certificate Transparency is enforced by browsers without it.',
    evaluate: (value) =>
      value ? { score: 0, details: ['deprecated header'], recommendation: 'Remove Expect-CT' } : { score: 1 },
  },
];

/** The Observatory's tests by how much their worst result costs (CSP -25, cookies -40, CORS and SRI -50, ...). */
const CATEGORY: Record<string, Category> = {
  'content-security-policy': 'critical',
  cookies: 'critical',
  'cross-origin-resource-sharing': 'critical',
  'strict-transport-security': 'critical',
  'subresource-integrity': 'high',
  redirection: 'high',
  'x-frame-options': 'high',
  'x-content-type-options': 'medium',
  'referrer-policy': 'low',
  'cross-origin-resource-policy': 'low',
};

const HEADER_OF: Record<string, string> = {
  'content-security-policy': 'content-security-policy',
  'cross-origin-resource-sharing': 'access-control-allow-origin',
  'referrer-policy': 'referrer-policy',
  'strict-transport-security': 'strict-transport-security',
  'x-content-type-options': 'x-content-type-options',
  'x-frame-options': 'x-frame-options',
  'cross-origin-resource-policy': 'cross-origin-resource-policy',
};

/**
 * analysis.security: the Observatory's ten tests and score (`score` is its score, 0 to 145; `max_score`
 * 100, its baseline, which bonuses may pass; `percentage` the score capped at 100; `grade` by MDN's
 * chart), then our own checks with no weight (`max_score` 0).
 */
export function analyzeSecurity(input: SecurityInput) {
  const observatory = runObservatory(input.observatory);
  const tested: Check[] = observatory.tests.map((t) => {
    const header = HEADER_OF[t.test];
    const value = header ? input.headers[header] : undefined;
    return {
      name: t.name,
      category: CATEGORY[t.test] ?? 'medium',
      max_score: t.best,
      score: t.modifier,
      present: header ? value !== undefined : t.test === 'cookies' ? input.cookies.length > 0 : true,
      passed: t.pass,
      description: t.description,
      details: t.details,
      ...(value !== undefined ? { value } : {}),
      ...(t.recommendation && (!t.pass || t.modifier < t.best) ? { recommendation: t.recommendation } : {}),
      observatory_test: t.test,
      observatory_result: t.result,
    };
  });
  const extra: Check[] = RULES.map((rule) => {
    const value = rule.header ? input.headers[rule.header] : undefined;
    const outcome = rule.evaluate(value, input);
    return {
      name: rule.name,
      category: rule.category,
      max_score: 0,
      score: 0,
      present: value !== undefined,
      passed: outcome.score === rule.max,
      description: `${rule.description} (not in the Observatory's grade: no weight)`,
      details: outcome.details ?? [],
      ...(value !== undefined ? { value } : {}),
      ...(outcome.recommendation ? { recommendation: outcome.recommendation } : {}),
      ...(outcome.risk ? { risk: outcome.risk } : {}),
      observatory_test: null,
      observatory_result: null,
    };
  });
  const checks = [...tested, ...extra];
  const summary = { critical: 0, high: 0, medium: 0, low: 0 };
  for (const c of tested) if (!c.passed) summary[c.category] += 1;
  return {
    score: observatory.score,
    max_score: 100,
    percentage: Math.min(100, observatory.score),
    grade: observatory.grade,
    summary,
    checks,
    observatory: {
      algorithm_version: 5,
      tests_passed: observatory.tests_passed,
      tests_failed: observatory.tests_failed,
      tests_quantity: observatory.tests_quantity,
    },
  };
}
