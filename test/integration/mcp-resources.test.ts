// MCP resources and prompts on both protocol revisions, against the running service: the 2.x SDK
// client at 2026-07-28 and the 1.x one at 2025-11-25, each signed in through the real OAuth forms,
// list the account's resources and their templates, read a capture (made by posting to the webhook's
// capture URL) by its URI, are refused another user's capture exactly as an unknown one, read an
// ended load test's results and report as REST answers them, and list and get the prompts; a
// 2026-07-28 client reads the MCP Apps' ui:// resources as the browser suites' 2025-11-25 one does.
import { describe, expect, it, vi } from 'vitest';
import { admin, call, freshWindow, targets } from '../support/client.ts';
import { loadTargetSuite, loadTestCalls, pacedTest } from '../support/load-tests.ts';
import { servedApp } from '../support/mcp-app-host.ts';
import { connectedClient, connectedModernClient, newUser } from '../support/mcp.ts';

type AnyClient =
  | Awaited<ReturnType<typeof connectedClient>>['client']
  | Awaited<ReturnType<typeof connectedModernClient>>['client'];

const CAPTURE_TEMPLATE = 'netops://webhooks/{webhook_id}/requests/{n}';

/** A webhook of the client's user, and one request posted to its capture URL. */
async function webhookWithCapture(client: AnyClient, body: string) {
  const created = await client.callTool({ name: 'webhook_create', arguments: {} });
  expect(created.isError, JSON.stringify(created)).toBeFalsy();
  const { webhook_id, webhook_url } = created.structuredContent as { webhook_id: string; webhook_url: string };
  const posted = await fetch(`${webhook_url}/orders?x=1`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body,
  });
  expect(posted.status).toBeLessThan(300);
  return { webhookId: webhook_id };
}

/** The error a read is refused with, its ids taken out (so that two refusals can be compared). */
async function refusal(client: AnyClient, uri: string, ...ids: string[]) {
  const err = await client.readResource({ uri }).then(
    (r) => {
      throw new Error(`read ${uri}: ${JSON.stringify(r)}`);
    },
    (e: { code?: number; message: string }) => e,
  );
  return { code: err.code, message: ids.reduce((m, id) => m.replaceAll(id, 'ID'), err.message) };
}

