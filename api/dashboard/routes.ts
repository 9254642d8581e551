// The dashboard (server-rendered, its CSS and small scripts served from here, no CDN): sign in and out, then one
// section each for API keys, lookups, webhooks, load tests, videos and connected apps (api/dashboard/<section>.ts).
// Every form carries the CSRF token; every value from a user or a captured request is escaped.
import Router from '@koa/router';
import { createClientIp } from '../../lib/net/client-ip.ts';
import type { ApiDeps } from '../deps.ts';
import { checkCsrf, readForm, sendPage } from '../pages/html.ts';
import { signIn, signInForm } from '../pages/sign-in.ts';
import type { Services } from '../services/index.ts';
import { assetRoutes } from './assets.ts';
import { connectedAppSection } from './connected-apps.ts';
import { keySection } from './keys.ts';
import { loadTestSection } from './load-tests/load-tests.ts';
import { lookupSection } from './lookups.ts';
import { dashboardPages, seeOther } from './page.ts';
import { videoSection } from './videos.ts';
import { webhookSection } from './webhooks/webhooks.ts';

export function dashboardRoutes(deps: ApiDeps, services: Services): Router {
  const router = new Router({ prefix: '/dashboard' });
  const page = dashboardPages(router, deps, services);
  assetRoutes(router);
  const clientIp = createClientIp(deps.config.trustedProxies);
  /** Only paths of this site, never another host (`//evil.example`). */
  const safeNext = (next: unknown) =>
    typeof next === 'string' && /^\/(?![/\\])/.test(next) ? next : '/dashboard/keys';

  router.get('/', (ctx) => ctx.redirect('/dashboard/keys'));

  router.get('/sign-in', (ctx) => {
    const next = safeNext(ctx.query.next);
    sendPage(
      ctx,
      'Sign in',
      signInForm({ action: `/dashboard/sign-in?next=${encodeURIComponent(next)}`, csrf: page.csrf(ctx) }),
    );
  });

  router.post('/sign-in', async (ctx) => {
    const form = await readForm(ctx);
    checkCsrf(ctx, form, deps.config.baseUrl);
    const next = safeNext(ctx.query.next);
    const outcome = await signIn(deps, form.email ?? '', form.password ?? '', clientIp(ctx.req));
    if ('error' in outcome) {
      return sendPage(
        ctx,
        'Sign in',
        signInForm({
          action: `/dashboard/sign-in?next=${encodeURIComponent(next)}`,
          csrf: page.csrf(ctx),
          email: form.email,
          error: outcome.error,
        }),
        outcome.status,
      );
    }
    await page.sessions.start(ctx, outcome.account.id);
    seeOther(ctx, next);
  });

  router.post('/sign-out', async (ctx) => {
    checkCsrf(ctx, await readForm(ctx), deps.config.baseUrl);
    await page.sessions.end(ctx);
    seeOther(ctx, '/dashboard/sign-in');
  });

  keySection(page, services);
  lookupSection(page, services);
  webhookSection(page, services);
  loadTestSection(page, services);
  videoSection(page, services);
  connectedAppSection(page, services);
  return router;
}
