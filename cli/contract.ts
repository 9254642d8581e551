// What the command takes from the API's contract (contract/) without its schemas: the method and
// path of each operation it calls, and the constants its flags and messages name. Evaluated where it
// is imported in development and tests; scripts/build-cli.ts evaluates it once when it builds and puts
// its exports in the bundle as plain data, so a command that only calls operations loads no zod schema
// and none of the server's modules (one that checks its input with the API's own schema loads that
// schema when it runs). Every export must be plain data: the build refuses anything else.
import * as account from '../contract/account.ts';
import * as domains from '../contract/domains.ts';
import * as loadTests from '../contract/load/load-tests.ts';
import * as lookups from '../contract/lookups.ts';
import * as webhooks from '../contract/webhooks/webhooks.ts';
import { TEST_EVENT_PROVIDERS as PROVIDERS } from '../lib/webhooks/webhook-events/index.ts';
import { SIGNATURE_SCHEMES as SCHEMES } from '../lib/webhooks/webhook-signatures.ts';
import type { Operation } from '../contract/operation.ts';

type Routes<O extends Record<string, Operation>> = { [K in keyof O]: Pick<O[K], 'method' | 'path'> };

/** Each operation's method and path, typed as declared. */
function routes<O extends Record<string, Operation>>(operations: O): Routes<O> {
  return Object.fromEntries(
    Object.entries(operations).map(([name, o]) => [name, { method: o.method, path: o.path }]),
  ) as Routes<O>;
}

export const accountOperations = routes(account.accountOperations);
export const domainOperations = routes(domains.domainOperations);
export const loadTestOperations = routes(loadTests.loadTestOperations);
export const lookupOperations = routes(lookups.lookupOperations);
export const webhookOperations = routes(webhooks.webhookOperations);

/** How far out of id order captures commit: how far back `listen` resumes and keeps the ids it handled. */
export const OUT_OF_ORDER_WINDOW = webhooks.OUT_OF_ORDER_WINDOW;
export const SIGNATURE_SCHEMES = SCHEMES;
export const TEST_EVENT_PROVIDERS = PROVIDERS;
