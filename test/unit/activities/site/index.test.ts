// The site activities with their real dependencies: the loopback sites of test/fixtures/sites.ts
// through the address guard (loopback allowed only), and the in-process key-value store as their
// cache. Each answers fresh unless asked for the cache, stores what it found, and answers a failure
// the caller should hear (a refused address, a page too large) as a value, not a thrown error.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSiteActivities, type SiteActivities } from '../../../../activities/site/index.ts';
import { MAX_PAGES } from '../../../../contract/site.ts';
import { MemoryKvStore } from '../../../../lib/kv/index.ts';
import { startAuditSite, startSitemapSite, type SiteFixture } from '../../../fixtures/sites.ts';

let sitemapSite: SiteFixture;
let auditSite: SiteFixture;
let activities: SiteActivities;

beforeAll(async () => {
  [sitemapSite, auditSite] = await Promise.all([startSitemapSite(), startAuditSite()]);
  activities = createSiteActivities({ kv: new MemoryKvStore(), allow: ['127.0.0.1/32'] });
});
afterAll(() => Promise.all([sitemapSite?.close(), auditSite?.close()]));

describe('discoverSitePages', () => {
  it("lists the site's pages from its sitemaps, then answers from the cache only when asked to", async () => {
    const first = await activities.discoverSitePages(sitemapSite.url);
    expect(first).toMatchObject({
      ok: true,
      value: {
        source: 'sitemap',
        read: expect.arrayContaining([`${sitemapSite.url}/sitemap-docs.xml.gz`, `${sitemapSite.url}/sitemap-blog.xml`]),
      },
    });
    if (!first.ok) throw new Error('unreachable');
    expect(first).not.toHaveProperty('storedAt');
    // In the sitemaps' order, without the foreign page and the repeat, up to MAX_PAGES.
    expect(first.value.pages).toEqual(
      [
        ...Array.from({ length: 12 }, (_, i) => `/docs/page-${i + 1}`),
        ...Array.from({ length: 13 }, (_, i) => `/blog/post-${i + 1}`),
      ]
        .slice(0, MAX_PAGES)
        .map((p) => sitemapSite.url + p),
    );

    const robotsReads = sitemapSite.count('/robots.txt');
    const cached = await activities.discoverSitePages(sitemapSite.url, true);
    expect(cached).toEqual({ ok: true, value: first.value, storedAt: expect.any(Number) });
    expect(sitemapSite.count('/robots.txt')).toBe(robotsReads);
    expect(await activities.discoverSitePages(sitemapSite.url)).toEqual(first);
    expect(sitemapSite.count('/robots.txt')).toBe(robotsReads + 1);
  });

  it('answers a refused address as a failure, without fetching', async () => {
    expect(await activities.discoverSitePages('http://127.0.0.2/')).toMatchObject({
      ok: false,
      code: 'target_not_allowed',
    });
  });
});

describe('auditPageDesign', () => {
  it('audits the page for the type asked, then answers from the cache only when asked to, per page type', async () => {
    const url = `${auditSite.url}/a11y`;
    const first = await activities.auditPageDesign(url, 'docs');
    expect(first).toMatchObject({
      ok: true,
      value: { url, page_type: 'docs', page_type_source: 'given by the caller', summary: { needs_review: 6 } },
    });
    if (!first.ok) throw new Error('unreachable');
    expect(first.value.findings.find((f) => f.rule === 'contrast' && f.selector === '.muted')).toMatchObject({
      measured: '4.48:1 (#777777 on #ffffff)',
      threshold: '4.5:1',
    });
    const reads = auditSite.count('/a11y');
    expect(await activities.auditPageDesign(url, 'docs', true)).toEqual({
      ...first,
      storedAt: expect.any(Number),
    });
    expect(auditSite.count('/a11y')).toBe(reads);
    // Another page type is another audit.
    expect(await activities.auditPageDesign(url, undefined, true)).toMatchObject({
      ok: true,
      value: { page_type: 'other' },
    });
    expect(auditSite.count('/a11y')).toBe(reads + 1);
  });

  it('answers a page too large as a failure', async () => {
    expect(await activities.auditPageDesign(`${auditSite.url}/big`, undefined)).toMatchObject({
      ok: false,
      message: expect.stringMatching(/larger than 2097152 bytes/),
    });
  });
});
