// The sign-in and consent pages of the OAuth flow (oidc-provider "interactions"): server-rendered,
// CSRF-protected forms. They name the client (a self-registered one marked unverified, with its client id
// and when it registered; one known by its Client ID Metadata Document by that document's host), where it
// will send the user back, and the scopes it asks for; approving saves a grant for the MCP resource with
// exactly those scopes.
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
      // An outage, not an expired sign-in: the error page says so (503).
      if (err instanceof DependencyUnavailableError) throw err;
      sendPage(
        ctx,
        'Sign-in expired',
        html`<h1>This sign-in has expired</h1><p>Go back to the application and connect again.</p>`,
        400,
      );
      return null;
    }
  }

  async function clientView(d: Awaited<ReturnType<Provider['interactionDetails']>>): Promise<ClientView> {
    const clientId = String(d.params.client_id);
    const client = await provider.Client.find(clientId);
    const redirect = URL.parse(String(d.params.redirect_uri ?? ''));
    // A Client ID Metadata Document was fetched from the client id, an https URL: its host vouches for the client.
    const document = (client as { clientIdMetadataDocument?: boolean } | undefined)?.clientIdMetadataDocument
      ? URL.parse(clientId)
      : null;
    const issuedAt = client?.clientIdIssuedAt;
    return {
      known: !!document,
      name: document?.host ?? client?.clientName ?? clientId,
      selfName: document ? (client?.clientName ?? null) : null,
      clientId,
      redirect: redirect ? String(d.params.redirect_uri) : 'unknown',
      registeredAt: typeof issuedAt === 'number' ? new Date(issuedAt * 1000) : null,
      formTargets: redirect ? [redirect.href] : [],
    };
  }

  /** Who asks: a self-registered client marked unverified, with what can be checked of it. */
  function intro(client: ClientView): Html {
    const mark = client.known ? '' : html` <span class="client-mark">Unverified</span>`;
    const to = deps.config.baseUrl;
    return html`<p><strong><bdi>${client.name}</bdi></strong>${mark} wants to connect to your account on ${to}.</p>
      ${clientFacts(client)}`;
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
        <form method="post" action="${INTERACTION_PREFIX}/${d.uid}/confirm">\
<input type="hidden" name="csrf" value="${csrf}"><button type="submit">Allow</button></form>
        <form method="post" action="${INTERACTION_PREFIX}/${d.uid}/abort">\
<input type="hidden" name="csrf" value="${csrf}"><button type="submit" class="secondary">Deny</button></form>`,
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

/** Who asks, as the sign-in and consent pages show it. */
interface ClientView {
  /** Named by its Client ID Metadata Document's host; otherwise it registered itself and named itself. */
  known: boolean;
  name: string;
  /** The name a metadata document gives its client. */
  selfName: string | null;
  clientId: string;
  /** Where the code goes, as the client sent it. */
  redirect: string;
  /** When a registered client registered (`client_id_issued_at`). */
  registeredAt: Date | null;
  formTargets: string[];
}

function clientFacts(client: ClientView): Html {
  const row = (name: string, value: unknown) => html`<tr><th scope="row">${name}</th><td>${value}</td></tr>`;
  const returnsTo = row('Returns to', html`<code><bdi>${client.redirect}</bdi></code>`);
  if (client.known)
    return html`<div class="client-card"><table class="facts"><tbody>${returnsTo}
      ${row(
        'Client ID',
        html`<code>${client.clientId}</code> (its metadata document, served by <bdi>${client.name}</bdi>)`,
      )}
      ${client.selfName ? row('Calls itself', html`<bdi>${client.selfName}</bdi>`) : ''}
    </tbody></table></div>`;
  return html`<div class="client-card unverified">
    <p>This app registered itself: the name “<bdi>${client.name}</bdi>” is its own choice, and nobody checked it.
      Go on only if you have just connected an app to this server, and it returns to that app.</p>
    <table class="facts"><tbody>${returnsTo}
      ${row('Client ID', html`<code>${client.clientId}</code>`)}
      ${row('Registered', client.registeredAt ? registeredAt(client.registeredAt) : 'unknown')}
    </tbody></table></div>`;
}

function registeredAt(at: Date, now = Date.now()): Html {
  const iso = at.toISOString();
  const minutes = Math.max(0, Math.round((now - at.getTime()) / 60_000));
  const ago =
    minutes < 1
      ? 'just now'
      : minutes < 120
        ? `${minutes} minute${minutes === 1 ? '' : 's'} ago`
        : minutes < 48 * 60
          ? `${Math.round(minutes / 60)} hours ago`
          : `${Math.round(minutes / 1440)} days ago`;
  return html`<time datetime="${iso}">${iso.slice(0, 16).replace('T', ' ')}\u00a0UTC</time> (${ago})`;
}

function requestedScopes(d: Awaited<ReturnType<Provider['interactionDetails']>>): string[] {
  const details = d.prompt.details as { missingOIDCScope?: string[]; missingResourceScopes?: Record<string, string[]> };
  const scopes = new Set([
    ...(details.missingOIDCScope ?? []),
    ...Object.values(details.missingResourceScopes ?? {}).flat(),
  ]);
  return [...scopes].sort();
}
