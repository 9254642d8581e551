// Dashboard: lookups, as people check them in a browser. A URL's headers (grade badge, each check with
// its recommendation, TLS, cookies, cache, the time of each phase as a bar), a domain (availability,
// price in the chosen currency, registration facts), DNS records and an IP (a plain table: a map would
// need tiles from the internet). The same services as REST and MCP, with the same validation, each
// lookup a CSRF-checked post counted against the plan.
import { labelled, type FormLabels } from './form-labels.ts';
import type { Context } from 'koa';
import type { Account } from '../../db/users.ts';
import { AppError } from '../../lib/errors.ts';
import { createClientIp } from '../../lib/net/client-ip.ts';
import { html, type Html } from '../pages/html.ts';
import { CURRENCIES, whoisQuery } from '../../contract/domains.ts';
import { DNS_TYPES, dnsQuery, ipQuery, urlInput } from '../../contract/lookups.ts';
import type { Services } from '../services/index.ts';
import { validate } from '../../contract/validate.ts';
import { dataTable, type DashboardPages } from './page.ts';

type Kind = 'headers' | 'domain' | 'dns' | 'ip';
type HeaderReport = Awaited<ReturnType<Services['lookups']['headers']>>;
type DomainReport = Awaited<ReturnType<Services['domains']['whois']>>;
type DnsReport = Awaited<ReturnType<Services['lookups']['dns']>>;
type IpReport = Awaited<ReturnType<Services['lookups']['ip']>>;

export function lookupSection(
  page: DashboardPages,
  { lookups, domains, config }: Pick<Services, 'lookups' | 'domains' | 'config'>,
): void {
  const clientIp = createClientIp(config.trustedProxies);

  /** The four forms, the one just used keeping what was typed, and its answer (or error) above them. */
  function lookupsPage(
    ctx: Context,
    account: Account,
    shown: { kind?: Kind; form?: Record<string, string>; answer?: Html; error?: AppError } = {},
  ) {
    const csrf = page.csrf(ctx);
    const typed = (kind: Kind, name: string, fallback = '') =>
      shown.kind === kind ? (shown.form?.[name] ?? fallback) : fallback;
    const form = (kind: Kind, title: string, fields: Html, button: string) =>
      html`<section class="lookup" aria-labelledby="lookup-${kind}"><h2 id="lookup-${kind}">${title}</h2>
        <form method="post" action="/dashboard/lookups/${kind}">\
<input type="hidden" name="csrf" value="${csrf}">${fields}<button type="submit">${button}</button></form></section>`;
    const select = (kind: Kind, name: string, label: string, options: readonly string[], fallback: string) =>
      html`<p><label for="${kind}-${name}">${label}</label><select id="${kind}-${name}" name="${name}">\
${options.map((o) => html`<option${o === typed(kind, name, fallback) ? html` selected` : ''}>${o}</option>`)}\
</select></p>`;
    /** A text field of a form, holding what was typed; `wide`: across the whole form. */
    const text = (
      kind: Kind,
      name: string,
      label: string,
      placeholder: string,
      { required = true, wide = false } = {},
    ) =>
      html`<p><label for="${kind}-${name}">${label}</label><input id="${kind}-${name}" name="${name}" type="text"\
${required ? html` required` : ''}${wide ? html` style="width:100%"` : ''} placeholder="${placeholder}" \
value="${typed(kind, name)}"></p>`;
    const currencies = select('domain', 'currency', 'Currency', CURRENCIES, 'USD');
    const types = select('dns', 'type', 'Record type', ['ALL', ...DNS_TYPES], 'ALL');
    const ipField = text('ip', 'ip', 'Address (empty: yours)', '203.0.113.7', { required: false });
    page.layout(
      ctx,
      account,
      'lookups',
      'Lookups',
      html`<h1>Lookups</h1>
        ${shown.error ? html`<p class="error" role="alert">${shown.error.message}</p>` : ''}
        ${shown.answer ? html`<section id="lookup-answer" aria-label="Answer">${shown.answer}</section>` : ''}
        ${form(
          'headers',
          'Security headers of a URL',
          text('headers', 'url', 'URL', 'https://www.example.com/', { wide: true }),
          'Check headers',
        )}
        ${form(
          'domain',
          'Domain availability and registration',
          html`${text('domain', 'domain', 'Domain', 'my-next-idea.com')}${currencies}`,
          'Check domain',
        )}
        ${form('dns', 'DNS records', html`${text('dns', 'domain', 'Name', 'example.com')}${types}`, 'Look up records')}
        ${form('ip', 'IP address', ipField, 'Look up address')}`,
      shown.error?.status ?? 200,
    );
  }

  page.get('/lookups', async (ctx, account) => lookupsPage(ctx, account));

  /** Each form's labels, by the field of the query it fills (a refusal names the field so). */
  const LOOKUP_LABELS: Record<Kind, FormLabels> = {
    headers: { url: 'URL' },
    domain: { domain: 'Domain', currency: 'Currency' },
    dns: { domain: 'Name', type: 'Record type' },
    ip: { ip: 'Address' },
  };

  /** One lookup: its answer rendered, or a mistake or an upstream's failure shown on the page. */
  const lookup = (kind: Kind, run: (form: Record<string, string>, ctx: Context) => Promise<Html>) =>
    page.post(`/lookups/${kind}`, async (ctx, { form, account }) => {
      try {
        lookupsPage(ctx, account, { kind, form, answer: await run(form, ctx) });
      } catch (err) {
        // Our own bugs stay 500s; everything a user or an upstream caused is shown with its status.
        if (!(err instanceof AppError) || err.status === 500) throw err;
        lookupsPage(ctx, account, { kind, form, error: labelled(err, LOOKUP_LABELS[kind]) });
      }
    });

  lookup('headers', async (form) =>
    headerAnswer(await lookups.headers(validate(urlInput, { url: form.url }, 'form').url)),
  );
  lookup('domain', async (form) =>
    domainAnswer(
      await domains.whois(validate(whoisQuery, { domain: form.domain, currency: form.currency, mode: 'full' }, 'form')),
    ),
  );
  lookup('dns', async (form) =>
    dnsAnswer(await lookups.dns(validate(dnsQuery, { domain: form.domain, type: form.type }, 'form'))),
  );
  lookup('ip', async (form, ctx) =>
    ipAnswer(await lookups.ip(validate(ipQuery, { ip: form.ip }, 'form').ip || clientIp(ctx.req))),
  );
}

