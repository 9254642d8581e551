// The analysis of one HTTP response's headers: security, cache, performance, CDN/WAF and cookies,
// and the overall score. TLS (ssl_tls) is measured on the connection by the fetch, not from headers,
// and joins the overall score through `sslPercentage`.
import { analyzeCache, analyzePerformance } from './cache-performance.ts';
import { detectCdnWaf } from './cdn-waf.ts';
import { analyzeCookies } from './cookies.ts';
import { grade, percent } from './grades.ts';
import type { ObservatoryInput } from './observatory/index.ts';
import { analyzeSecurity } from './security.ts';

export interface HeaderAnalysisInput {
  /** Lower-case names; repeated headers joined with ", " (Set-Cookie comes separately). */
  headers: Readonly<Record<string, string>>;
  setCookies: readonly string[];
  https: boolean;
  httpVersion: number;
  /** What the Observatory's method looks at beyond the headers (the page, the HTTP session, a preflight). */
  site: Pick<ObservatoryInput, 'certValid' | 'html' | 'url' | 'httpChain' | 'preflight'>;
}

/** Share of each section in overall_score, in percent of its own points. */
export const OVERALL_WEIGHTS = { security: 60, ssl: 15, cache: 10, performance: 10, cookies: 5 } as const;

export function analyzeHeaders(input: HeaderAnalysisInput) {
  const cookies = analyzeCookies(input.setCookies, input.https);
  return {
    security: analyzeSecurity({
      headers: input.headers,
      https: input.https,
      cookies: cookies.cookies,
      observatory: {
        ...input.site,
        https: input.https,
        headers: input.headers,
        cspHeaders: input.headers['content-security-policy'] ? [input.headers['content-security-policy']] : [],
        setCookies: input.setCookies,
      },
    }),
    cache: analyzeCache(input.headers),
    performance: analyzePerformance(input.headers, input.httpVersion),
    cdn_waf: detectCdnWaf(
      input.headers,
      cookies.cookies.map((c) => c.name),
    ),
    cookies,
  };
}

/** overall_score on 100 points, weighted by OVERALL_WEIGHTS; plain HTTP scores 0 for TLS. */
export function overallScore(analysis: ReturnType<typeof analyzeHeaders>, sslPercentage: number) {
  const parts = {
    security: analysis.security.percentage,
    ssl: sslPercentage,
    cache: percent(analysis.cache.score, analysis.cache.max_score),
    performance: percent(analysis.performance.score, analysis.performance.max_score),
    cookies: percent(analysis.cookies.score, analysis.cookies.max_score),
  };
  const score =
    Math.round(
      Object.entries(OVERALL_WEIGHTS).reduce((s, [k, w]) => s + (parts[k as keyof typeof parts] * w) / 100, 0) * 10,
    ) / 10;
  return { score, max_score: 100, percentage: score, grade: grade(score) };
}
