// The dashboard's pages refuse a query parameter they do not take, as the API does: a 400 page naming
// it and the field it is closest to (a mistyped search filter dropped unseen would show every capture
// as if they matched), with a link to the page without it; the parameters their forms and links send
// are taken.
import { describe, expect, it } from 'vitest';
import { FormBrowser, type Page } from '../../scripts/oauth-forms.ts';
import { admin, call, targets } from '../support/client.ts';
import { newUser, PASSWORD } from '../support/mcp.ts';

describe.each(targets())('dashboard page queries ($name)', (target) => {
  it('refuses an unknown parameter naming it and the nearest, and takes those its forms send', async () => {
    const user = await newUser(target, 'free');
    const { stdout } = await admin(target, ['create-key', '--email', user.email, '--plan', 'free']);
    const key: string = JSON.parse(stdout).api_key;
    const created = await call(target, 'POST', '/api/v1/network/my-webhook-create', { key, json: {} });
    const id = created.body.webhook_id as string;
    const browser = new FormBrowser();
    let page = (await browser.get(`${target.baseUrl}/dashboard/webhooks`)) as Page;
    page = (await browser.submit(page, /\/dashboard\/sign-in/, { email: user.email, password: PASSWORD })) as Page;
    expect(page.url).toBe(`${target.baseUrl}/dashboard/webhooks`);
    const open = async (path: string) => (await browser.get(`${target.baseUrl}${path}`)) as Page;

    const typo = await open(`/dashboard/webhooks/${id}?metod=POST`);
    expect(typo.status).toBe(400);
    expect(typo.html).toContain('metod: is not a field of this page (did you mean method?)');
    expect(typo.html).toContain(`<a href="/dashboard/webhooks/${id}">Open the page without it</a>`);
    // What the search form sends is taken (empty fields included).
    const searched = await open(`/dashboard/webhooks/${id}?method=POST&header=&q=&since=&until=&schema=`);
    expect(searched.status).toBe(200);
    expect((await open(`/dashboard/webhooks/${id}/diff?a=1&b=2&ignore=date`)).html).toContain(
      'ignore: is not a field of this page (a typo?)',
    );
    // An id that is no webhook id is not found: it would have pointed the page's links elsewhere.
    const climbing = await open('/dashboard/webhooks/..%2F..%2Fwebhook%2FAbCdEf%3Fx%3D/diff');
    expect(climbing.status).toBe(404);
    expect(climbing.html).not.toContain('../../webhook');
    // A page that takes no query says so.
    const keys = await open('/dashboard/keys?tab=2');
    expect(keys.status).toBe(400);
    expect(keys.html).toContain('tab: is not a field of this page (this page takes no query parameters)');
    // The replay link of a webhook's page opens the load-test form filled.
    const replay = await open(`/dashboard/load-tests?replay_webhook=${id}&method=POST`);
    expect(replay.status).toBe(200);
    expect(replay.html).toContain(id);
    expect((await open(`/dashboard/load-tests?replay_webhok=${id}`)).html).toContain(
      'replay_webhok: is not a field of this page (did you mean replay_webhook?)',
    );
  });
});