for (const target of targets()) {
  describe(`MCP resources and prompts (${target.name})`, () => {
    const site = loadTargetSuite();

    it("reads an ended load test's results and report by URI on both revisions, as REST answers them", {
      timeout: 120_000,
    }, async () => {
      const { email } = await newUser(target, 'enterprise');
      const key = JSON.parse((await admin(target, ['create-key', '--email', email, '--plan', 'enterprise'])).stdout)
        .api_key as string;
      const calls = loadTestCalls(target, Promise.resolve({ key }));
      const started = await calls.start(pacedTest(`${site().url}/resources-${target.name}`));
      expect(started.status, JSON.stringify(started.body)).toBe(202);
      const testId: string = started.body.test_id;
      await calls.waitFor(testId, (b) => b.status === 'completed', 60_000);
      const results = (await calls.results(testId)).body;
      const total = results.results.total_requests as number;
      expect(total).toBeGreaterThan(0);
      const report = (await call(target, 'GET', `/api/v1/load-testing/report/${testId}?format=json`, { key })).body;
      expect(report.tests).toHaveLength(1);

      const uris = [`netops://load-tests/${testId}/results`, `netops://load-tests/${testId}/report`];
      for (const connect of [connectedModernClient, connectedClient]) {
        const { client } = await connect(target, email);
        try {
          const listed = (await client.listResources()).resources.filter((r) => uris.includes(r.uri));
          expect(listed.map((r) => [r.uri, r.mimeType])).toEqual(uris.map((uri) => [uri, 'application/json']));
          const [readResults, readReport] = await Promise.all(
            uris.map(async (uri) => {
              const content = (await client.readResource({ uri })).contents[0] as { uri: string; text: string };
              expect(content.uri).toBe(uri);
              return JSON.parse(content.text);
            }),
          );
          expect(readResults.results.total_requests).toBe(total);
          expect(readResults).toEqual(results);
          // The same report as REST's (made again for each read: only its generated_at differs).
          expect(readReport.tests[0]).toMatchObject({ test_id: testId, status: 'completed' });
          expect(readReport.tests[0].summary.total_requests).toBe(total);
          expect(readReport.tests).toEqual(report.tests);
        } finally {
          await client.close();
        }
      }
    });

    it("2026-07-28: serves the MCP Apps' ui:// resources, named by their tools' _meta", async () => {
      const { email } = await newUser(target);
      const { client } = await connectedModernClient(target, email);
      try {
        await servedApp(
          client,
          'ui://netops/load-test.html',
          ['load_test_start', 'load_test_status'],
          'load_test_stop',
        );
        await servedApp(client, 'ui://netops/webhook-captures.html', ['webhook_wait_for_request'], 'webhook_requests');
      } finally {
        await client.close();
      }
    });

    it("2026-07-28: a listen on a webhook's captures is notified of a new capture; another user's is refused", {
      timeout: 90_000,
    }, async () => {
      const [owner, other] = await Promise.all([newUser(target), newUser(target)]);
      const client = (await connectedModernClient(target, owner.email)).client;
      const stranger = (await connectedModernClient(target, other.email)).client;
      const legacy = (await connectedClient(target, owner.email)).client;
      try {
        expect(client.getServerCapabilities()?.resources).toMatchObject({ subscribe: true });
        // 2025-11-25 keeps no session to notify on: it does not offer resources/subscribe.
        expect(legacy.getServerCapabilities()?.resources?.subscribe).toBeFalsy();

        const created = await client.callTool({ name: 'webhook_create', arguments: {} });
        const { webhook_id: webhookId, webhook_url: webhookUrl } = created.structuredContent as {
          webhook_id: string;
          webhook_url: string;
        };
        const uri = `netops://webhooks/${webhookId}/requests`;
        const updated: string[] = [];
        client.setNotificationHandler('notifications/resources/updated', (n) => {
          updated.push(n.params.uri);
        });
        const subscription = await client.listen({ resourceSubscriptions: [uri] });
        try {
          expect(subscription.honoredFilter).toEqual({ resourceSubscriptions: [uri] });
          expect(updated).toEqual([]);
          expect((await fetch(webhookUrl, { method: 'POST', body: 'first' })).status).toBeLessThan(300);
          await vi.waitFor(() => expect(updated).toContain(uri), { timeout: 15_000, interval: 100 });
          const read = JSON.parse(((await client.readResource({ uri })).contents[0] as { text: string }).text);
          expect(read.requests.map((r: { body: string }) => r.body)).toEqual(['first']);
          // A large body is left out of the listing, read by its capture's own URI.
          expect((await fetch(webhookUrl, { method: 'POST', body: 'x'.repeat(10_000) })).status).toBeLessThan(300);
          const listed = JSON.parse(((await client.readResource({ uri })).contents[0] as { text: string }).text);
          const large = listed.requests[0];
          expect([large.body, large.body_omitted]).toEqual([null, `10000 characters: read ${uri}/${large.id}`]);
          const whole = await client.readResource({ uri: `${uri}/${large.id}` });
          expect(JSON.parse((whole.contents[0] as { text: string }).text).body).toHaveLength(10_000);
        } finally {
          await subscription.close();
        }

        // Another user's webhook, or no webhook at all: refused alike, before anything is acknowledged.
        const unknownUri = 'netops://webhooks/AAAAAAAAAAAAAAAAAAAAAA/requests';
        const refusedWith = (u: string) =>
          stranger.listen({ resourceSubscriptions: [u] }).then(
            () => {
              throw new Error(`listen ${u} was acknowledged`);
            },
            (e: { message: string }) => e.message.replace(u, 'URI'),
          );
        const foreign = await refusedWith(uri);
        expect(foreign).toMatch(/not a resource of yours/);
        expect(foreign).toBe(await refusedWith(unknownUri));
        // Not a percent-encoding, or another spelling of one's own: refused, never a 500 or a silent stream.
        expect(await refusedWith('netops://webhooks/%E0%A4%A/requests')).toMatch(/not a resource of yours/);
        expect(
          await refusedWith(
            uri.replace(
              webhookId,
              encodeURIComponent(webhookId).replace(/[A-Z]/, (c) => `%${c.charCodeAt(0).toString(16)}`),
            ),
          ),
        ).toMatch(/not a resource of yours/);
        // One stream follows at most 50 resources; the same one given many times is one.
        const many = Array.from({ length: 51 }, (_, i) => `netops://webhooks/W${i}/requests`);
        await expect(client.listen({ resourceSubscriptions: many })).rejects.toThrow(/at most 50 resources/);
        const repeated = await client.listen({ resourceSubscriptions: Array.from({ length: 200 }, () => uri) });
        await repeated.close();
      } finally {
        await Promise.all([client.close(), stranger.close(), legacy.close()]);
      }
    });

    it('2026-07-28: a listen counts as one request of the plan, as opening a REST live stream does', {
      timeout: 90_000,
    }, async () => {
      const user = await newUser(target, 'free'); // 10 requests a minute
      const client = (await connectedModernClient(target, user.email)).client;
      try {
        await freshWindow(30);
        const created = await client.callTool({ name: 'webhook_create', arguments: {} }); // the minute's 1st
        const { webhook_id: webhookId } = created.structuredContent as { webhook_id: string };
        const subscription = await client.listen({
          resourceSubscriptions: [`netops://webhooks/${webhookId}/requests`],
        });
        await subscription.close(); // the 2nd
        let allowed = 0;
        for (;;) {
          const listed = await client.callTool({ name: 'webhook_list', arguments: {} });
          if (listed.isError) {
            expect(JSON.stringify(listed.content)).toMatch(
              /Rate limit of the free plan reached \(10 requests per minute/,
            );
            break;
          }
          allowed += 1;
        }
        expect(allowed).toBe(8);
      } finally {
        await client.close();
      }
    });

    for (const revision of ['2026-07-28', '2025-11-25'] as const) {
      const connect = revision === '2026-07-28' ? connectedModernClient : connectedClient;

      it(`${revision}: lists the account's resources, reads a capture by URI, refuses another user's`, {
        timeout: 90_000,
      }, async () => {
        const [owner, other] = await Promise.all([newUser(target), newUser(target)]);
        const client = (await connect(target, owner.email)).client;
        const stranger = (await connect(target, other.email)).client;
        try {
          const { webhookId } = await webhookWithCapture(client, '{"order":42}');

          const templates = (await client.listResourceTemplates()).resourceTemplates.map((t) => t.uriTemplate);
          expect(templates).toEqual(
            expect.arrayContaining([
              CAPTURE_TEMPLATE,
              'netops://webhooks/{webhook_id}/requests',
              'netops://load-tests/{test_id}/results',
              'netops://load-tests/{test_id}/report',
            ]),
          );

          const listed = (await client.listResources()).resources;
          const captures = listed.filter((r) => r.uri.startsWith(`netops://webhooks/${webhookId}/requests/`));
          expect(captures).toHaveLength(1);
          expect(captures[0]).toMatchObject({ mimeType: 'application/json', title: expect.stringContaining('POST') });
          expect(listed.map((r) => r.uri)).toContain(`netops://webhooks/${webhookId}/requests`);
          // The stranger's list holds none of it (only the load test App, which is everyone's and no one's data).
          expect((await stranger.listResources()).resources.filter((r) => !r.uri.startsWith('ui://'))).toEqual([]);

          const uri = captures[0]!.uri;
          const read = await client.readResource({ uri });
          expect(read.contents).toHaveLength(1);
          const content = read.contents[0] as { uri: string; mimeType: string; text: string };
          expect([content.uri, content.mimeType]).toEqual([uri, 'application/json']);
          expect(JSON.parse(content.text)).toMatchObject({
            id: Number(uri.split('/').at(-1)),
            method: 'POST',
            path: `/webhook/${webhookId}/orders`,
            body: '{"order":42}',
            query_params: '{"x":"1"}',
          });
          const all = JSON.parse(
            (
              (await client.readResource({ uri: `netops://webhooks/${webhookId}/requests` })).contents[0] as {
                text: string;
              }
            ).text,
          );
          expect(all).toMatchObject({ total: 1, requests: [{ body: '{"order":42}' }] });

          // Another user's capture is not found, as a capture of no webhook at all is.
          const unknownId = 'AAAAAAAAAAAAAAAAAAAAAA';
          const foreign = await refusal(stranger, uri, webhookId);
          expect(foreign.message).toMatch(/not found/i);
          // Nothing of the capture in the refusal (its URI's own number aside, which the caller sent).
          expect(foreign.message).not.toMatch(/order|POST/);
          expect(foreign).toEqual(await refusal(stranger, uri.replace(webhookId, unknownId), unknownId));
          // And the owner's own capture that does not exist names the capture.
          expect((await refusal(client, `netops://webhooks/${webhookId}/requests/999999999`)).message).toMatch(
            /No capture 999999999/,
          );
        } finally {
          await Promise.all([client.close(), stranger.close()]);
        }
      });

      it(`${revision}: lists the prompts and fills one in with its arguments`, { timeout: 60_000 }, async () => {
        const { email } = await newUser(target);
        const client = (await connect(target, email)).client;
        try {
          const prompts = (await client.listPrompts()).prompts;
          const names = prompts.map((p) => p.name);
          expect(names).toEqual(expect.arrayContaining(['load_test_staging', 'debug_webhook_handler']));
          const staging = prompts.find((p) => p.name === 'load_test_staging')!;
          expect(staging.arguments).toEqual(
            expect.arrayContaining([expect.objectContaining({ name: 'url', required: true })]),
          );

          const got = await client.getPrompt({
            name: 'debug_webhook_handler',
            arguments: { webhook_id: 'wh123', handler_url: 'https://staging.example.test/hooks', symptom: '401s' },
          });
          expect(got.messages).toHaveLength(1);
          const text = (got.messages[0]!.content as { text: string }).text;
          expect(got.messages[0]!.role).toBe('user');
          expect(text).toContain('netops://webhooks/wh123/requests');
          expect(text).toContain('https://staging.example.test/hooks');
          expect(text).toContain('401s');

          const load = await client.getPrompt({
            name: 'load_test_staging',
            arguments: { url: 'https://staging.example.test/health', users: '5' },
          });
          expect((load.messages[0]!.content as { text: string }).text).toMatch(
            /targetUrl https:\/\/staging\.example\.test\/health, concurrentUsers 5, testDuration 60/,
          );
          // A required argument left out is refused.
          await expect(client.getPrompt({ name: 'load_test_staging', arguments: {} })).rejects.toThrow(/url/);
        } finally {
          await client.close();
        }
      });
    }
  });
}
