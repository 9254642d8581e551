// Every REST operation under /api/v1, in the order the OpenAPI document lists them.
import { accountOperations } from './account.ts';
import { diagnosticsOperations } from './diagnostics.ts';
import { domainOperations } from './domains.ts';
import { loadTestOperations } from './load/load-tests.ts';
import { lookupOperations } from './lookups.ts';
import type { Operation } from './operation.ts';
import { siteOperations } from './site.ts';
import { videoOperations } from './video.ts';
import { webhookOperations } from './webhooks/webhooks.ts';

export const OPERATIONS: Operation[] = [
  webhookOperations,
  lookupOperations,
  domainOperations,
  loadTestOperations,
  siteOperations,
  videoOperations,
  diagnosticsOperations,
  accountOperations,
].flatMap((ops) => Object.values<Operation>(ops));