/** Label and value rows, skipping values that are not known. */
function facts(rows: Array<[string, unknown]>): Html {
  const known = rows.filter(
    ([, v]) => v !== null && v !== undefined && v !== '' && !(Array.isArray(v) && v.length === 0),
  );
  return html`<table class="facts"><tbody>${known.map(
    ([k, v]) => html`<tr><th scope="row">${k}</th>\
<td>${Array.isArray(v) ? v.join(', ') : String(v)}</td></tr>`,
  )}</tbody></table>`;
}

const signed = (n: number) => (n > 0 ? `+${n}` : String(n));
const yesNo = (v: boolean | null) => (v === null ? 'unknown' : v ? 'yes' : 'no');

/** A grade as a coloured badge: A green, B and C amber, D and below red. */
function gradeBadge(grade: string, label: string): Html {
  const tone = grade.startsWith('A') ? 'good' : grade.startsWith('B') || grade.startsWith('C') ? 'fair' : 'poor';
  return html`<span class="grade grade-${tone}" data-testid="grade" aria-label="${label} ${grade}">${grade}</span>`;
}

/** The phases of the exchange as one bar: each phase's share of the total, with its milliseconds. */
function phaseBar(t: HeaderReport['timings'], total: number): Html {
  const transfer = Math.max(0, Math.round((total - t.dns - t.connect - t.ssl - t.ttfb) * 100) / 100);
  const phases: Array<[string, number, string]> = [
    ['DNS', t.dns, '#8250df'],
    ['Connect', t.connect, '#1f5fbf'],
    ['TLS', t.ssl, '#9a6700'],
    ['Waiting (TTFB)', t.ttfb, '#1a7f37'],
    ['Transfer', transfer, '#57606a'],
  ];
  const sum = Math.max(
    0.01,
    phases.reduce((n, [, ms]) => n + ms, 0),
  );
  const label = phases.map(([name, ms]) => `${name} ${ms} ms`).join(', ');
  const bar = ([name, ms, color]: (typeof phases)[number]) =>
    html`<span style="width:${((ms / sum) * 100).toFixed(2)}%;background:${color}" title="${name} ${ms} ms"></span>`;
  const swatch = ([, ms, color]: (typeof phases)[number]) =>
    html`<span class="swatch" style="background:${color}"></span>${ms} ms`;
  const columns = [...phases.map(([name]) => name), 'Total'];
  return html`<div class="phases" role="img" aria-label="${label}">${phases.filter(([, ms]) => ms > 0).map(bar)}</div>
    ${dataTable(columns, [[...phases.map(swatch), `${total} ms`]], { id: 'phases' })}`;
}

