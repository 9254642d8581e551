// CDN and WAF detection from response signatures: a header present (or matching), a Server value,
// or a cookie name. First match per kind wins; the table is ordered from specific to generic.
type Signature = {
  name: string;
  kind: 'cdn' | 'waf' | 'both';
  header?: string;
  value?: RegExp;
  server?: RegExp;
  cookie?: RegExp;
};

const SIGNATURES: Signature[] = [
  { name: 'Cloudflare', kind: 'both', header: 'cf-ray' },
  { name: 'Cloudflare', kind: 'both', server: /^cloudflare/i },
  { name: 'Akamai', kind: 'both', server: /AkamaiGHost|AkamaiNetStorage/i },
  { name: 'Akamai', kind: 'both', header: 'x-akamai-transformed' },
  { name: 'Amazon CloudFront', kind: 'cdn', header: 'x-amz-cf-id' },
  { name: 'Amazon CloudFront', kind: 'cdn', header: 'via', value: /cloudfront/i },
  { name: 'Fastly', kind: 'cdn', header: 'x-fastly-request-id' },
  { name: 'Fastly', kind: 'cdn', header: 'x-served-by', value: /^cache-/i },
  { name: 'Azure Front Door', kind: 'cdn', header: 'x-azure-ref' },
  { name: 'Google Cloud CDN', kind: 'cdn', header: 'via', value: /\bgoogle\b/i },
  { name: 'Vercel', kind: 'cdn', header: 'x-vercel-id' },
  { name: 'Netlify', kind: 'cdn', header: 'x-nf-request-id' },
  { name: 'Fly.io', kind: 'cdn', header: 'fly-request-id' },
  { name: 'Bunny CDN', kind: 'cdn', server: /^BunnyCDN/i },
  { name: 'KeyCDN', kind: 'cdn', server: /^keycdn/i },
  { name: 'CDN77', kind: 'cdn', server: /^CDN77/i },
  { name: 'StackPath', kind: 'cdn', header: 'x-sp-url' },
  { name: 'Sucuri', kind: 'both', header: 'x-sucuri-id' },
  { name: 'Sucuri', kind: 'both', server: /Sucuri\/Cloudproxy/i },
  { name: 'Imperva Incapsula', kind: 'both', header: 'x-iinfo' },
  { name: 'Imperva Incapsula', kind: 'both', cookie: /^(incap_ses|visid_incap)_/ },
  { name: 'AWS WAF', kind: 'waf', cookie: /^aws-waf-token$/ },
  { name: 'F5 BIG-IP', kind: 'waf', cookie: /^(BIGipServer|TS01[0-9a-f]{6})/ },
  { name: 'Barracuda', kind: 'waf', cookie: /^barra_counter_session$/ },
  { name: 'ModSecurity', kind: 'waf', server: /mod_security|NOYB/i },
  { name: 'Varnish', kind: 'cdn', header: 'x-varnish' },
];

export function detectCdnWaf(headers: Readonly<Record<string, string>>, cookieNames: readonly string[]) {
  const details: string[] = [];
  let cdn = '';
  let waf = '';
  for (const s of SIGNATURES) {
    const value = s.header ? headers[s.header] : undefined;
    const hit =
      (s.header !== undefined && value !== undefined && (!s.value || s.value.test(value))) ||
      s.server?.test(headers.server ?? '') ||
      (s.cookie !== undefined && cookieNames.some((n) => s.cookie!.test(n)));
    if (!hit) continue;
    const evidence = s.header ? `header ${s.header}` : s.server ? `Server: ${headers.server}` : 'cookie name';
    if (!cdn && (s.kind === 'cdn' || s.kind === 'both')) {
      cdn = s.name;
      details.push(`CDN ${s.name} (${evidence})`);
    }
    if (!waf && (s.kind === 'waf' || s.kind === 'both')) {
      waf = s.name;
      details.push(`WAF ${s.name} (${evidence})`);
    }
  }
  if (!cdn && !waf) details.push('no CDN or WAF signature found');
  return { cdn, waf, details };
}

export const CDN_WAF_SIGNATURE_COUNT = new Set(SIGNATURES.map((s) => s.name)).size;
