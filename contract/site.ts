// Site page discovery and page design audits.
import { z } from 'zod';
import { PAGE_TYPES } from '../lib/jobs/site.ts';
import { urlInput } from './lookups.ts';

export { PAGE_TYPES };
/** The most pages a discovery finds (domain/site/discover.ts) and an audit covers. */
export const MAX_PAGES = 20;
import { ok, operations, post } from './operation.ts';
import * as R from './responses.ts';
import { described } from './validate.ts';
import { wholeNumber } from './input-fields.ts';

const fresh = z.boolean({ error: 'must be true or false' }).default(false);
export const discoverInput = urlInput
  .extend({
    url: described(urlInput.shape.url, 'Any URL of the site, e.g. https://example.com'),
    limit: described(
      wholeNumber(1, MAX_PAGES).default(MAX_PAGES),
      `How many pages, 1 to ${MAX_PAGES} (default ${MAX_PAGES})`,
    ),
    fresh: described(fresh, 'true: ignore the cached answer and look again'),
  })
  .strict();
export const auditInput = urlInput
  .extend({
    url: described(urlInput.shape.url, 'The page to audit, a full http(s) URL'),
    page_type: described(
      z.enum(PAGE_TYPES, { error: `must be one of ${PAGE_TYPES.join(', ')}` }).optional(),
      'landing, article, product, pricing, docs, contact, form or other; inferred from the URL and markup when omitted',
    ),
    fresh: described(fresh, 'true: ignore the cached answer and audit again'),
  })
  .strict();

export const siteOperations = operations('Sites', {
  discover: post('/site/discover', {
    summary: 'Up to 20 pages of a site, from its sitemaps or home page links',
    body: discoverInput,
    success: ok(R.siteDiscoverResult, 'Pages'),
    errors: [400, 502, 504],
  }),
  audit: post('/site/audit', {
    summary: 'Design audit of one page (template, alignment, accessibility, style budget)',
    body: auditInput,
    success: ok(R.siteAuditResult, 'Findings and summary'),
    errors: [400, 502, 504],
  }),
});