function headerAnswer(r: HeaderReport): Html {
  const { security, ssl_tls: tls, cookies, cache } = r.analysis;
  const failing = security.checks.filter((c) => !c.passed);
  const outcome = failing.length
    ? `${failing.length} of ${security.checks.length} checks failed; each says what to change.`
    : 'Every check passed.';
  const cacheNotes = cache.details.length ? html`<ul>${cache.details.map((d) => html`<li>${d}</li>`)}</ul>` : '';
  return html`<h2>Headers of <code>${r.effective_url}</code></h2>
    <p class="verdict">${gradeBadge(security.grade, 'Security grade')} \
<span>Security score ${security.score} by the method of MDN's HTTP Observatory (100 is the baseline, bonuses go above; \
${security.observatory.tests_passed} of ${security.observatory.tests_quantity} tests passed); overall \
${r.overall_score.grade} (${r.overall_score.percentage}%). HTTP ${r.http_code}, HTTP/${r.http_version}, \
${r.network.redirect_count} redirect(s), from ${r.network.primary_ip}.</span></p>
    <p>${outcome}</p>
    ${dataTable(
      ['Check', 'Result', 'Points', 'What to do'],
      security.checks.map((c) => [
        html`${c.name}${c.observatory_result ? html`<br><small><code>${c.observatory_result}</code></small>` : ''}`,
        html`${c.passed ? 'passed' : 'failed'}${c.value ? html`<br><code>${c.value}</code>` : ''}`,
        c.observatory_test ? `${signed(c.score)} (best ${signed(c.max_score)})` : 'no weight',
        c.passed ? c.description : (c.recommendation ?? c.description),
      ]),
      { id: 'header-checks', rowClass: (i) => (security.checks[i]!.passed ? 'passed' : 'failed') },
    )}
    <h3>Time of each phase</h3>${phaseBar(r.timings, r.response_time)}
    <h3>TLS</h3>${
      tls.enabled
        ? html`<p>${gradeBadge(tls.grade, 'TLS grade')}</p>${facts([
            ['Version', tls.ssl_version],
            ['Certificate subject', tls.certificate?.subject],
            ['Issuer', tls.certificate?.issuer],
            ['Valid from', tls.certificate?.valid_from],
            ['Valid until', tls.certificate?.valid_to],
          ])}`
        : html`<p>Not served over HTTPS.</p>`
    }
    <h3>Cookies</h3>${
      cookies.cookies.length === 0
        ? html`<p>No cookies set.</p>`
        : dataTable(
            ['Cookie', 'Secure', 'HttpOnly', 'SameSite', 'Issues'],
            cookies.cookies.map((c) => [
              c.name,
              yesNo(c.secure),
              yesNo(c.httponly),
              c.samesite || 'not set',
              c.issues.join('; ') || 'none',
            ]),
          )
    }
    <h3>Caching</h3><p>${cache.cacheable ? 'Cacheable' : 'Not cacheable'} (${cache.score} of \
${cache.max_score} points).</p>${cacheNotes}`;
}

function domainAnswer(r: DomainReport): Html {
  const p = r.parsed_data;
  const verdict =
    r.available === true
      ? 'Available'
      : r.available === false
        ? r.is_reserved
          ? 'Reserved'
          : 'Registered'
        : 'Unknown';
  return html`<h2><code>${r.domain}</code>: <span data-testid="availability">${verdict}</span></h2>
    ${facts([
      ['Available', yesNo(r.available)],
      ['Registered', yesNo(r.is_registered)],
      ['Confidence', r.availability_confidence],
      ['Premium', r.premium_type ?? 'no'],
      [
        'Registration, first year',
        r.pricing?.registration_price == null ? null : `${r.pricing.registration_price} ${r.pricing.currency}`,
      ],
      ['Renewal', r.pricing?.renewal_price == null ? null : `${r.pricing.renewal_price} ${r.pricing.currency}`],
      ['Registrar', p.registrar],
      ['Created', p.creation_date],
      ['Expires', p.expiration_date],
      ['Updated', p.updated_date],
      ['Status', p.status],
      ['Name servers', p.name_servers],
      ['Answered by', `${r.evidence}: ${r.whois_server}`],
      ['Notes', r.notes],
    ])}`;
}

function dnsAnswer(r: DnsReport): Html {
  const rows = Object.entries(r.records).map(([type, values]) => {
    const list = values === null ? [] : Array.isArray(values) ? values : [values];
    const text = list.map((v) =>
      typeof v === 'string'
        ? v
        : 'priority' in v
          ? `${v.priority} ${v.host}`
          : Object.entries(v)
              .map(([k, x]) => `${k} ${x}`)
              .join(', '),
    );
    return [type, text.length ? text.map((t) => html`<code>${t}</code><br>`) : 'none'];
  });
  const table = dataTable(['Type', 'Records'], rows, { id: 'dns-records' });
  return html`<h2>DNS records of <code>${r.domain}</code></h2>${table}`;
}

function ipAnswer(r: IpReport): Html {
  const d = r.data;
  const at = d.latitude !== null && d.longitude !== null ? `${d.latitude}, ${d.longitude}` : null;
  return html`<h2>IP address <code>${r.ip}</code></h2>
    ${facts([
      ['Class', d.address_class],
      ['Country', d.country && `${d.country} (${d.country_code})`],
      ['Region', d.region],
      ['City', d.city],
      ['Coordinates', at],
      ['Time zone', d.timezone],
      ['Network (ASN)', d.asn === null ? null : `AS${d.asn}`],
      ['ISP', d.isp],
      ['Organization', d.organization],
      ['Reverse DNS', d.reverse_dns],
    ])}
    ${
      at
        ? html`<p><a href="https://www.openstreetmap.org/?mlat=${d.latitude}&amp;mlon=${d.longitude}#map=10/\
${d.latitude}/${d.longitude}" rel="noopener noreferrer">Show ${at} on OpenStreetMap</a> (opens the map site).\
</p>`
        : ''
    }`;
}
