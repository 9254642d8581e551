// The design audit of one page: fetch the page and at most MAX_STYLESHEETS linked stylesheets through
// the address guard (size and time bounded), parse HTML (htmlparser2) and CSS (css-tree), run the four
// rule families, and summarise. Static and heuristic: no browser, no layout, no full cascade. The
// page is data: nothing from it is executed, and it is only ever quoted in `evidence` fields.
import type { Element } from 'domhandler';
import { getElementsByTagName, textContent } from 'domutils';
import { parseDocument } from 'htmlparser2';
import { UpstreamError } from '../../../lib/errors.ts';
import type { GuardedFetch } from '../../../lib/net/guarded-fetch.ts';
import { accessibilityFindings } from './rules-accessibility.ts';
import { alignmentFindings } from './rules-alignment.ts';
import { budgetFindings, budgetsFor, styleCounts } from './rules-budget.ts';
import { templateFindings } from './rules-template.ts';
import { PAGE_TYPES, type Category, type Finding, type PageType, type Severity } from './model.ts';
import type { AuditResult } from '../../../lib/jobs/site.ts';
import { parseInlineStyle, parseRules, StyleIndex, type StyleSheetText } from './styles.ts';

export const MAX_STYLESHEETS = 4;
export const PAGE_MAX_BYTES = 2 * 1024 * 1024;
export const STYLESHEET_MAX_BYTES = 1024 * 1024;
export const MAX_FINDINGS_PER_RULE = 20;
export const LIMITATIONS =
  'Static, heuristic analysis of the HTML and CSS source: no browser, no layout, no JavaScript, no full ' +
  'cascade (the declared value with the highest importance and specificity wins; colours and sizes are ' +
  'inherited through matching selectors only). Contrast is decided only where colours are declared as ' +
  'plain values; text over images, gradients, translucent backgrounds and variables is listed in ' +
  'needs_review, never as a finding.';

export interface AuditOptions {
  url: string;
  pageType?: PageType;
  /** Fetches the page (bounded by PAGE_MAX_BYTES) and stylesheets (STYLESHEET_MAX_BYTES). */
  fetchPage: GuardedFetch;
  fetchStylesheet: GuardedFetch;
  now?: Date;
}

const SEVERITY_WEIGHT: Record<Severity, number> = { high: 10, medium: 5, low: 2 };

