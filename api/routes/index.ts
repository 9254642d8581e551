// Every router under /api/v1, in one list: the app mounts these, and the OpenAPI test checks the
// document covers exactly what they serve.
import type { Services } from '../services/index.ts';
import { accountRoutes } from './account.ts';
import { diagnosticsRoutes } from './diagnostics.ts';
import { domainRoutes } from './domains.ts';
import { loadTestingRoutes } from './load-tests.ts';
import { lookupRoutes } from './lookups.ts';
import type { V1Router } from './serve.ts';
import { siteRoutes } from './site.ts';
import { videoRoutes } from './video.ts';
import { webhookRoutes } from './webhooks.ts';

export function v1Routers(services: Services): V1Router[] {
  return [
    webhookRoutes(services),
    lookupRoutes(services),
    domainRoutes(services),
    loadTestingRoutes(services),
    siteRoutes(services),
    videoRoutes(services),
    diagnosticsRoutes(services),
    accountRoutes(services),
  ];
}
