// GET a URL through the SSRF guard and analyse the answer: the http-headers lookup.
import { negotiatedProtocol } from '../../lib/net/alpn-probe.ts';
import { bareHost } from '../../lib/net/bare-host.ts';
import { createGuardedFetch } from '../../lib/net/guarded-fetch.ts';
import { analyzeHeaders, overallScore } from './analyze.ts';
import { analyzeTls } from './tls-grade.ts';

export interface HeaderCheckOptions {
  allow: readonly string[];
  timeoutMs?: number;
  /** Certificates of authorities trusted besides the system's (tests: a loopback CA). */
  ca?: string[];
}

/** The origin the CORS preflight comes from: one that belongs to nobody (RFC 6761 .invalid). */
export const CORS_PROBE_ORIGIN = 'https://cors-probe.netops.invalid';
/** The probes besides the main request (the plain-HTTP session, the preflight) get this long. */
const PROBE_TIMEOUT_MS = 5000;

export const USER_AGENT = 'netops-header-check/0.1 (+security header analysis)';

export function createHeaderCheck(options: HeaderCheckOptions) {
  // Untrusted certificates are a finding to report, not a reason to give up.
  // Only the headers matter: a body is read up to 1 MiB to count it, and a larger one is cut there
  // (size.download and size.total are then -1, as the contract allows for total).
  const guardedFetch = createGuardedFetch({
    allow: options.allow,
    allowInvalidCertificates: true,
    timeoutMs: options.timeoutMs,
    maxBytes: 1024 * 1024,
    onOversize: 'truncate',
    field: 'url',
    ca: options.ca,
  });
  const probe = createGuardedFetch({
    allow: options.allow,
    allowInvalidCertificates: true,
    timeoutMs: PROBE_TIMEOUT_MS,
    maxBytes: 64 * 1024,
    onOversize: 'truncate',
    ca: options.ca,
  });

  /**
   * The plain-HTTP session the Observatory's redirection test reads: the URL given when it is http://
   * (its own redirects), else the same URL over http://; null when plain HTTP gets no answer.
   */
  async function httpSession(url: string, chain: readonly string[]): Promise<readonly string[] | null> {
    const given = new URL(url);
    if (given.protocol === 'http:') return chain;
    given.protocol = 'http:';
    return probe(given.href, { headers: { 'User-Agent': USER_AGENT } }).then(
      (res) => res.chain,
      () => null,
    );
  }

  /** A CORS preflight from an unrelated origin to the analysed URL; null for no answer or a non-2xx. */
  async function preflight(url: string) {
    return probe(url, {
      method: 'OPTIONS',
      headers: { 'User-Agent': USER_AGENT, Origin: CORS_PROBE_ORIGIN, 'Access-Control-Request-Method': 'GET' },
    }).then(
      (res) => (res.status >= 200 && res.status < 300 ? { origin: CORS_PROBE_ORIGIN, headers: res.headers } : null),
      () => null,
    );
  }

  return async function checkUrl(url: string) {
    const started = performance.now();
    const res = await guardedFetch(url, {
      headers: { 'User-Agent': USER_AGENT, Accept: '*/*', 'Accept-Encoding': 'br, gzip, deflate' },
    });
    const final = new URL(res.url);
    const https = final.protocol === 'https:';
    // The request speaks HTTP/1.1; whether the server would speak HTTP/2 is its ALPN choice.
    const [alpn, httpChain, cors] = await Promise.all([
      https ? negotiatedProtocol(res.remoteAddress, res.remotePort, bareHost(final)) : null,
      httpSession(url, res.chain),
      preflight(res.url),
    ]);
    const httpVersion = alpn === 'h2' ? 2 : res.httpVersion;
    // A response without a content type is read as HTML, as the Observatory does.
    const type = res.headers['content-type']?.split(';')[0]?.trim();
    const html = !type || type === 'text/html' || type === 'application/xhtml+xml' ? res.body.toString('utf8') : null;
    const site = { certValid: res.tls?.authorized === true, html, url: res.url, httpChain, preflight: cors };
    const analysis = analyzeHeaders({ headers: res.headers, setCookies: res.setCookies, https, httpVersion, site });
    const { percentage: sslPercentage, ...ssl_tls } = analyzeTls(res.tls);
    return {
      url,
      effective_url: res.url,
      http_code: res.status,
      http_version: httpVersion,
      response_time: res.timings.total,
      execution_time_ms: Math.round(performance.now() - started),
      timings: res.timings,
      network: { primary_ip: res.remoteAddress, primary_port: res.remotePort, redirect_count: res.chain.length - 1 },
      size: res.truncated
        ? { header: res.headerBytes, download: -1, total: -1 }
        : { header: res.headerBytes, download: res.body.length, total: res.headerBytes + res.body.length },
      headers: res.headers,
      analysis: {
        security: analysis.security,
        ssl_tls,
        cache: analysis.cache,
        performance: analysis.performance,
        cdn_waf: analysis.cdn_waf,
        cookies: analysis.cookies,
      },
      overall_score: overallScore(analysis, sslPercentage),
    };
  };
}
