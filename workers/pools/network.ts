// The `network` pool: activities only, on the `network` task queue.
import type { Worker } from '@temporalio/worker';
import { createWhoisActivities } from '../../activities/whois/index.ts';
import { createConfiguredDomainLookup } from '../../domain/whois/lookup.ts';
import { createSiteActivities } from '../../activities/site/index.ts';
import { createWebhookActivities } from '../../activities/webhooks/index.ts';
import { createWebhookWaitActivities } from '../../activities/webhooks/wait.ts';
import { createActivityWorker, type PoolContext } from './pool-worker.ts';

export function createNetworkWorker(ctx: PoolContext): Promise<Worker> {
  if (!ctx.storage)
    throw new Error('the network pool needs storage (the lookup cache, captures to forward and to wait for)');
  return createActivityWorker('network', ctx, {
    ...createWhoisActivities(createConfiguredDomainLookup(ctx.config, ctx.storage.kv)),
    ...createSiteActivities({ kv: ctx.storage.kv, allow: ctx.config.networkAllow }),
    ...createWebhookActivities({
      db: ctx.storage.database.db,
      embedded: ctx.storage.database.kind !== 'postgres',
      allow: ctx.config.networkAllow,
    }),
    ...createWebhookWaitActivities({ db: ctx.storage.database.db, kv: ctx.storage.kv }),
  });
}
