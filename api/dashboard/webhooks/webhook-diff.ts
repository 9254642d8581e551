// Dashboard: two captures of a webhook side by side as their differences (the REST my-webhook-diff's
// answer): what changed in the method and path, the query and headers by name, and the body by
// JSON Pointer or by lines. The form on the webhook's page picks the two; this page can pick others.
import type { Account } from '../../../db/users.ts';
import { AppError, NotFoundError } from '../../../lib/errors.ts';
import { PUBLIC_ID_PATTERN } from '../../../lib/auth/tokens.ts';
import { html, type Html } from '../../pages/html.ts';
import { diffQuery } from '../../../contract/webhooks/webhooks.ts';
import type { Services } from '../../services/index.ts';
import { validate } from '../../../contract/validate.ts';
import type { DashboardPages } from '../page.ts';
import { arrivedAt } from './webhook-cards.ts';

type Diff = Awaited<ReturnType<Services['webhooks']['diff']>>;
type Named<V> = { added: Record<string, V>; removed: Record<string, V>; changed: Record<string, { a: V; b: V }> };

const shown = (v: unknown) => (v === undefined ? '' : typeof v === 'string' ? v : JSON.stringify(v));

/** Rows of what changed by name or pointer: the kind, the name, a's value, b's value. */
function changeTable(rows: Array<[string, string, unknown, unknown]>, what: string): Html {
  if (rows.length === 0) return html`<p class="hint">No difference in the ${what}.</p>`;
  return html`<div class="table-wrap"><table class="diff"><thead><tr><th scope="col">Change</th>\
<th scope="col">${what === 'body' ? 'Pointer' : 'Name'}</th><th scope="col">a</th><th scope="col">b</th></tr></thead>\
<tbody>${rows.map(
    ([change, name, a, b]) =>
      html`<tr class="${change}"><td>${change}</td><th scope="row"><code>${name || '(whole body)'}</code></th>\
<td>${shown(a)}</td><td>${shown(b)}</td></tr>`,
  )}</tbody></table></div>`;
}

const namedRows = <V>(c: Named<V>): Array<[string, string, unknown, unknown]> => [
  ...Object.entries(c.changed).map(([k, v]): [string, string, unknown, unknown] => ['changed', k, v.a, v.b]),
  ...Object.entries(c.added).map(([k, v]): [string, string, unknown, unknown] => ['added', k, undefined, v]),
  ...Object.entries(c.removed).map(([k, v]): [string, string, unknown, unknown] => ['removed', k, v, undefined]),
];

/** Lines of a patch shown on the page at most (the REST answer has the whole patch). */
export const SHOWN_PATCH_LINES = 2_000;

/** A unified diff's lines, each marked as added, removed or kept: the first SHOWN_PATCH_LINES. */
const patchLines = (patch: string) => {
  const lines = patch.split('\n', SHOWN_PATCH_LINES + 1);
  const more = lines.length > SHOWN_PATCH_LINES;
  return html`<pre class="patch">${lines
    .slice(0, SHOWN_PATCH_LINES)
    .map((line) =>
      line.startsWith('+')
        ? html`<ins>${line}</ins>\n`
        : line.startsWith('-')
          ? html`<del>${line}</del>\n`
          : line.startsWith('@@')
            ? html`<span class="hunk">${line}</span>\n`
            : `${line}\n`,
    )}</pre>${
    more
      ? html`<p class="hint">The first \
${SHOWN_PATCH_LINES.toLocaleString('en')} lines of the patch are shown: my-webhook-diff answers it whole.</p>`
      : ''
  }`;
};

/** The body's part of the page: the patch's first lines, the changes, or why there is no line diff. */
export function bodyPart(body: Diff['body']): Html {
  if (body.same) return html`<p class="hint">The bodies are the same.</p>`;
  if (body.format === 'binary')
    return html`<p>Binary bodies that differ: ${body.a_size} bytes, then ${body.b_size}.</p>`;
  if (body.format === 'text')
    return body.patch === null
      ? html`<p>Not compared line by line: ${body.reason ?? 'too different'}.</p>`
      : html`${patchLines(body.patch)}${body.truncated ? html`<p class="hint">The patch is cut at 256 KiB.</p>` : ''}`;
  if (body.truncated)
    return html`${changeRows(body)}<p class="hint">Not every change is listed: the first \
${body.changes.length.toLocaleString('en')} (at most 1,000, within 256 KiB of pointers and values).</p>`;
  return changeRows(body);
}

