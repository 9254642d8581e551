// netops listen: a webhook's captures, as they arrive, sent on to local URLs (a laptop the service
// cannot reach), like `stripe listen --forward-to`, each by its path to one of several routes
// (listen-routes.ts). It follows the webhook's event stream, resumes it after the service restarts or
// the network drops, and keeps its position on disk, so each capture reaches the local service once
// (listen-state.ts). It runs from actions/listen.ts, loaded then.
import type { Command } from 'commander';
import type { ListenOptions } from '../actions/listen.ts';
import { UsageError } from '../errors.ts';
import { examples, wholeNumber } from './parse.ts';

export function registerListen(program: Command): void {
  program
    .command('listen')
    .description(
      "Forward a webhook's captures to local URLs as they arrive (no id: the one listen made for these routes)",
    )
    .argument(
      '[webhook-id]',
      'the webhook to follow; left out, the one the last listen without an id made for this service, key and ' +
        'routes (a new one the first time, its capture URL printed)',
    )
    .option(
      '--forward-to <url>',
      'where each capture goes (that no --forward takes): its path below the capture URL is appended to this one',
      once,
    )
    .option(
      '--forward <path=url>',
      'captures whose path below the capture URL is PATH or below it go to URL, PATH taken off and the rest ' +
        'appended; repeat for several routes (the longest matching PATH wins)',
      (value: string, all: string[]) => [...all, value],
      [] as string[],
    )
    .option(
      '--from-now',
      'skip what was captured before (by default a first listen sends what the webhook keeps, ' +
        'a later one what came since)',
    )
    .option('--method <method>', 'forward only captures of this method')
    .option('--path <path>', 'forward only captures whose path below the capture URL is this or below it (/stripe/...)')
    .option(
      '--retries <n>',
      'attempts more when the local service cannot be reached, then skip the capture',
      wholeNumber('--retries'),
      3,
    )
    .option('--insecure', 'accept any certificate of an https URL to forward to')
    .option('--json', 'one JSON line per capture: the capture as the API gives it, with `forwarded`')
    .option('--new', 'make a new webhook even though an earlier listen made one for these routes')
    .addHelpText(
      'after',
      examples(
        'netops listen --forward-to http://localhost:4000/webhooks',
        'netops listen --forward /stripe=http://localhost:4000/webhooks/stripe --forward /gh=http://localhost:5000',
        'netops listen wh_123 --forward-to http://localhost:4000 --path /stripe --from-now',
      ),
    )
    .action(async (webhookId: string | undefined, o: ListenOptions) =>
      (await import('../actions/listen.ts')).listen(webhookId, o),
    );
}

/** `--forward-to` given twice is a mistake, not the last one winning: several targets are --forward routes. */
function once(value: string, before: string | undefined): string {
  if (before !== undefined)
    throw new UsageError(
      `--forward-to: given twice (${before} and ${value}); route paths to several URLs with --forward PATH=URL`,
    );
  return value;
}
