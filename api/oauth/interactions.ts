// The sign-in and consent pages of the OAuth flow (oidc-provider "interactions"): server-rendered,
// CSRF-protected forms. The consent page names the client, the host it will send the user back to,
// and the scopes it asks for; approving saves a grant for the MCP resource with exactly those scopes.
import { DependencyUnavailableError } from '../../lib/errors.ts';
import Router from '@koa/router';
import type { Context } from 'koa';
import type { Kysely } from 'kysely';
import type Provider from 'oidc-provider';
import type { Database } from '../../db/schema.ts';
import type { Config } from '../../lib/config.ts';
import type { KvStore } from '../../lib/kv/index.ts';
import { createClientIp } from '../../lib/net/client-ip.ts';
import { checkCsrf, csrfToken, html, readForm, sendPage, type Html } from '../pages/html.ts';
import { signIn, signInForm } from '../pages/sign-in.ts';
import { INTERACTION_PREFIX, type OauthServer } from './provider.ts';

const SCOPE_TEXT: Record<string, string> = {
  'mcp:tools':
    'Use every MCP tool as you: lookups, and create, read and delete your webhooks and their captured requests',
  'mcp:read': 'Use the read-only MCP tools as you: lookups, and read your webhooks and their captured requests',
  offline_access: 'Stay connected when you are away (refresh tokens)',
};

export function interactionRoutes(deps: {
  config: Config;
  db: Kysely<Database>;
  kv: KvStore;
  oauth: OauthServer;
}): Router {
  const { provider } = deps.oauth;
  const router = new Router({ prefix: INTERACTION_PREFIX });
  const secure = deps.config.baseUrl.startsWith('https:');
  const clientIp = createClientIp(deps.config.trustedProxies);

  /** The interaction of this browser, or an error page when it has expired or belongs to another browser. */
  async function details(ctx: Context) {
    try {
      const d = await provider.interactionDetails(ctx.req, ctx.res);
      if (d.uid !== ctx.params.uid) throw new Error('interaction mismatch');
      return d;
    } catch (err) {
      if (err instanceof DependencyUnavailableError) throw err; // an outage, not an expired sign-in: the error page says so (503)
      sendPage(
        ctx,
        'Sign-in expired',
        html`<h1>This sign-in has expired</h1><p>Go back to the application and connect again.</p>`,
        400,
      );
      return null;
    }
  }

  async function clientView(d: Awaited<ReturnType<Provider['interactionDetails']>>) {
    const client = await provider.Client.find(String(d.params.client_id));
    const redirect = URL.parse(String(d.params.redirect_uri ?? ''));
    // Where the code goes, as a person recognises the app: https://claude.ai, cursor://anysphere.cursor-mcp, com.example.app:
    const returnsTo = !redirect
      ? 'unknown'
      : redirect.host
        ? `${redirect.protocol}//${redirect.host}`
        : redirect.protocol;
    return {
      name: client?.clientName ?? String(d.params.client_id),
      clientId: String(d.params.client_id),
      redirectHost: returnsTo,
      formTargets: redirect ? [redirect.href] : [],
    };
  }

  function intro(client: { name: string; redirectHost: string }): Html {
    return html`<p><strong>${client.name}</strong>, returning to <code>${client.redirectHost}</code>, wants to connect to your account on ${deps.config.baseUrl}.</p>`;
  }

  router.get('/:uid', async (ctx) => {
    const d = await details(ctx);
    if (!d) return;
    const client = await clientView(d);
    const csrf = csrfToken(ctx, secure);
    if (d.prompt.name === 'login') {
      return sendPage(
        ctx,
        'Sign in',
        signInForm({ action: `${INTERACTION_PREFIX}/${d.uid}/login`, csrf, intro: intro(client) }),
        200,
        client,
      );
    }
    const scopes = requestedScopes(d);
    sendPage(
      ctx,
      'Allow access?',
      html`<h1>Allow access?</h1>
        ${intro(client)}
        <p>It asks to:</p>
        <ul>${scopes.map((s) => html`<li><code>${s}</code>: ${SCOPE_TEXT[s] ?? 'an unknown scope'}</li>`)}</ul>
        <p>You can disconnect it at any time under <a href="/dashboard/connected-apps">Connected apps</a>.</p>
        <form method="post" action="${INTERACTION_PREFIX}/${d.uid}/confirm"><input type="hidden" name="csrf" value="${csrf}"><button type="submit">Allow</button></form>
        <form method="post" action="${INTERACTION_PREFIX}/${d.uid}/abort"><input type="hidden" name="csrf" value="${csrf}"><button type="submit" class="secondary">Deny</button></form>`,
      200,
      client,
    );
  });

  router.post('/:uid/login', async (ctx) => {
    const form = await readForm(ctx);
    checkCsrf(ctx, form, deps.config.baseUrl);
    const d = await details(ctx);
    if (!d) return;
    const outcome = await signIn(deps, form.email ?? '', form.password ?? '', clientIp(ctx.req));
    if ('error' in outcome) {
      const client = await clientView(d);
      return sendPage(
        ctx,
        'Sign in',
        signInForm({
          action: `${INTERACTION_PREFIX}/${d.uid}/login`,
          csrf: csrfToken(ctx, secure),
          email: form.email,
          error: outcome.error,
          intro: intro(client),
        }),
        outcome.status,
        client,
      );
    }
    await finish(ctx, { login: { accountId: String(outcome.account.id) } });
  });

  router.post('/:uid/confirm', async (ctx) => {
    const form = await readForm(ctx);
    checkCsrf(ctx, form, deps.config.baseUrl);
    const d = await details(ctx);
    if (!d) return;
    if (d.prompt.name !== 'consent' || !d.session?.accountId)
      return sendPage(ctx, 'Sign in first', html`<h1>Sign in first</h1>`, 400);
    const grant = d.grantId
      ? await provider.Grant.find(d.grantId)
      : new provider.Grant({ accountId: d.session.accountId, clientId: String(d.params.client_id) });
    if (!grant) return sendPage(ctx, 'Sign-in expired', html`<h1>This sign-in has expired</h1>`, 400);
    const missing = d.prompt.details as {
      missingOIDCScope?: string[];
      missingResourceScopes?: Record<string, string[]>;
    };
    if (missing.missingOIDCScope?.length) grant.addOIDCScope(missing.missingOIDCScope.join(' '));
    for (const [indicator, scopes] of Object.entries(missing.missingResourceScopes ?? {}))
      grant.addResourceScope(indicator, scopes.join(' '));
    const grantId = await grant.save();
    await finish(ctx, { consent: d.grantId ? {} : { grantId } });
  });

  router.post('/:uid/abort', async (ctx) => {
    const form = await readForm(ctx);
    checkCsrf(ctx, form, deps.config.baseUrl);
    if (!(await details(ctx))) return;
    await finish(ctx, { error: 'access_denied', error_description: 'The user did not allow access' });
  });

  async function finish(ctx: Context, result: Record<string, unknown>) {
    const to = await provider.interactionResult(ctx.req, ctx.res, result, { mergeWithLastSubmission: false });
    ctx.status = 303;
    ctx.redirect(to);
  }

  return router;
}

function requestedScopes(d: Awaited<ReturnType<Provider['interactionDetails']>>): string[] {
  const details = d.prompt.details as { missingOIDCScope?: string[]; missingResourceScopes?: Record<string, string[]> };
  const scopes = new Set([
    ...(details.missingOIDCScope ?? []),
    ...Object.values(details.missingResourceScopes ?? {}).flat(),
  ]);
  return [...scopes].sort();
}