/** A JSON body's changes as rows. */
function changeRows(body: Extract<Diff['body'], { format: 'json' }>): Html {
  return changeTable(
    body.changes.map((c) => [c.change, c.pointer, 'a' in c ? c.a : undefined, 'b' in c ? c.b : undefined]),
    'body',
  );
}

/** The form that picks two captures (and the headers to leave out). */
export function compareForm(webhookId: string, a: number | '', b: number | '', ignore?: string): Html {
  return html`<form method="get" action="/dashboard/webhooks/${webhookId}/diff" class="settings compare">
      <label><span>Compare capture #</span> <input name="a" type="number" min="1" required value="${a}"></label>
      <label><span>with #</span> <input name="b" type="number" min="1" required value="${b}"></label>
      ${
        ignore === undefined
          ? ''
          : html`<label><span>Leave out headers</span> \
<input name="ignore_headers" value="${ignore}"> <small>comma-separated; empty: compare every header</small></label>`
      }
      <button type="submit">Compare</button>
    </form>`;
}

export function webhookDiffRoutes(page: DashboardPages, { webhooks }: Pick<Services, 'webhooks'>): void {
  page.get(
    '/webhooks/:id/diff',
    async (ctx, account: Account) => {
      const id = ctx.params.id!;
      // The id goes into this page's links and form: one that is no webhook id (`..%2F..%2Fwebhook%2F...`)
      // would point them elsewhere on the origin.
      if (!PUBLIC_ID_PATTERN.test(id)) throw new NotFoundError('Webhook not found');
      const given = Object.fromEntries(
        (['a', 'b', 'ignore_headers'] as const).flatMap((k) =>
          typeof ctx.query[k] === 'string' ? [[k, ctx.query[k]]] : [],
        ),
      );
      let diff: Diff | null = null;
      let error: AppError | null = null;
      try {
        await page.spend(account); // as the REST diff: an API call
        const q = validate(diffQuery, { ...given, webhook_id: id }, 'form');
        diff = await webhooks.diff(account.id, id, q.a, q.b, q.ignore_headers);
      } catch (err) {
        // A diff past its time or heap (504), or too many waiting (503): said on the page, as a refusal is.
        if (!(err instanceof AppError) || (err.status >= 500 && err.code !== 'timeout' && err.code !== 'unavailable'))
          throw err;
        error = err;
        ctx.set({ ...err.headers }); // a 429's Retry-After
      }
      const ignore =
        typeof given.ignore_headers === 'string' ? given.ignore_headers : (diff?.headers.ignored.join(', ') ?? '');
      page.layout(
        ctx,
        account,
        'webhooks',
        `Compare captures of ${id}`,
        html`<h1>Compare captures</h1>
        <p><a href="/dashboard/webhooks/${id}">Back to the webhook</a></p>
        ${error ? html`<p class="error" role="alert">${error.message}</p>` : ''}
        ${compareForm(id, Number(given.a) || '', Number(given.b) || '', ignore)}
        ${
          diff
            ? html`<section class="diff" aria-label="Differences">
              <p role="status"><strong>#${diff.a.id}</strong> (\
${arrivedAt(diff.a.created_at)}) → <strong>#${diff.b.id}</strong> (\
${arrivedAt(diff.b.created_at)}): ${diff.same ? 'the same' : 'they differ'}.</p>
              <h2>Method and path</h2>
              ${changeTable(
                [
                  ...(diff.method
                    ? [['changed', 'method', diff.method.a, diff.method.b] as [string, string, unknown, unknown]]
                    : []),
                  ...(diff.path
                    ? [['changed', 'path', diff.path.a, diff.path.b] as [string, string, unknown, unknown]]
                    : []),
                ],
                'method and path',
              )}
              <h2>Query</h2>${changeTable(namedRows(diff.query), 'query')}
              <h2>Headers</h2>${changeTable(namedRows(diff.headers), 'headers')}
              ${
                diff.headers.ignored.length
                  ? html`<p class="hint">Left out: ${diff.headers.ignored.join(', ')}.\
</p>`
                  : ''
              }
              <h2>Body (${diff.body.format})</h2>${bodyPart(diff.body)}
            </section>`
            : ''
        }`,
        error?.status ?? 200,
      );
    },
    { query: ['a', 'b', 'ignore_headers'] },
  );
}
