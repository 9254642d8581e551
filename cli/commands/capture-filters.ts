// The capture filters of my-webhook-requests, my-webhook-export and my-webhook-wait as flags: each
// flag is the query parameter of the same name, and a refusal of its value names the flag.
import type { Command } from 'commander';
import type { FieldFlags } from '../flag-errors.ts';
import { timeOrAgo } from './parse.ts';

export interface FilterFlags {
  method?: string;
  header?: string;
  q?: string;
  since?: string;
  until?: string;
}

/** --method, --header, --q, --since and (unless a wait) --until. */
export function filterOptions(cmd: Command, { until = true } = {}): Command {
  cmd
    .option('--method <method>', 'only this method')
    .option('--header <name[:value]>', 'only with this header (and value)')
    .option('--q <text>', 'only bodies holding this text')
    .option('--since <time>', 'only captured at or after this ISO time, or this long ago (30s, 15m, 2h)', timeOrAgo);
  return until ? cmd.option('--until <time>', 'only captured before this ISO time, or this long ago', timeOrAgo) : cmd;
}

/** The query parameters of the filters given. */
export const filterQuery = (o: FilterFlags) => ({
  method: o.method,
  header: o.header,
  q: o.q,
  since: o.since,
  until: o.until,
});

/** Which flag each query parameter came from. */
export const FILTER_FLAGS: FieldFlags = {
  webhook_id: '<id>',
  method: '--method',
  header: '--header',
  q: '--q',
  since: '--since',
  until: '--until',
};
