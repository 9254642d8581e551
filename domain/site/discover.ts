// Page discovery: the site's sitemaps first (`Sitemap:` lines of robots.txt, then /sitemap.xml;
// sitemap indexes followed to MAX_SITEMAP_DEPTH, at most MAX_SITEMAPS fetched; gzip handled), else
// the links of its home page. Same-site pages only, normalised and de-duplicated, at most MAX_PAGES.
// Every fetch goes through the address guard with size and time limits.
import { gunzipSync } from 'node:zlib';
import type { Element } from 'domhandler';
import { getElementsByTagName } from 'domutils';
import { Parser, parseDocument } from 'htmlparser2';
import { getDomain } from 'tldts';
import { UpstreamError } from '../../lib/errors.ts';
import type { Discovery } from '../../lib/jobs/site.ts';
import type { GuardedFetch } from '../../lib/net/guarded-fetch.ts';
import { MAX_PAGES } from '../../contract/site.ts';

export type { Discovery };

export const MAX_SITEMAPS = 10;
export const MAX_SITEMAP_DEPTH = 2;
/** A sitemap may hold 50,000 URLs (about 10 MB); gzip ones expand to at most this. */
export const SITEMAP_MAX_BYTES = 10 * 1024 * 1024;

const ASSET = new RegExp(
  [
    '\\.(png|jpe?g|gif|svg|webp|avif|ico|css|js|mjs|map|json|xml|txt|pdf|zip|gz|tgz|rar|7z|mp4|webm|mov|mp3|wav|',
    'ogg|woff2?|ttf|otf|eot|csv|xlsx?|docx?|pptx?|dmg|exe|apk)$',
  ].join(''),
  'i',
);

