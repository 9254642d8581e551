// The site jobs on a real Temporal server: each is one activity on the network pool, asked to use the
// cache only when the job says so; its answer (a failure too) is the job's result, and an activity
// that keeps crashing is tried twice, then fails the job.
import { WorkflowFailedError } from '@temporalio/client';
import { ActivityFailure, ApplicationFailure } from '@temporalio/common';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import type { SiteActivities } from '../../../activities/site/index.ts';
import type { AuditResult, Discovery, Outcome } from '../../../lib/jobs/index.ts';
import { startWorkflowEnv, type WorkflowEnv } from '../../support/workflow-env.ts';

const discoverSitePages = vi.fn<SiteActivities['discoverSitePages']>();
const auditPageDesign = vi.fn<SiteActivities['auditPageDesign']>();

let env: WorkflowEnv;
beforeAll(async () => {
  env = await startWorkflowEnv({
    workflows: 'workflows/site.ts',
    activities: { network: { discoverSitePages, auditPageDesign } },
  });
});
afterAll(() => env?.close());
beforeEach(() => {
  discoverSitePages.mockReset();
  auditPageDesign.mockReset();
});

const SITE = 'https://site.example/';
const discovery: Outcome<Discovery> = {
  ok: true,
  value: { source: 'sitemap', pages: [`${SITE}a`, `${SITE}b`], read: [`${SITE}sitemap.xml`] },
};
const audit = { url: SITE, final_url: SITE, page_type: 'pricing', findings: [] } as unknown as AuditResult;

describe('siteDiscovery', () => {
  it("answers the activity's discovery, fresh unless the job asks for the cache", async () => {
    discoverSitePages.mockResolvedValue(discovery);
    const handle = await env.start('siteDiscovery', [SITE]);
    expect(await handle.result()).toEqual(discovery);
    await env.record(handle, 'site-discovery');
    const cached = { ...discovery, storedAt: 1_700_000_000_000 };
    discoverSitePages.mockResolvedValue(cached);
    expect(await (await env.start('siteDiscovery', [SITE, true])).result()).toEqual(cached);
    expect(discoverSitePages.mock.calls).toEqual([[SITE], [SITE, true]]);
  });

  it("answers a failure the activity returns as the job's result, not as a failed job", async () => {
    const refused: Outcome<Discovery> = {
      ok: false,
      code: 'target_not_allowed',
      message: 'url: target not allowed: 10.0.0.1 is private',
    };
    discoverSitePages.mockResolvedValue(refused);
    expect(await (await env.start('siteDiscovery', [SITE])).result()).toEqual(refused);
  });

  it('fails after a second attempt when the activity keeps crashing', async () => {
    discoverSitePages.mockRejectedValue(new Error('socket hang up'));
    const err = await (await env.start('siteDiscovery', [SITE])).result().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(WorkflowFailedError);
    const cause = (err as WorkflowFailedError).cause as ActivityFailure;
    expect(cause).toBeInstanceOf(ActivityFailure);
    expect(cause.cause).toBeInstanceOf(ApplicationFailure);
    expect(cause.cause!.message).toBe('socket hang up');
    expect(discoverSitePages).toHaveBeenCalledTimes(2);
  });

  it('replays the recorded history with the current code', async () => {
    await env.replay('site-discovery');
  });
});

describe('pageAudit', () => {
  it("answers the activity's audit for the page type asked, fresh unless the job asks for the cache", async () => {
    auditPageDesign.mockResolvedValue({ ok: true, value: audit });
    const handle = await env.start('pageAudit', [SITE, 'pricing']);
    expect(await handle.result()).toEqual({ ok: true, value: audit });
    await env.record(handle, 'page-audit');
    auditPageDesign.mockResolvedValue({ ok: true, value: audit, storedAt: 1_700_000_000_000 });
    expect(await (await env.start('pageAudit', [SITE, undefined, true])).result()).toEqual({
      ok: true,
      value: audit,
      storedAt: 1_700_000_000_000,
    });
    expect(auditPageDesign.mock.calls).toEqual([
      [SITE, 'pricing'],
      [SITE, undefined, true],
    ]);
  });

  it('replays the recorded history with the current code', async () => {
    await env.replay('page-audit');
  });
});
