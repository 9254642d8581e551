// Every implemented endpoint answers every field of the interface contract with the contract's type.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { call, newAccount, targets } from '../support/client.ts';
import * as spec from '../support/spec-schemas.ts';

function expectShape(schema: z.ZodType, body: unknown) {
  const result = schema.safeParse(body);
  expect(result.success ? [] : result.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`)).toEqual([]);
}

describe.each(targets())('response shapes of the spec ($name)', (target) => {
  it('webhooks: create, list, requests, delete', async () => {
    const { key } = await newAccount(target);
    const created = await call(target, 'POST', '/api/v1/network/my-webhook-create', { key });
    expectShape(spec.webhookCreateResult, created.body);
    await fetch(`${created.body.webhook_url}?a=1`, { method: 'POST', body: 'x' });
    await fetch(created.body.webhook_url);
    expectShape(spec.webhookListResult, (await call(target, 'GET', '/api/v1/network/my-webhooks', { key })).body);
    expectShape(
      spec.webhookRequestsResult,
      (await call(target, 'GET', `/api/v1/network/my-webhook-requests?webhook_id=${created.body.webhook_id}`, { key }))
        .body,
    );
    expectShape(
      spec.webhookDeleteResult,
      (
        await call(target, 'POST', '/api/v1/network/my-webhook-delete', {
          key,
          json: { webhook_id: created.body.webhook_id },
        })
      ).body,
    );
  });

  it('whois in its three modes, and the bulk check', async () => {
    const { key } = await newAccount(target);
    const stamp = Date.now().toString(36);
    for (const mode of ['full', 'fast', 'availability_only']) {
      for (const name of [`taken-${stamp}.com`, `free-${stamp}.com`, `whois-taken-${stamp}.net`]) {
        const body = (await call(target, 'GET', `/api/v1/network/whois?domain=${name}&mode=${mode}`, { key })).body;
        expectShape(spec.whoisResult, body);
        if (mode === 'full') expect(body).not.toHaveProperty('meta');
        else expectShape(spec.whoisMeta, body.meta);
      }
    }
    expectShape(
      spec.whoisResult,
      (await call(target, 'GET', `/api/v1/network/whois?domain=free2-${stamp}.com&include_pricing=false`, { key }))
        .body,
    );
    const bulk = await call(target, 'POST', '/api/v1/network/domains/check', {
      key,
      json: { domains: [`taken-${stamp}.org`, `free-${stamp}.org`, `taken-${stamp}.com`] },
    });
    expectShape(spec.bulkCheckResult, bulk.body);
    expect(bulk.body.results[`free-${stamp}.org`].pricing).toBeDefined();
  });

  it('load testing: start, status, stop and results', async () => {
    const { key } = await newAccount(target);
    const site = http.createServer((_req, res) => res.end('ok'));
    await new Promise<void>((r) => site.listen(0, '127.0.0.1', () => r()));
    try {
      const started = await call(target, 'POST', '/api/v1/load-testing/start', {
        key,
        json: {
          targetUrl: `http://127.0.0.1:${(site.address() as AddressInfo).port}/`,
          httpMethod: 'GET',
          concurrentUsers: 2,
          testDuration: 30,
          rampUpTime: 0,
          requestsPerSecond: 20,
        },
      });
      expectShape(spec.loadTestStartResult, started.body);
      const id = started.body.test_id;
      let status: any;
      for (let i = 0; i < 100; i++) {
        status = (await call(target, 'GET', `/api/v1/load-testing/status/${id}`, { key })).body;
        if (status.status === 'running' && status.metrics.total_requests > 0) break;
        await new Promise((r) => setTimeout(r, 100));
      }
      expectShape(spec.loadTestStatusResult, status);
      expectShape(
        spec.loadTestStopResult,
        (await call(target, 'POST', `/api/v1/load-testing/stop/${id}`, { key })).body,
      );
      expectShape(
        spec.loadTestResultsResult,
        (await call(target, 'GET', `/api/v1/load-testing/results/${id}`, { key })).body,
      );
    } finally {
      site.closeAllConnections();
      site.close();
    }
  });

  it('dns-lookup, ip-info and http-headers', async () => {
    const { key } = await newAccount(target);
    expectShape(
      spec.dnsLookupResult,
      (await call(target, 'GET', '/api/v1/network/dns-lookup?domain=example.test', { key })).body,
    );
    for (const ip of ['1.1.1.1', '10.0.0.1', '2606:4700:4700::1111']) {
      expectShape(spec.ipInfoResult, (await call(target, 'GET', `/api/v1/network/ip-info?ip=${ip}`, { key })).body);
    }
    const plain = http.createServer((_req, res) => res.end('plain'));
    await new Promise<void>((r) => plain.listen(0, '127.0.0.1', () => r()));
    const plainUrl = `http://127.0.0.1:${(plain.address() as AddressInfo).port}/`;
    try {
      for (const url of [`${target.siteUrl}/bare`, `${target.siteUrl}/hardened`, plainUrl]) {
        const reply = await call(target, 'GET', `/api/v1/network/http-headers?url=${encodeURIComponent(url)}`, { key });
        expectShape(spec.httpHeadersResult, reply.body);
      }
    } finally {
      await new Promise<void>((r) => plain.close(() => r()));
    }
  });
});
