// The design audit against a loopback fixture site, through the real address guard: each fixture page
// asserts its specific findings (rule, selector, measured, threshold), the clean page asserts none.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  auditPage,
  inferPageType,
  PAGE_MAX_BYTES,
  STYLESHEET_MAX_BYTES,
  type Finding,
} from '../../../../../domain/site/audit/index.ts';
import { createGuardedFetch } from '../../../../../lib/net/guarded-fetch.ts';
import { startAuditSite, type SiteFixture } from '../../../../fixtures/sites.ts';

const allow = ['127.0.0.1/32'];
const fetchPage = createGuardedFetch({ allow, maxBytes: PAGE_MAX_BYTES, timeoutMs: 5000 });
const fetchStylesheet = createGuardedFetch({ allow, maxBytes: STYLESHEET_MAX_BYTES, timeoutMs: 5000 });
const now = new Date('2026-11-22T12:00:00Z');

describe('design audit', () => {
  let site: SiteFixture;
  beforeAll(async () => {
    site = await startAuditSite();
  });
  afterAll(() => site?.close());

  const audit = (path: string, pageType?: Parameters<typeof auditPage>[0]['pageType']) =>
    auditPage({ url: `${site.url}${path}`, pageType, fetchPage, fetchStylesheet, now });
  const find = (findings: Finding[], rule: string, selector?: string) =>
    findings.filter((f) => f.rule === rule && (selector === undefined || f.selector === selector));
  /** Each rule's first finding (of the selector given, when one is) holds the fields given. */
  const expectFindings = (findings: Finding[], expected: Record<string, Partial<Finding>>) => {
    for (const [rule, fields] of Object.entries(expected))
      expect(find(findings, rule, fields.selector ?? undefined)[0], rule).toMatchObject(fields);
  };

  it('finds nothing on the clean page', async () => {
    const result = await audit('/clean');
    expect(result.findings).toEqual([]);
    expect(result.needs_review).toEqual([]);
    expect(result.summary).toMatchObject({
      score: 100,
      total_findings: 0,
      needs_review: 0,
      stylesheets: { read: 1, skipped: [] },
    });
    expect(result.summary.limitations).toMatch(/no browser/);
  });

  it('finds the signs of an unedited template', async () => {
    const { findings, page_type } = await audit('/template', 'landing');
    expect(page_type).toBe('landing');
    const rules = new Set(findings.map((f) => f.rule));
    for (const rule of [
      'default-title',
      'default-meta-description',
      'default-favicon',
      'starter-class-names',
      'starter-comment',
      'placeholder-text',
      'placeholder-image',
      'empty-nav-link',
      'stale-copyright',
    ])
      expect(rules, rule).toContain(rule);
    expectFindings(findings, {
      'default-title': { selector: 'title', measured: 'title "React App"', severity: 'high' },
      'empty-nav-link': { measured: '2 navigation link(s) going nowhere', threshold: '0' },
      'stale-copyright': {
        measured: 'copyright 2019',
        threshold: '2024 or later',
        fix: 'Update the year to 2026 (or render it from the current date)',
      },
    });
    expect(find(findings, 'placeholder-text').map((f) => f.measured)).toEqual(
      expect.arrayContaining([
        'placeholder text: lorem ipsum',
        'placeholder text: Your Company',
        'placeholder text: numbered placeholder ("Feature 1")',
      ]),
    );
    expect(find(findings, 'placeholder-text').every((f) => f.severity === 'high')).toBe(true); // a landing page
    expect(find(findings, 'starter-class-names')[0]!.selector).toBe('.App-header');
    expect(find(findings, 'placeholder-image')[0]!.evidence).toBe('https://via.placeholder.com/150');
    expect(findings.every((f) => f.category === 'template')).toBe(true);
  });

  it('finds each alignment bug in the CSS', async () => {
    const { findings } = await audit('/alignment');
    expectFindings(findings, {
      'mixed-text-align': {
        selector: 'div.features',
        property: 'text-align',
        measured: 'siblings aligned center and left',
        threshold: 'one text-align among siblings',
      },
      'negative-margin-compensation': {
        selector: '.row',
        property: 'margin-left',
        measured: 'margin-left: -15px with padding-left: 15px',
      },
      'fixed-width-overflow': {
        selector: '.banner',
        measured: 'width: 960px',
        threshold: 'at most 375px, or capped with max-width: 100%',
        fix: 'width: 100%; max-width: 960px',
      },
      'magic-absolute-offset': {
        selector: '.badge',
        measured: 'top: 37px; left: 13px',
        threshold: 'offsets of 0, 50% or multiples of 8px',
      },
      'inconsistent-radius': { selector: '.card, .card-header', measured: '2 values in .card: 8px, 4px' },
      'inconsistent-gap': { selector: '.grid, .grid-tight', measured: '2 values in .grid: 16px, 12px' },
    });
    expect(
      find(findings, 'off-scale-spacing')
        .map((f) => f.measured)
        .sort(),
    ).toEqual(['12px', '13px', '15px']);
    expect(find(findings, 'off-scale-spacing').find((f) => f.measured === '13px')).toMatchObject({
      selector: '.card-footer',
      property: 'margin-top',
      fix: 'margin-top: 16px',
    });
    expect(find(findings, 'off-scale-spacing')[0]!.threshold).toMatch(/^multiples of 8px/);
  });

  it('finds each accessibility failure, with the measured ratio and a passing colour', async () => {
    const { findings, needs_review, summary } = await audit('/a11y');
    expect(find(findings, 'contrast', '.muted')).toEqual([
      expect.objectContaining({
        property: 'color',
        measured: '4.48:1 (#777777 on #ffffff)',
        threshold: '4.5:1',
        fix: 'color: #767676 (4.54:1 on #ffffff)',
        severity: 'medium',
      }),
    ]);
    const inherited = find(findings, 'contrast', '.hero p')[0]!;
    expect(inherited).toMatchObject({ measured: '2.20:1 (#666666 on #333333)', threshold: '4.5:1', severity: 'high' });
    expect(inherited.evidence).toContain('background #333333 from .hero');
    expect(find(findings, 'contrast', '.big')).toEqual([]); // 3.03:1 is enough for 24px text
    // An h2 is 1.5em in every browser (24px here), not the body's 16px: large text, 3:1 passes.
    expect(find(findings, 'contrast', '.section-title')).toEqual([]);
    // 75% of 24px is 18px, normal weight: no longer large text.
    expect(find(findings, 'contrast', '.fine-print')[0]).toMatchObject({
      measured: '3.03:1 (#949494 on #ffffff)',
      threshold: '4.5:1',
    });
    // Text over a background image or gradient, a picture, a translucent panel or a variable colour: not
    // judged against a colour that is not what it sits on, but listed for a person to look at.
    for (const selector of ['.photo', '.photo-dark', '.caption', '.themed', '.glass', '.glass p', '.gradient'])
      expect(find(findings, 'contrast', selector), selector).toEqual([]);
    const review = (selector: string) => needs_review.filter((r) => r.selector === selector).map((r) => r.reason);
    expect(review('.photo')).toEqual(['text over a background image or gradient']);
    expect(review('.photo-dark')).toEqual(['text over a background image or gradient']);
    expect(review('.gradient')).toEqual(['text over a background image or gradient']);
    expect(review('.caption')).toEqual(['text positioned over an image: its contrast depends on the picture']);
    expect(review('.themed')).toEqual(['a colour the source does not resolve (a variable or function)']);
    expect(review('.glass')).toEqual(['a translucent background: what shows through is decided by the layout']);
    expect(needs_review.every((r) => r.rule === 'contrast' && r.category === 'accessibility')).toBe(true);
    expect(summary.needs_review).toBe(needs_review.length);
    // A caption with its own opaque box is decided on that box: #777 on white fails 4.5:1.
    expect(find(findings, 'contrast', '.boxed-caption')[0]).toMatchObject({ measured: '4.48:1 (#777777 on #ffffff)' });
    expectFindings(findings, {
      'target-size': { selector: '.icon-btn', measured: '16×16 px', threshold: '24×24 px' },
      'img-missing-alt': { selector: 'img[src="/photo.jpg"]', measured: '1 image(s) without alt' },
      'missing-lang': { selector: 'html', fix: '<html lang="en"> (the language of the page)' },
      'missing-title': { measured: 'no <title>' },
      'skipped-heading-level': { measured: 'h1 followed by h3', threshold: 'h2 at most' },
    });
    expect(find(findings, 'input-missing-label').map((f) => f.selector)).toEqual(['input[name="q"]']);
  });

  it('counts the style budget and lists the values over it', async () => {
    const { findings, summary } = await audit('/budget');
    expectFindings(findings, {
      'budget-colors': { category: 'style_budget', measured: '20 unique colors', threshold: 'at most 16' },
      'budget-font-sizes': { measured: '14 unique font sizes', threshold: 'at most 10' },
      'budget-important': { measured: '12 !important uses', threshold: 'at most 10' },
    });
    expect(find(findings, 'budget-font-sizes')[0]!.evidence).toContain('11px, 12px, 13px');
    expect(summary.style_counts).toMatchObject({ colors: 20, font_sizes: 14, important: 12 });
    // Docs pages may use more type sizes.
    expect(find((await audit('/budget', 'docs')).findings, 'budget-font-sizes')[0]!.threshold).toBe('at most 12');
  });

  it('reads at most 4 linked stylesheets and says which it skipped and why', async () => {
    const { summary } = await audit('/many-styles');
    expect(summary.stylesheets.read).toBe(4);
    expect(summary.stylesheets.skipped).toEqual([
      { url: `${site.url}/s5.css`, reason: 'over the limit of 4 linked stylesheets' },
      { url: `${site.url}/s6.css`, reason: 'over the limit of 4 linked stylesheets' },
    ]);
    expect(site.count('/s5.css')).toBe(0);
  });

  it('refuses stylesheets at private addresses without connecting, and audits the rest', async () => {
    const { summary } = await audit('/private-style');
    expect(summary.stylesheets.read).toBe(1);
    expect(summary.stylesheets.skipped.map((s) => s.url)).toEqual([
      'http://127.0.0.2:9/evil.css',
      'http://10.255.255.1/internal.css',
    ]);
    // the guard's refusal, not a failed connection
    for (const s of summary.stylesheets.skipped) expect(s.reason).toMatch(/not allowed/i);
  });

  it('gives a clear error for a page over the size limit, a 404 and a non-HTML answer', async () => {
    await expect(audit('/big')).rejects.toThrow(`larger than ${PAGE_MAX_BYTES} bytes`);
    await expect(audit('/missing')).rejects.toThrow(/answered HTTP 404/);
    await expect(audit('/not-html')).rejects.toThrow(/application\/json, not an HTML page/);
  });

  it(
    'caps each rule at 20 findings and counts the rest, survives a broken <base>, and does not over-match ' +
      'selectors',
    async () => {
      const { findings, summary } = await audit('/edge');
      expect(find(findings, 'input-missing-label')).toHaveLength(20);
      expect(summary.findings_omitted).toEqual({ 'input-missing-label': 10 });
      // Neither input[type=checkbox] (a text input here) nor a:not(.big) (the link is .big) names these elements.
      expect(find(findings, 'target-size')).toEqual([]);
    },
  );

  it('infers the page type and says how', async () => {
    expect((await audit('/pricing')).page_type_source).toBe('inferred from the URL path /pricing');
    expect((await audit('/pricing')).page_type).toBe('pricing');
    expect(inferPageType('https://x.test/', [])).toEqual({
      type: 'landing',
      source: 'inferred from the URL path / (the home page)',
    });
    expect(inferPageType('https://x.test/misc', [])).toEqual({ type: 'other', source: 'inferred: no signal matched' });
  });
});
