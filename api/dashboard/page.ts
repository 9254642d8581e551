// What every dashboard section shares: the signed-in account (or a redirect to sign in), CSRF-checked
// form posts, the page layout with its navigation, and 303 after a post.
import type Router from '@koa/router';
import type { RouterContext } from '@koa/router';
import type { Context } from 'koa';
import type { Account } from '../../db/users.ts';
import { NotFoundError } from '../../lib/errors.ts';
import { sha256Hex } from '../../lib/auth/tokens.ts';
import type { ApiDeps } from '../deps.ts';
import { checkCsrf, csrfToken, html, readForm, sendPage, type Html } from '../pages/html.ts';
import type { Services } from '../services/index.ts';
import { refuseUnknownParameters } from '../../contract/validate.ts';
import { dashboardSessions } from './session.ts';

/** A page's address: the query parameters it takes (none unless given). */
interface PageOptions {
  query?: readonly string[];
}

export type Section = 'keys' | 'lookups' | 'webhooks' | 'load-tests' | 'videos' | 'connected-apps';

export const when = (d: Date | string | null) =>
  d
    ? html`<time datetime="${new Date(d).toISOString()}">\
${new Date(d).toISOString().replace('T', ' ').slice(0, 16)}\u00a0UTC</time>`
    : 'never';

/**
 * A URL shown in a narrow cell (a link of class long): a line may break after each slash of its path,
 * so that it wraps between the path's words before it must break inside one. Its scheme and authority
 * (up to the first slash, ? or # after `//`), as typed, stay whole.
 */
