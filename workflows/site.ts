// Site jobs: page discovery and a page design audit, each one activity on the network pool. Short
// jobs, but workflows all the same: operators see each in Temporal UI with its owner, a crashed
// network worker's attempt is retried elsewhere, and the activity's answer is kept in history.
import { proxyActivities } from '@temporalio/workflow';
import type { SiteActivities } from '../activities/site/index.ts';
import { TASK_QUEUES, type AuditResult, type Discovery, type Outcome, type PageType } from '../lib/jobs/index.ts';
const { discoverSitePages, auditPageDesign } = proxyActivities<SiteActivities>({
  taskQueue: TASK_QUEUES.network,
  // Sitemaps (up to 10) or the home page, each fetch bounded to 10 s; the audit reads a page and 4 stylesheets.
  startToCloseTimeout: '2 minutes',
  scheduleToStartTimeout: '1 minute',
  retry: { maximumAttempts: 2, initialInterval: '1 second' },
});

// `fromCache`: answer from the cache when it holds the page (jobs started without `fresh`, for MCP tasks).
export async function siteDiscovery(url: string, fromCache?: boolean): Promise<Outcome<Discovery>> {
  return fromCache ? discoverSitePages(url, true) : discoverSitePages(url);
}

export async function pageAudit(
  url: string,
  pageType: PageType | undefined,
  fromCache?: boolean,
): Promise<Outcome<AuditResult>> {
  return fromCache ? auditPageDesign(url, pageType, true) : auditPageDesign(url, pageType);
}
