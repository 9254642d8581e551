// Caching and delivery: what the headers say about reuse by browsers and shared caches, and about
// compression and protocol.

export const CACHE_MAX_SCORE = 10;
export const PERFORMANCE_MAX_SCORE = 10;

export function analyzeCache(headers: Readonly<Record<string, string>>) {
  const cc = new Map(
    (headers['cache-control'] ?? '')
      .split(',')
      .map((d) => d.trim().toLowerCase())
      .filter(Boolean)
      .map((d) => {
        const [k = '', v = ''] = d.split('=');
        return [k.trim(), v.trim().replace(/^"|"$/g, '')] as const;
      }),
  );
  const details: string[] = [];
  let score = 0;
  const noStore = cc.has('no-store');
  const maxAge = Number(cc.get('s-maxage') ?? cc.get('max-age') ?? NaN);
  const expires = headers.expires ? Date.parse(headers.expires) : NaN;
  const freshFor = Number.isFinite(maxAge)
    ? maxAge
    : Number.isFinite(expires)
      ? Math.round((expires - Date.now()) / 1000)
      : NaN;
  if (headers['cache-control']) {
    score += 4;
    details.push(`Cache-Control: ${headers['cache-control']}`);
  } else details.push('no Cache-Control: caches apply heuristics');
  if (headers.etag || headers['last-modified']) {
    score += 4;
    const validators = [headers.etag && 'ETag', headers['last-modified'] && 'Last-Modified'].filter(Boolean);
    details.push(`validators: ${validators.join(', ')} (cheap revalidation)`);
  } else details.push('no ETag or Last-Modified: every revalidation downloads the whole response');
  if (headers.vary) details.push(`Vary: ${headers.vary}`);
  if (headers.age) details.push(`served from a cache, Age ${headers.age} s`);
  if (noStore) details.push('no-store: never cached (right for private, changing pages)');
  else if (cc.has('private')) details.push('private: browser cache only');
  if (!noStore && Number.isFinite(freshFor) && freshFor > 0) {
    score += 2;
    details.push(`fresh for ${freshFor} s`);
  }
  const cacheable = !noStore && (freshFor > 0 || Boolean(headers.etag || headers['last-modified']));
  return { cacheable, score: Math.min(score, CACHE_MAX_SCORE), max_score: CACHE_MAX_SCORE, details };
}

/** `httpVersion` as the response came (1.1, 2, 3). */
export function analyzePerformance(headers: Readonly<Record<string, string>>, httpVersion: number) {
  const details: string[] = [];
  const encoding = (headers['content-encoding'] ?? '').trim().toLowerCase();
  const compression = ['br', 'zstd', 'gzip', 'deflate'].find((e) => encoding.split(/\s*,\s*/).includes(e)) ?? 'none';
  const http2 = httpVersion >= 2;
  const http3 = httpVersion >= 3 || /\bh3(-\d+)?=/.test(headers['alt-svc'] ?? '');
  let score = 0;
  if (compression === 'br' || compression === 'zstd') score += 5;
  else if (compression !== 'none') score += 4;
  details.push(
    compression === 'none'
      ? 'not compressed (send Accept-Encoding-aware br or gzip)'
      : `compressed with ${compression}`,
  );
  if (http2) score += 3;
  details.push(http2 ? `HTTP/${httpVersion}` : `HTTP/${httpVersion}: HTTP/2 multiplexes requests on one connection`);
  if (http3) score += 2;
  details.push(http3 ? 'HTTP/3 offered (Alt-Svc h3)' : 'no HTTP/3 offered in Alt-Svc');
  return { compression, http2, http3, score, max_score: PERFORMANCE_MAX_SCORE, details };
}
