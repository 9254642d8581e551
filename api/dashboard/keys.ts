// Dashboard: API keys (prefix and name only; a new one shown once), the plan and where its windows stand.
import type { Context } from 'koa';
import type { Account } from '../../db/users.ts';
import { InvalidInputError } from '../../lib/errors.ts';
import { html } from '../pages/html.ts';
import type { Services } from '../services/index.ts';
import { dataTable, seeOther, when, type DashboardPages } from './page.ts';

export function keySection(page: DashboardPages, { accounts, quota }: Pick<Services, 'accounts' | 'quota'>): void {
  async function keysPage(ctx: Context, account: Account, created?: { apiKey: string; name: string | null }) {
    const [minute, day] = await quota.usage({ userId: account.id, plan: account.plan });
    const keys = await accounts.keys(account.id);
    const limits = quota.policy(account.plan);
    const csrf = page.csrf(ctx);
    page.layout(
      ctx,
      account,
      'keys',
      'API keys',
      html`<h1>API keys</h1>
        ${
          created
            ? html`<section aria-labelledby="new-key">\
<h2 id="new-key">Your new key${created.name ? html` "${created.name}"` : ''}</h2><p>Copy it now: it is shown only once.\
</p><p class="key" data-testid="new-key">${created.apiKey}</p></section>`
            : ''
        }
        <p>Plan <strong>${account.plan}</strong>: this minute ${minute!.limit - minute!.remaining} of \
${limits.perMinute} requests (resets in ${minute!.resetSeconds} s), today ${day!.limit - day!.remaining} of \
${limits.perDay} (resets at 00:00 UTC). Limits count per account, whichever key is used.</p>
        <form method="post" action="/dashboard/keys"><input type="hidden" name="csrf" value="${csrf}">
          <label for="key-name">Name of the new key</label>\
<input id="key-name" name="name" type="text" maxlength="100" placeholder="ci, laptop, …">
          <button type="submit">Create key</button></form>
        <h2>Your keys</h2>
        ${
          keys.length === 0
            ? html`<p>No keys yet.</p>`
            : dataTable(
                ['Key', 'Name', 'Created', 'Status', { label: 'Action', hidden: true }],
                keys.map((k) => [
                  html`<code>${k.prefix}…</code>`,
                  k.name ?? '',
                  when(k.createdAt),
                  k.revokedAt ? html`revoked ${when(k.revokedAt)}` : 'active',
                  k.revokedAt
                    ? ''
                    : html`<form method="post" action="/dashboard/keys/revoke">\
<input type="hidden" name="csrf" value="${csrf}"><input type="hidden" name="key_id" value="${k.id}">\
<button type="submit" class="secondary" aria-label="Revoke ${k.prefix}">Revoke</button></form>`,
                ]),
              )
        }`,
    );
  }

  page.get('/keys', (ctx, account) => keysPage(ctx, account));

  page.post('/keys', async (ctx, { form, account }) => {
    const name = (form.name ?? '').trim().slice(0, 100) || null;
    const issued = await accounts.issueKey(account.id, name);
    await keysPage(ctx, account, { apiKey: issued.apiKey, name });
  });

  page.post(
    '/keys/revoke',
    async (ctx, { form, account }) => {
      const keyId = Number(form.key_id);
      if (!Number.isSafeInteger(keyId) || keyId < 1)
        throw new InvalidInputError('key_id must be the id of one of your keys', 'key_id');
      await accounts.revokeKey(account.id, keyId);
      seeOther(ctx, '/dashboard/keys');
    },
    { refusable: false },
  );
}
