import { describe, expect, it } from 'vitest';
import { CDN_WAF_SIGNATURE_COUNT, detectCdnWaf } from '../../../../domain/http-headers/cdn-waf.ts';

describe('HTTP header analysis', () => {
  it('detects at least 15 CDNs and WAFs from their signatures', () => {
    expect(CDN_WAF_SIGNATURE_COUNT).toBeGreaterThanOrEqual(15);
    expect(detectCdnWaf({ 'cf-ray': '8abc-FRA', server: 'cloudflare' }, [])).toMatchObject({
      cdn: 'Cloudflare',
      waf: 'Cloudflare',
    });
    expect(
      detectCdnWaf({ 'x-amz-cf-id': 'x', via: '1.1 abc.cloudfront.net (CloudFront)' }, ['aws-waf-token']),
    ).toMatchObject({ cdn: 'Amazon CloudFront', waf: 'AWS WAF' });
    expect(detectCdnWaf({ 'x-served-by': 'cache-fra-etou8220088-FRA' }, [])).toMatchObject({ cdn: 'Fastly', waf: '' });
    expect(detectCdnWaf({}, [])).toEqual({ cdn: '', waf: '', details: ['no CDN or WAF signature found'] });
  });
});
