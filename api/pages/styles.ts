// The pages' CSS, in files of their own (api/pages/styles/*.css), read once: the dashboard serves
// them from this origin (api/dashboard/assets.ts) and every page links them; the offline load report
// inlines them, since it is one file that fetches nothing.
import fs from 'node:fs';

const read = (name: string) => fs.readFileSync(new URL(`./styles/${name}`, import.meta.url), 'utf8');

export const STYLES = {
  'page.css': read('page.css'),
  'charts.css': read('charts.css'),
  'report.css': read('report.css'),
};

/** Where the pages' stylesheets are served, in the order a page links them. */
export const STYLESHEET_PATHS = ['page.css', 'charts.css'].map((name) => `/dashboard/assets/${name}`);