export async function auditPage(options: AuditOptions): Promise<AuditResult> {
  const page = await options.fetchPage(options.url, { headers: { accept: 'text/html,application/xhtml+xml' } });
  if (page.status >= 400)
    throw new UpstreamError(`${options.url} answered HTTP ${page.status}: there is no page to audit`);
  const type = (page.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  // The site chooses this header: it is echoed only when it looks like a media type.
  if (type && !/html|xml/.test(type))
    throw new UpstreamError(
      `${options.url} answered ` +
        `${/^[a-z0-9.+-]{1,40}\/[a-z0-9.+-]{1,60}$/.test(type) ? type : 'a non-HTML media type'}, not an ` +
        `HTML page: there is nothing to audit`,
    );
  const html = page.body.toString('utf8');
  const doc = parseDocument(html, { lowerCaseAttributeNames: true });
  const elements = getElementsByTagName(() => true, doc, true) as Element[];

  const base = safeBase(elements.find((e) => e.name === 'base')?.attribs.href, page.url);
  const sheets: StyleSheetText[] = [];
  const skipped: Array<{ url: string; reason: string }> = [];
  const links = elements.filter(
    (e) =>
      e.name === 'link' &&
      /\bstylesheet\b/i.test(e.attribs.rel ?? '') &&
      e.attribs.href &&
      !/\balternate\b/i.test(e.attribs.rel ?? ''),
  );
  let read = 0;
  for (const link of links) {
    const href = safeUrl(link.attribs.href!, base);
    if (!href) {
      skipped.push({ url: link.attribs.href!.slice(0, 200), reason: 'not an http(s) URL' });
      continue;
    }
    if (read >= MAX_STYLESHEETS) {
      skipped.push({ url: href, reason: `over the limit of ${MAX_STYLESHEETS} linked stylesheets` });
      continue;
    }
    read++;
    try {
      const css = await options.fetchStylesheet(href, { headers: { accept: 'text/css' } });
      if (css.status >= 400) skipped.push({ url: href, reason: `HTTP ${css.status}` });
      else sheets.push({ source: css.url, text: css.body.toString('utf8') });
    } catch (err) {
      skipped.push({ url: href, reason: (err as Error).message });
    }
  }
  const styleBlocks = elements.filter((e) => e.name === 'style');
  for (const block of styleBlocks) sheets.push({ source: '<style>', text: textContent(block) });
  const { rules } = parseRules(sheets);
  const styles = new StyleIndex(rules);
  const styled = elements.filter((e) => e.attribs.style);

  const inferred = options.pageType
    ? { type: options.pageType, source: 'given by the caller' }
    : inferPageType(page.url, elements);
  const input = {
    url: page.url,
    doc,
    elements,
    styles,
    pageType: inferred.type,
    year: (options.now ?? new Date()).getUTCFullYear(),
  };
  // A rule with a selector list is one Rule per selector sharing its declarations: count them once.
  const unique = [...new Set(rules.map((r) => r.declarations))]
    .flat()
    .concat(styled.flatMap((e) => parseInlineStyle(e.attribs.style!)));
  const accessibility = accessibilityFindings(input);
  const all = [
    ...templateFindings(input),
    ...alignmentFindings(input),
    ...accessibility.findings,
    ...budgetFindings(input, unique),
  ];
  // At most MAX_FINDINGS_PER_RULE of each rule (a page with 10,000 unlabelled inputs is one problem, not 10,000 lines).
  const perRule = new Map<string, number>();
  const findings = all.filter((f) => {
    const n = (perRule.get(f.rule) ?? 0) + 1;
    perRule.set(f.rule, n);
    return n <= MAX_FINDINGS_PER_RULE;
  });
  const omitted = Object.fromEntries(
    [...perRule].filter(([, n]) => n > MAX_FINDINGS_PER_RULE).map(([rule, n]) => [rule, n - MAX_FINDINGS_PER_RULE]),
  );

  const by_category: Record<Category, number> = { template: 0, alignment: 0, accessibility: 0, style_budget: 0 };
  const by_severity: Record<Severity, number> = { high: 0, medium: 0, low: 0 };
  for (const f of findings) {
    by_category[f.category]++;
    by_severity[f.severity]++;
  }
  const counts = styleCounts(unique);
  const budgets = budgetsFor(inferred.type);
  return {
    url: options.url,
    final_url: page.url,
    page_type: inferred.type,
    page_type_source: inferred.source,
    findings,
    needs_review: accessibility.needsReview.slice(0, MAX_FINDINGS_PER_RULE),
    summary: {
      score: Math.max(0, 100 - findings.reduce((s, f) => s + SEVERITY_WEIGHT[f.severity], 0)),
      total_findings: findings.length,
      needs_review: accessibility.needsReview.length,
      by_category,
      by_severity,
      stylesheets: {
        read: sheets.filter((s) => s.source !== '<style>').length,
        skipped,
        style_blocks: styleBlocks.length,
        style_attributes: styled.length,
      },
      style_counts: Object.fromEntries(
        (Object.keys(budgets) as Array<keyof typeof budgets>).map((k) => [
          k,
          k === 'important' ? counts.important_count : counts[k].length,
        ]),
      ),
      page_bytes: page.body.length,
      findings_omitted: omitted,
      limitations: LIMITATIONS,
    },
  };
}

/** The page's <base href> when it is a usable URL, else the page's own URL. */
function safeBase(href: string | undefined, pageUrl: string): URL {
  try {
    return new URL(href ?? pageUrl, pageUrl);
  } catch {
    return new URL(pageUrl);
  }
}

function safeUrl(href: string, base: URL): string | null {
  try {
    const u = new URL(href, base);
    return u.protocol === 'http:' || u.protocol === 'https:' ? u.href : null;
  } catch {
    return null;
  }
}

const PATH_TYPES: Array<[RegExp, PageType]> = [
  [/\/(pricing|plans|price)(\/|$|\.)/i, 'pricing'],
  [/\/(docs?|documentation|guide|guides|reference|api|manual)(\/|$|\.)/i, 'docs'],
  [/\/(contact|contact-us|support)(\/|$|\.)/i, 'contact'],
  [/\/(blog|news|articles?|posts?|stories)(\/|$)/i, 'article'],
  [/\/(products?|shop|store|item|p)\/[^/]+/i, 'product'],
  [/\/(signup|sign-up|register|apply|checkout|subscribe|book|quote)(\/|$|\.)/i, 'form'],
];

/** The page type from the URL path, then from the markup; the answer says which signal decided. */
export function inferPageType(url: string, elements: Element[]): { type: PageType; source: string } {
  const path = new URL(url).pathname;
  for (const [pattern, type] of PATH_TYPES)
    if (pattern.test(path)) return { type, source: `inferred from the URL path ${path}` };
  if (elements.some((e) => e.name === 'article') && elements.filter((e) => e.name === 'p').length >= 5)
    return { type: 'article', source: 'inferred from the markup: an <article> with paragraphs' };
  if (
    elements.some(
      (e) =>
        e.name === 'meta' &&
        (e.attribs.property === 'og:type' || e.attribs.name === 'og:type') &&
        /product/i.test(e.attribs.content ?? ''),
    )
  )
    return { type: 'product', source: 'inferred from the markup: og:type product' };
  const fields = elements.filter(
    (e) => ['input', 'select', 'textarea'].includes(e.name) && !/^(hidden|submit|button)$/i.test(e.attribs.type ?? ''),
  ).length;
  if (fields >= 3)
    return {
      type: path === '/' ? 'landing' : 'form',
      source:
        path === '/'
          ? 'inferred from the URL path / (the home page)'
          : `inferred from the markup: a form with ${fields} fields`,
    };
  if (path === '/' || path === '') return { type: 'landing', source: 'inferred from the URL path / (the home page)' };
  return { type: 'other', source: 'inferred: no signal matched' };
}

export { PAGE_TYPES };
export type { AuditResult, Finding, PageType };