export const breakableUrl = (url: string) => {
  const start = /^[a-z][a-z\d+.-]*:\/\/[^/?#]*/i.exec(url)?.[0].length ?? 0;
  return html`${url.slice(0, start)}${url
    .slice(start)
    .split(/(?<=\/)/)
    .map((piece, i) => (i === 0 ? piece : html`<wbr>${piece}`))}`;
};

/** A column of dataTable: its heading, shown to screen readers only when `hidden` (an action column). */
export type Column = string | { label: string; hidden: true };

/** Columns from which a table is wide: it reflows on a window up to 64rem, not only on a phone (tables.css). */
const WIDE_COLUMNS = 7;

/**
 * A table of rows under headings, scrolling inside its box when too wide, and on narrow screens
 * reflowing into one block per row with each cell labelled by its heading (no word is squeezed into
 * a column too narrow for it), unless `reflow` is false (a few short columns that fit a phone as a
 * table); one of WIDE_COLUMNS or more reflows on narrow windows too. The columns from `figuresFrom`
 * on hold figures: reflowed, they stand side by side (tables.css). `rowClass` marks rows (passed, failed).
 */
export function dataTable(
  columns: Column[],
  rows: unknown[][],
  options: { id?: string; rowClass?: (row: number) => string; reflow?: boolean; figuresFrom?: number } = {},
): Html {
  const figure = (j: number) => options.figuresFrom !== undefined && j >= options.figuresFrom;
  const label = (c: Column) => (typeof c === 'string' ? c : c.label);
  const reflow = columns.length >= WIDE_COLUMNS ? 'reflow wide' : 'reflow';
  return html`<div class="table-wrap"><table\
${options.reflow === false ? '' : html` class="${reflow}"`}${options.id ? html` id="${options.id}"` : ''}><thead>\
<tr>${columns.map(
    (c) =>
      html`<th scope="col">${
        typeof c === 'string'
          ? c
          : html`<span class="visually-hidden">\
${c.label}</span>`
      }</th>`,
  )}</tr></thead><tbody>
    ${rows.map(
      (cells, i) => html`<tr${options.rowClass ? html` class="${options.rowClass(i)}"` : ''}>\
${cells.map(
  (cell, j) => html`<td${figure(j) ? html` class="n"` : ''}\
${typeof columns[j] === 'string' ? html` data-label="${label(columns[j]!)}"` : ''}>${cell}</td>${figure(j) ? ' ' : ''}`,
)}</tr>`,
    )}</tbody></table></div>`;
}

export function dashboardPages(
  router: Router,
  deps: Pick<ApiDeps, 'config' | 'kv' | 'temporalUiUrl'>,
  services: Pick<Services, 'accounts' | 'quota' | 'credentials'>,
) {
  const secure = deps.config.baseUrl.startsWith('https:');
  const sessions = dashboardSessions(deps.kv, secure);

  async function signedIn(ctx: Context): Promise<Account | null> {
    const userId = await sessions.userId(ctx);
    const account = userId === null ? null : await services.accounts.find(userId);
    if (!account) ctx.redirect(`/dashboard/sign-in?next=${encodeURIComponent(ctx.path)}`);
    // What a live stream of this page follows (api/sse.ts): the session, while it is stored for this
    // user. Requests with the same cookies are of the same session and share its checks.
    else
      ctx.state.credential = services.credentials.session(
        sha256Hex(ctx.get('cookie')),
        account.id,
        async () => (await sessions.userId(ctx)) === account.id,
      );
    return account;
  }

  /** A signed-in page: the navigation, then the section's content. */
  function layout(ctx: Context, account: Account, section: Section | null, title: string, body: Html, status = 200) {
    const csrf = csrfToken(ctx, secure);
    const link = (href: string, label: string, name?: Section) =>
      html`<a href="${href}"${name === section ? html` aria-current="page"` : ''}>${label}</a>`;
    sendPage(
      ctx,
      `${title} · netops`,
      html`<nav class="top" aria-label="Dashboard">
          ${link('/dashboard/keys', 'API keys', 'keys')} ${link('/dashboard/lookups', 'Lookups', 'lookups')} \
${link('/dashboard/webhooks', 'Webhooks', 'webhooks')} ${link('/dashboard/load-tests', 'Load tests', 'load-tests')} \
${link('/dashboard/videos', 'Videos', 'videos')} \
${link('/dashboard/connected-apps', 'Connected apps', 'connected-apps')}
          ${link('/docs', 'API docs')} ${deps.temporalUiUrl ? link(deps.temporalUiUrl, 'Temporal UI') : ''}
          <form method="post" action="/dashboard/sign-out"><input type="hidden" name="csrf" value="${csrf}">\
<button type="submit" class="secondary">Sign out<span class="who"> ${account.email}</span></button></form>
        </nav>
        ${body}`,
      status,
    );
    return csrf;
  }

  const page = {
    secure,
    sessions,
    signedIn,
    csrf: (ctx: Context) => csrfToken(ctx, secure),

    /**
     * A signed-in form post: the form with its CSRF token checked, and the account, the post counted
     * against the plan's requests as an API call is. Null when it was answered here: sent to sign
     * in, or 429 when the plan's requests are used up. An action that protects the account
     * (`refusable: false`: revoking a key, disconnecting an app, stopping a test, deleting a webhook)
     * is counted but never refused, so a leaked key that spent the day's requests cannot keep its
     * owner from revoking it.
     */
    async signedInForm(
      ctx: Context,
      { refusable = true } = {},
    ): Promise<{ form: Record<string, string>; account: Account } | null> {
      const form = await readForm(ctx);
      checkCsrf(ctx, form, deps.config.baseUrl);
      const account = await signedIn(ctx);
      if (!account) return null;
      const verdict = await services.quota.spend({ userId: account.id, plan: account.plan });
      if (verdict.allowed || !refusable) return { form, account };
      ctx.set('Retry-After', String(verdict.retryAfterSeconds));
      layout(
        ctx,
        account,
        null,
        'Rate limit reached',
        html`<h1>Rate limit reached</h1><p role="alert">Rate limit of the ${account.plan} plan reached (\
${verdict.full.join(' and ')}); nothing was done. Retry after ${verdict.retryAfterSeconds} s.</p>`,
        429,
      );
      return null;
    },

    layout,

    /**
     * A page for the signed-in account (anyone else is sent to sign in). `query`: the parameters its
     * address takes (its forms' fields, its links'); any other is refused with a 400 page naming it and
     * the known one it is closest to, as the API refuses it: a mistyped filter dropped unseen would
     * show more than was asked for.
     */
    get(
      path: string,
      handler: (ctx: RouterContext, account: Account) => Promise<unknown>,
      { query = [] }: PageOptions = {},
    ): void {
      router.get(path, async (ctx) => {
        const account = await signedIn(ctx);
        if (!account) return;
        try {
          refuseUnknownParameters(ctx.query, query, 'page');
        } catch (err) {
          return layout(
            ctx,
            account,
            null,
            'Not a field of this page',
            html`<h1>Not a field of this page</h1><p role="alert">${(err as Error).message}</p><p>\
<a href="${ctx.path}">Open the page without it</a></p>`,
            400,
          );
        }
        await handler(ctx, account);
      });
    },

    /**
     * The page of one thing of the account's at `path` (`:id` in it): `find` looks it up, and an unknown
     * or foreign id is a 404 page linking back to `section`'s list (named `noun`, "load test"). The
     * handler shows its page with `show`, in `section`.
     */
    item<T>(
      path: string,
      section: Section,
      noun: string,
      find: (id: string, account: Account) => Promise<T>,
      handler: (
        ctx: RouterContext,
        account: Account,
        item: T,
        show: (title: string, body: Html) => void,
      ) => Promise<unknown>,
      options: PageOptions = {},
    ): void {
      page.get(
        path,
        async (ctx, account) => {
          let item: T;
          try {
            item = await find(ctx.params.id!, account);
          } catch (err) {
            if (!(err instanceof NotFoundError)) throw err;
            return layout(
              ctx,
              account,
              section,
              'Not found',
              html`<h1>No such ${noun}</h1><p>No ${noun} ${ctx.params.id!.slice(0, 64)} among yours. \
<a href="/dashboard/${section}">Your ${noun}s</a></p>`,
              404,
            );
          }
          await handler(ctx, account, item, (title, body) => layout(ctx, account, section, title, body));
        },
        options,
      );
    },

    /** A form post of the signed-in account, CSRF-checked and counted (see signedInForm). */
    post(
      path: string,
      handler: (ctx: RouterContext, post: { form: Record<string, string>; account: Account }) => Promise<unknown>,
      options: { refusable?: boolean } = {},
    ): void {
      router.post(path, async (ctx) => {
        const post = await page.signedInForm(ctx, options);
        if (post) await handler(ctx, post);
      });
    },

    /** Counts a request of the account that is not a form post (opening a live stream): 429 past the plan. */
    async spend(account: Account): Promise<void> {
      const verdict = await services.quota.spend({ userId: account.id, plan: account.plan });
      if (!verdict.allowed) throw services.quota.refusal(account.plan, verdict);
    },
  };
  return page;
}

export type DashboardPages = ReturnType<typeof dashboardPages>;

/** After a form post: 303, so a reload does not post again. */
export function seeOther(ctx: Context, url: string): void {
  ctx.status = 303;
  ctx.redirect(url);
}
