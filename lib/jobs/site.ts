// Site jobs (workflows/site.ts): page discovery and a page design audit, each one activity on the
// network pool (activities/site). Their answers are values, failures too (`Outcome`).
import type { ErrorCode } from '../errors.ts';
import { defineJobKind } from './job-kind.ts';

export const SITE_DISCOVERY_KIND = 'site-discovery';
export const PAGE_AUDIT_KIND = 'page-audit';

/**
 * A failure is the AppError's code and message (lib/errors.ts): the API answers with the same error.
 * `storedAt` (ms) when the value came from the cache (a job asked to use it: an MCP call without `fresh`).
 */
export type Outcome<T> = { ok: true; value: T; storedAt?: number } | { ok: false; code: ErrorCode; message: string };

export interface Discovery {
  source: 'sitemap' | 'homepage_links';
  pages: string[];
  /** Where the pages came from: the sitemap URLs read, or the home page. */
  read: string[];
}

export const PAGE_TYPES = ['landing', 'article', 'product', 'pricing', 'docs', 'contact', 'form', 'other'] as const;
export type PageType = (typeof PAGE_TYPES)[number];

export type Category = 'template' | 'alignment' | 'accessibility' | 'style_budget';
export type Severity = 'high' | 'medium' | 'low';

export interface Finding {
  rule: string;
  category: Category;
  severity: Severity;
  /** The CSS selector or element it concerns (page content, quoted as data). */
  selector: string | null;
  /** The CSS property, when the finding is about one. */
  property: string | null;
  measured: string;
  threshold: string;
  /** A concrete change that resolves it. */
  fix: string;
  /** A short excerpt of the page or stylesheet (untrusted data, at most 160 characters). */
  evidence: string;
}

/**
 * Something the audit could not decide from the source (contrast over an image, say): for a person to
 * look at, not a finding.
 */
export interface Review {
  rule: string;
  category: Category;
  selector: string | null;
  /** Why the audit could not decide. */
  reason: string;
  /** A short excerpt of the page or stylesheet (untrusted data, at most 160 characters). */
  evidence: string;
}

export interface AuditResult {
  url: string;
  final_url: string;
  page_type: PageType;
  page_type_source: string;
  findings: Finding[];
  /** What the audit could not decide (at most MAX_FINDINGS_PER_RULE per rule); it never counts in the score. */
  needs_review: Review[];
  summary: {
    score: number;
    total_findings: number;
    /** Entries of `needs_review`, and how many more were left out. */
    needs_review: number;
    by_category: Record<Category, number>;
    by_severity: Record<Severity, number>;
    stylesheets: {
      read: number;
      skipped: Array<{ url: string; reason: string }>;
      style_blocks: number;
      style_attributes: number;
    };
    style_counts: Record<string, number>;
    page_bytes: number;
    /** Findings left out per rule beyond MAX_FINDINGS_PER_RULE (domain/site/audit). */
    findings_omitted: Record<string, number>;
    limitations: string;
  };
}

export type SiteDiscoveryWorkflow = (url: string, fromCache?: boolean) => Promise<Outcome<Discovery>>;
export type PageAuditWorkflow = (
  url: string,
  pageType: PageType | undefined,
  fromCache?: boolean,
) => Promise<Outcome<AuditResult>>;
export const SITE_DISCOVERY_JOB = defineJobKind<SiteDiscoveryWorkflow>()({
  kind: SITE_DISCOVERY_KIND,
  workflow: 'siteDiscovery',
  pools: ['network'],
  task: { restStarted: false },
});
export const PAGE_AUDIT_JOB = defineJobKind<PageAuditWorkflow>()({
  kind: PAGE_AUDIT_KIND,
  workflow: 'pageAudit',
  pools: ['network'],
  task: { restStarted: false },
});
