// Dashboard: the OAuth clients authorized for /mcp, each with Disconnect.
import { html } from '../pages/html.ts';
import type { Services } from '../services/index.ts';
import { dataTable, seeOther, when, type DashboardPages } from './page.ts';

export function connectedAppSection(
  page: DashboardPages,
  { accounts, config }: Pick<Services, 'accounts' | 'config'>,
): void {
  page.get(
    '/connected-apps',
    async (ctx, account) => {
      const apps = await accounts.connectedApps(account.id);
      const csrf = page.csrf(ctx);
      const notice = ctx.query.revoked
        ? html`<p role="status">Disconnected <bdi>${String(ctx.query.revoked)}</bdi>: its tokens no longer work.</p>`
        : '';
      page.layout(
        ctx,
        account,
        'connected-apps',
        'Connected apps',
        html`<h1>Connected apps</h1>
        <p>Signed in as ${account.email}.</p>
        ${notice}
        ${
          apps.length === 0
            ? html`<p>No app is connected to your account. MCP clients connect at <code>${config.baseUrl}/mcp</code>.\
</p>`
            : dataTable(
                ['App', 'Scopes', 'First used', 'Last used', { label: 'Action', hidden: true }],
                apps.map((a) => [
                  html`<bdi>${a.clientName ?? a.clientId}</bdi><br><small>${a.redirectHosts.join(', ')}</small>`,
                  a.scopes.map((s) => html`<code>${s}</code> `),
                  when(a.firstUsedAt),
                  when(a.lastUsedAt),
                  html`<form method="post" action="/dashboard/connected-apps/revoke">\
<input type="hidden" name="csrf" value="${csrf}"><input type="hidden" name="client_id" value="${a.clientId}">\
<button type="submit" aria-label="Disconnect ${a.clientName ?? a.clientId}">Disconnect</button></form>`,
                ]),
              )
        }`,
      );
    },
    { query: ['revoked'] },
  );

  page.post(
    '/connected-apps/revoke',
    async (ctx, { form, account }) => {
      const clientId = form.client_id ?? '';
      const app = await accounts.disconnect(account.id, clientId);
      if (!app) {
        return page.layout(
          ctx,
          account,
          'connected-apps',
          'Not connected',
          html`<h1>Not connected</h1><p>No app ${clientId} is connected to your account.</p><p>\
<a href="/dashboard/connected-apps">Back</a></p>`,
          404,
        );
      }
      seeOther(ctx, `/dashboard/connected-apps?revoked=${encodeURIComponent(app.clientName ?? app.clientId)}`);
    },
    { refusable: false },
  );
}
