// Page discovery against loopback fixture sites, through the real address guard.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { discoverPages, normalisePageUrl, sitemapLocs } from '../../../../domain/site/discover.ts';
import { createGuardedFetch } from '../../../../lib/net/guarded-fetch.ts';
import { startLinksSite, startSitemapSite, type SiteFixture } from '../../../fixtures/sites.ts';

const allow = ['127.0.0.1/32'];

describe('page discovery', () => {
  const fetchText = createGuardedFetch({ allow, maxBytes: 10 * 1024 * 1024, timeoutMs: 5000 });
  let sitemapSite: SiteFixture;
  let linksSite: SiteFixture;
  beforeAll(async () => {
    [sitemapSite, linksSite] = await Promise.all([startSitemapSite(), startLinksSite()]);
  });
  afterAll(async () => {
    await Promise.all([sitemapSite?.close(), linksSite?.close()]);
  });

  it(
    'follows robots.txt to a sitemap index and its gzip and plain children, same-site, de-duplicated, at ' +
      'most the limit',
    async () => {
      const found = await discoverPages(`${sitemapSite.url}/docs/page-3`, fetchText, 20);
      expect(found.source).toBe('sitemap');
      expect(found.pages).toHaveLength(20);
      expect(found.pages.slice(0, 12)).toEqual(
        Array.from({ length: 12 }, (_, i) => `${sitemapSite.url}/docs/page-${i + 1}`),
      );
      expect(found.pages.slice(12)).toEqual(
        Array.from({ length: 8 }, (_, i) => `${sitemapSite.url}/blog/post-${i + 1}`),
      );
      expect(found.pages.some((p) => p.includes('elsewhere.example') || p.includes('#'))).toBe(false);
      expect(found.read).toEqual([
        `${sitemapSite.url}/sitemap_index.xml`,
        `${sitemapSite.url}/sitemap-docs.xml.gz`,
        `${sitemapSite.url}/sitemap-blog.xml`,
      ]);
      expect((await discoverPages(sitemapSite.url, fetchText, 5)).pages).toHaveLength(5);
    },
  );

  it('falls back to the home page links: same origin, no anchors, mail, phone, script or assets', async () => {
    const found = await discoverPages(`${linksSite.url}/whatever`, fetchText, 20);
    expect(found.source).toBe('homepage_links');
    expect(found.pages).toEqual([
      `${linksSite.url}/`,
      `${linksSite.url}/about`,
      `${linksSite.url}/pricing`,
      `${linksSite.url}/docs/`,
    ]);
  });

  it(
    "reads each entry's own <loc> from a sitemap as a stream, CDATA and entities included, not the image " +
      'locs inside it',
    () => {
      const xml = `<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" \
xmlns:image="http://www.google.com/schemas/sitemap-image/1.1">
      <url><loc>https://a.test/one?x=1&amp;y=2</loc>\
<image:image><image:loc>https://a.test/photo.jpg</image:loc></image:image></url>
      <url><lastmod>2026-01-01</lastmod><loc><![CDATA[https://a.test/two]]></loc></url>
      <sm:url xmlns:sm="http://www.sitemaps.org/schemas/sitemap/0.9"><sm:loc> https://a.test/three </sm:loc></sm:url>
    </urlset>`;
      expect(sitemapLocs(xml)).toEqual({
        sitemaps: [],
        urls: ['https://a.test/one?x=1&y=2', 'https://a.test/two', 'https://a.test/three'],
      });
      const index =
        '<sitemapindex><sitemap><loc>https://a.test/s1.xml</loc></sitemap><sitemap><loc>https://a.test/s2.x' +
        'ml</loc></sitemap></sitemapindex>';
      expect(sitemapLocs(index)).toEqual({ sitemaps: ['https://a.test/s1.xml', 'https://a.test/s2.xml'], urls: [] });
      expect(
        sitemapLocs(`<urlset>${'<url><loc>https://a.test/p</loc></url>'.repeat(10)}</urlset>`, 3).urls,
      ).toHaveLength(3);
    },
  );

  it('normalises page URLs', () => {
    expect(normalisePageUrl('HTTP://Example.COM:80/a#b')).toBe('http://example.com/a');
    expect(normalisePageUrl('https://example.com')).toBe('https://example.com/');
    expect(normalisePageUrl('mailto:x@example.com')).toBeNull();
  });

  it('refuses private addresses before connecting', async () => {
    await expect(discoverPages('http://10.255.255.1/', fetchText, 20)).rejects.toThrow(
      /not allowed|private|forbidden|refus/i,
    );
  });
});