/** The same page written the same way: lower-case host, no default port, no fragment, `/` for an empty path. */
export function normalisePageUrl(raw: string, base?: string): string | null {
  let u: URL;
  try {
    u = new URL(raw.trim(), base);
  } catch {
    return null;
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') return null;
  u.hash = '';
  u.username = '';
  u.password = '';
  return u.href;
}

/** Same site: the same registrable domain (www and other subdomains included); an IP only as itself. */
export function sameSite(a: URL, b: URL): boolean {
  // Private suffixes count: two *.github.io sites are two sites.
  const da = getDomain(a.hostname, { allowPrivateDomains: true }) ?? a.hostname;
  const db = getDomain(b.hostname, { allowPrivateDomains: true }) ?? b.hostname;
  return da === db;
}

export async function discoverPages(startUrl: string, fetchText: GuardedFetch, limit = MAX_PAGES): Promise<Discovery> {
  const start = new URL(startUrl);
  const origin = start.origin;
  const read: string[] = [];

  // 1. Sitemaps named in robots.txt, then the conventional /sitemap.xml.
  const queue: Array<{ url: string; depth: number }> = [];
  try {
    const robots = await fetchText(`${origin}/robots.txt`, { headers: { accept: 'text/plain' } });
    if (robots.status === 200) {
      for (const m of robots.body.toString('utf8').matchAll(/^\s*sitemap\s*:\s*(\S+)/gim)) {
        const url = normalisePageUrl(m[1]!, origin);
        // Sitemaps of this site only: robots.txt does not get to send us to other hosts.
        if (url && sameSite(new URL(url), start)) queue.push({ url, depth: 0 });
      }
    }
  } catch {
    // no robots.txt: go on with the conventional place
  }
  if (queue.length === 0) queue.push({ url: `${origin}/sitemap.xml`, depth: 0 });

  const pages = new Set<string>();
  const fetched = new Set<string>();
  while (queue.length > 0 && fetched.size < MAX_SITEMAPS && pages.size < limit) {
    const { url, depth } = queue.shift()!;
    if (fetched.has(url)) continue;
    fetched.add(url);
    let xml: string;
    try {
      const res = await fetchText(url, { headers: { accept: 'application/xml,text/xml,application/gzip' } });
      if (res.status !== 200) continue;
      xml = decodeSitemap(res.body);
    } catch {
      continue;
    }
    read.push(url);
    const locs = sitemapLocs(xml);
    for (const child of locs.sitemaps) {
      const next = normalisePageUrl(child, url);
      if (next && depth + 1 <= MAX_SITEMAP_DEPTH && sameSite(new URL(next), start))
        queue.push({ url: next, depth: depth + 1 });
    }
    for (const loc of locs.urls) {
      const page = normalisePageUrl(loc, url);
      if (page && sameSite(new URL(page), start) && pages.size < limit) pages.add(page);
    }
  }
  if (pages.size > 0) return { source: 'sitemap', pages: [...pages], read };

  // 2. The home page and its same-origin links.
  const home = await fetchText(`${origin}/`, { headers: { accept: 'text/html' } });
  if (home.status >= 400)
    throw new UpstreamError(
      `${origin}/ answered HTTP ${home.status} and the site has no readable sitemap: no pages to list`,
    );
  const finalHome = normalisePageUrl(home.url)!;
  const doc = parseDocument(home.body.toString('utf8'), { lowerCaseAttributeNames: true });
  const baseHref = (getElementsByTagName('base', doc, true)[0] as Element | undefined)?.attribs.href;
  const base = baseHref ? (normalisePageUrl(baseHref, home.url) ?? home.url) : home.url;
  const linked = new Set<string>([finalHome]);
  for (const a of getElementsByTagName('a', doc, true) as Element[]) {
    const href = a.attribs.href?.trim();
    if (
      !href ||
      href.startsWith('#') ||
      /^(mailto|tel|javascript|data|sms):/i.test(href) ||
      a.attribs.download !== undefined
    )
      continue;
    const page = normalisePageUrl(href, base);
    if (!page) continue;
    const u = new URL(page);
    if (u.origin !== new URL(finalHome).origin || ASSET.test(u.pathname)) continue;
    linked.add(page);
    if (linked.size >= limit) break;
  }
  return { source: 'homepage_links', pages: [...linked].slice(0, limit), read: [home.url] };
}

function decodeSitemap(body: Buffer): string {
  if (body[0] === 0x1f && body[1] === 0x8b) {
    try {
      return gunzipSync(body, { maxOutputLength: SITEMAP_MAX_BYTES }).toString('utf8');
    } catch (err) {
      throw new UpstreamError(`a gzip sitemap could not be read: ${(err as Error).message}`);
    }
  }
  return body.toString('utf8');
}

/**
 * The <loc> of each <sitemap> and <url> entry (its own, not an <image:loc> inside it), read as a stream:
 * a 10 MB sitemap never becomes a tree. At most `max` of each.
 */
export function sitemapLocs(xml: string, max = 50_000): { sitemaps: string[]; urls: string[] } {
  const out = { sitemaps: [] as string[], urls: [] as string[] };
  const local = (name: string) => name.toLowerCase().replace(/^.*:/, '');
  let depth = 0;
  let entry: { list: string[]; depth: number } | null = null;
  let loc: string | null = null;
  const parser = new Parser(
    {
      onopentag(name) {
        depth += 1;
        const n = local(name);
        if (!entry && (n === 'sitemap' || n === 'url'))
          entry = { list: n === 'sitemap' ? out.sitemaps : out.urls, depth };
        else if (entry && n === 'loc' && depth === entry.depth + 1) loc = '';
      },
      ontext(text) {
        if (loc !== null) loc += text;
      },
      onclosetag() {
        if (loc !== null && entry && depth === entry.depth + 1) {
          if (entry.list.length < max) entry.list.push(loc.trim());
          loc = null;
        } else if (entry && depth === entry.depth) {
          entry = null;
        }
        depth -= 1;
      },
    },
    { xmlMode: true },
  );
  parser.end(xml);
  return out;
}
