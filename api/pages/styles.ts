// The pages' CSS, in files of their own (api/pages/styles/*.css), read once: the dashboard serves
// them from this origin (api/dashboard/assets.ts) and every page links them; the offline load report
// inlines them, since it is one file that fetches nothing.
import { createHash } from 'node:crypto';
import fs from 'node:fs';

const read = (name: string) => fs.readFileSync(new URL(`./styles/${name}`, import.meta.url), 'utf8');
/** The reflow of tables on a phone, which the dashboard's pages and the report share. */
const tables = read('tables.css');

export const STYLES = {
  'page.css': read('page.css') + tables,
  'charts.css': read('charts.css'),
  'report.css': read('report.css') + tables,
};

/** A served file's version: the start of its content's SHA-256, which its address carries and its ETag holds. */
export const versionOf = (body: string) => createHash('sha256').update(body).digest('base64url').slice(0, 27);

/**
 * Where a page links a file the dashboard serves: its path with its version (`?v=`, versionOf), which a
 * browser keeps without asking again, since another content is another address.
 */
export const assetHref = (name: string, version: string) => `/dashboard/assets/${name}?v=${version}`;

/** Where the pages' stylesheets are served, in the order a page links them. */
export const STYLESHEET_PATHS = (['page.css', 'charts.css'] as const).map((name) =>
  assetHref(name, versionOf(STYLES[name])),
);
