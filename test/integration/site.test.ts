// Page discovery and design audits as jobs on the network pool, through REST (API keys) and through
// the MCP tools (the SDK's client over HTTP with OAuth): the audit flow, the cache (hit, age, fresh),
// the limits at their edges, and the SSRF refusal before anything is fetched.
import { CallToolResultSchema, CreateTaskResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, expectErrorShape, newAccount, targets } from '../support/client.ts';
import { connectedClient, newUser } from '../support/mcp.ts';
import { startAuditSite, startSitemapSite, type SiteFixture } from '../fixtures/sites.ts';

describe.each(targets())('site discovery and design audit ($name)', (target) => {
  let key: string;
  let sitemapSite: SiteFixture;
  let auditSite: SiteFixture;
  beforeAll(async () => {
    key = (await newAccount(target)).key;
    [sitemapSite, auditSite] = await Promise.all([startSitemapSite(), startAuditSite()]);
  });
  afterAll(async () => {
    await Promise.all([sitemapSite?.close(), auditSite?.close()]);
  });

  it('POST /api/v1/site/discover lists pages, then answers repeats from the cache until fresh is asked', async () => {
    const first = await call(target, 'POST', '/api/v1/site/discover', {
      key,
      json: { url: sitemapSite.url, limit: 20 },
    });
    expect(first.status, first.text).toBe(200);
    expect(first.body).toMatchObject({
      success: true,
      source: 'sitemap',
      total: 20,
      cached: false,
      cache_age_seconds: 0,
    });
    expect(first.body.pages[0]).toBe(`${sitemapSite.url}/docs/page-1`);
    const robotsReads = sitemapSite.count('/robots.txt');

    const second = await call(target, 'POST', '/api/v1/site/discover', {
      key,
      json: { url: sitemapSite.url, limit: 3 },
    });
    expect(second.body).toMatchObject({ source: 'sitemap', total: 3, cached: true });
    expect(second.body.pages).toEqual(first.body.pages.slice(0, 3));
    expect(sitemapSite.count('/robots.txt')).toBe(robotsReads);
    await new Promise((r) => setTimeout(r, 1100));
    const aged = await call(target, 'POST', '/api/v1/site/discover', { key, json: { url: sitemapSite.url } });
    expect(aged.body).toMatchObject({ cached: true, total: 20 });
    expect(aged.body.cache_age_seconds).toBeGreaterThanOrEqual(1);
    expect(aged.body.cache_age_seconds).toBeLessThan(60);

    const fresh = await call(target, 'POST', '/api/v1/site/discover', {
      key,
      json: { url: sitemapSite.url, fresh: true },
    });
    expect(fresh.body).toMatchObject({ cached: false, total: 20 });
    expect(sitemapSite.count('/robots.txt')).toBe(robotsReads + 1);
  });

  it('validates limit at its edges and refuses private targets before fetching', async () => {
    for (const limit of [0, 21, 2.5, '5']) {
      const r = await call(target, 'POST', '/api/v1/site/discover', { key, json: { url: sitemapSite.url, limit } });
      expectErrorShape(r, 400);
      expect(r.body.message).toMatch(/^limit/);
    }
    expect(
      (await call(target, 'POST', '/api/v1/site/discover', { key, json: { url: sitemapSite.url, limit: 1 } })).body
        .total,
    ).toBe(1);
    const privateTarget = await call(target, 'POST', '/api/v1/site/audit', {
      key,
      json: { url: 'http://10.255.255.1/' },
    });
    expectErrorShape(privateTarget, 400);
    expect(privateTarget.body.message).toMatch(/url/);
    const badType = await call(target, 'POST', '/api/v1/site/audit', {
      key,
      json: { url: `${auditSite.url}/clean`, page_type: 'homepage' },
    });
    expectErrorShape(badType, 400);
    expect(badType.body.message).toMatch(/^page_type: must be one of landing, article/);
    expectErrorShape(
      await call(target, 'POST', '/api/v1/site/audit', { key, json: { url: 'ftp://example.test/' } }),
      400,
    );
  });

  it(
    'POST /api/v1/site/audit audits one page, caches it for the same URL and page type, and reports a page ' +
      'too large',
    async () => {
      const first = await call(target, 'POST', '/api/v1/site/audit', { key, json: { url: `${auditSite.url}/a11y` } });
      expect(first.status, first.text).toBe(200);
      expect(first.body).toMatchObject({
        success: true,
        page_type: 'other',
        cached: false,
        summary: { by_category: { accessibility: 10 }, needs_review: 6 },
      });
      expect(first.body.needs_review.map((r: any) => r.selector).sort()).toEqual([
        '.caption',
        '.glass',
        '.gradient',
        '.photo',
        '.photo-dark',
        '.themed',
      ]);
      expect(first.body.findings.find((f: any) => f.rule === 'contrast' && f.selector === '.muted')).toMatchObject({
        measured: '4.48:1 (#777777 on #ffffff)',
        threshold: '4.5:1',
      });
      const reads = auditSite.count('/a11y');
      const again = await call(target, 'POST', '/api/v1/site/audit', { key, json: { url: `${auditSite.url}/a11y` } });
      expect(again.body).toMatchObject({ cached: true, findings: first.body.findings });
      expect(auditSite.count('/a11y')).toBe(reads);
      // Another page type is another audit (its thresholds may differ).
      expect(
        (
          await call(target, 'POST', '/api/v1/site/audit', {
            key,
            json: { url: `${auditSite.url}/a11y`, page_type: 'docs' },
          })
        ).body,
      ).toMatchObject({ cached: false, page_type: 'docs', page_type_source: 'given by the caller' });

      const big = await call(target, 'POST', '/api/v1/site/audit', { key, json: { url: `${auditSite.url}/big` } });
      expectErrorShape(big, 502);
      expect(big.body.message).toMatch(/larger than 2097152 bytes/);
    },
  );

  it('works through the MCP tools: discover once, audit each page, as an MCP client would', async () => {
    const user = await newUser(target);
    const { client } = await connectedClient(target, user.email);
    const { tools } = await client.listTools();
    for (const name of ['discover_site_pages', 'audit_page_design']) {
      const tool = tools.find((t) => t.name === name)!;
      expect(tool.annotations).toMatchObject({ readOnlyHint: true, destructiveHint: false, openWorldHint: true });
      expect(tool.outputSchema?.type).toBe('object');
    }

    const discovered = await client.callTool({
      name: 'discover_site_pages',
      arguments: { url: sitemapSite.url, limit: 2 },
    });
    expect(discovered.isError, JSON.stringify(discovered)).toBeFalsy();
    const pages = (discovered.structuredContent as { pages: string[] }).pages;
    expect(pages).toEqual([`${sitemapSite.url}/docs/page-1`, `${sitemapSite.url}/docs/page-2`]);

    // The sitemap's pages are 404 here; audit the fixture pages the same way, one call per page.
    for (const path of ['/clean', '/template']) {
      const audited = await client.callTool({
        name: 'audit_page_design',
        arguments: { url: `${auditSite.url}${path}`, page_type: 'landing' },
      });
      expect(audited.isError, JSON.stringify(audited)).toBeFalsy();
      const out = audited.structuredContent as { findings: Array<{ rule: string }>; summary: { score: number } };
      if (path === '/clean') expect(out.findings).toEqual([]);
      else expect(out.findings.map((f) => f.rule)).toContain('placeholder-text');
      // The text a model reads names no page content (that stays in the evidence fields).
      const text = (audited.content as Array<{ text: string }>)[0]!.text;
      expect(text).not.toMatch(/lorem|Your Company|React App/i);
      // it may quote a path the site chose
      expect(text).not.toContain((audited.structuredContent as { page_type_source: string }).page_type_source);
      expect(text).toMatch(/^Audit of .* score \d+\/100/);
    }

    const missing = await client.callTool({ name: 'audit_page_design', arguments: { url: pages[0] } });
    expect(missing.isError).toBe(true);
    expect(JSON.stringify(missing.content)).toMatch(/answered HTTP 404/);

    // As tasks: the job answers from the cache the plain call filled (unless fresh); a failed audit is a failed task.
    const asTask = async (args: Record<string, unknown>) =>
      (
        await client.request(
          { method: 'tools/call', params: { name: 'audit_page_design', arguments: args, task: {} } },
          CreateTaskResultSchema,
        )
      ).task;
    const cachedTask = await asTask({ url: `${auditSite.url}/clean`, page_type: 'landing' });
    expect(cachedTask.taskId).toMatch(/^page-audit-/);
    const fromCache = await client.experimental.tasks.getTaskResult(cachedTask.taskId, CallToolResultSchema);
    expect(fromCache.structuredContent).toMatchObject({ cached: true, findings: [] });
    expect((fromCache.structuredContent as { cache_age_seconds: number }).cache_age_seconds).toBeGreaterThanOrEqual(0);
    const freshTask = await asTask({ url: `${auditSite.url}/clean`, page_type: 'landing', fresh: true });
    expect(
      (await client.experimental.tasks.getTaskResult(freshTask.taskId, CallToolResultSchema)).structuredContent,
    ).toMatchObject({ cached: false, cache_age_seconds: 0 });
    const failedTask = await asTask({ url: pages[0] });
    const failed = await client.experimental.tasks.getTaskResult(failedTask.taskId, CallToolResultSchema);
    expect(failed.isError).toBe(true);
    expect(JSON.stringify(failed.content)).toMatch(/answered HTTP 404/);
    expect(await client.experimental.tasks.getTask(failedTask.taskId)).toMatchObject({
      status: 'failed',
      statusMessage: expect.stringMatching(/^failed: .*404/),
    });
    const ssrf = await client.callTool({ name: 'discover_site_pages', arguments: { url: 'http://127.0.0.2/' } });
    expect(ssrf.isError).toBe(true);
    expect(JSON.stringify(ssrf.content)).toMatch(/not allowed|loopback|private|forbidden/i);
    await client.close();
  });
});
