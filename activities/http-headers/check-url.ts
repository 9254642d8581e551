// GET a URL through the SSRF guard and analyse the answer: the http-headers lookup.
import { negotiatedProtocol } from '../../lib/net/alpn-probe.ts';
import { bareHost } from '../../lib/net/bare-host.ts';
import { createGuardedFetch } from '../../lib/net/guarded-fetch.ts';
import { analyzeHeaders, overallScore } from './analyze.ts';
import { analyzeTls } from './tls-grade.ts';

export interface HeaderCheckOptions {
  allow: readonly string[];
  timeoutMs?: number;
}

export const USER_AGENT = 'netops-header-check/0.1 (+security header analysis)';

export function createHeaderCheck(options: HeaderCheckOptions) {
  // Untrusted certificates are a finding to report, not a reason to give up.
  // Only the headers matter: a body is read up to 1 MiB to count it, and a larger one is cut there
  // (size.download and size.total are then -1, as the contract allows for total).
  const guardedFetch = createGuardedFetch({ allow: options.allow, allowInvalidCertificates: true, timeoutMs: options.timeoutMs, maxBytes: 1024 * 1024, onOversize: 'truncate', field: 'url' });

  return async function checkUrl(url: string) {
    const started = performance.now();
    const res = await guardedFetch(url, { headers: { 'User-Agent': USER_AGENT, Accept: '*/*', 'Accept-Encoding': 'br, gzip, deflate' } });
    const final = new URL(res.url);
    const https = final.protocol === 'https:';
    // The request speaks HTTP/1.1; whether the server would speak HTTP/2 is its ALPN choice.
    const alpn = https ? await negotiatedProtocol(res.remoteAddress, res.remotePort, bareHost(final)) : null;
    const httpVersion = alpn === 'h2' ? 2 : res.httpVersion;
    const analysis = analyzeHeaders({ headers: res.headers, setCookies: res.setCookies, https, httpVersion });
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
      size: res.truncated ? { header: res.headerBytes, download: -1, total: -1 } : { header: res.headerBytes, download: res.body.length, total: res.headerBytes + res.body.length },
      headers: res.headers,
      analysis: { security: analysis.security, ssl_tls, cache: analysis.cache, performance: analysis.performance, cdn_waf: analysis.cdn_waf, cookies: analysis.cookies },
      overall_score: overallScore(analysis, sslPercentage),
    };
  };
}
