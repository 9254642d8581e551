// Site jobs: page discovery and a page design audit, each one activity on the network pool. Short
// jobs, but workflows all the same: operators see each in Temporal UI with its owner, a crashed
// network worker's attempt is retried elsewhere, and the activity's answer is kept in history.
import { proxyActivities } from '@temporalio/workflow';
import type { Outcome, SiteActivities } from '../activities/site/index.ts';
import type { Discovery } from '../activities/site/discover.ts';
import type { AuditResult, PageType } from '../activities/site/audit/index.ts';
import { TASK_QUEUES } from './task-queues.ts';

export const SITE_DISCOVERY_KIND = 'site-discovery';
export const PAGE_AUDIT_KIND = 'page-audit';

const { discoverSitePages, auditPageDesign } = proxyActivities<SiteActivities>({
  taskQueue: TASK_QUEUES.network,
  // Sitemaps (up to 10) or the home page, each fetch bounded to 10 s; the audit reads a page and 4 stylesheets.
  startToCloseTimeout: '2 minutes',
  scheduleToStartTimeout: '1 minute',
  retry: { maximumAttempts: 2, initialInterval: '1 second' },
});

export async function siteDiscovery(url: string): Promise<Outcome<Discovery>> {
  return discoverSitePages(url);
}

export async function pageAudit(url: string, pageType: PageType | undefined): Promise<Outcome<AuditResult>> {
  return auditPageDesign(url, pageType);
}
