import type { Migration, MigrationProvider } from 'kysely/migration';
import * as accountsAndWebhooks from './2026-11-22-001-accounts-and-webhooks.ts';
import * as insertCapturesFunction from './2026-11-22-002-insert-captures-function.ts';
import * as loadTests from './2026-11-22-003-load-tests.ts';
import * as passwordsAndOauthStore from './2026-11-22-004-passwords-and-oauth-store.ts';
import * as serverSecretsAndAppUse from './2026-11-22-005-server-secrets-and-app-use.ts';
import * as lighterCaptureWrites from './2026-11-22-006-lighter-capture-writes.ts';
import * as unusedOauthClientsExpire from './2026-11-22-007-unused-oauth-clients-expire.ts';
import * as emailsAsGiven from './2026-11-23-008-emails-as-given.ts';
import * as webhookResponses from './2026-11-23-009-webhook-responses.ts';
import * as webhookSignatures from './2026-11-23-010-webhook-signatures.ts';
import * as webhookForwardingAndRetention from './2026-11-23-011-webhook-forwarding-and-retention.ts';
import * as deliveryFloor from './2026-11-23-012-delivery-floor.ts';
import * as noPreviousCaptureFunctions from './2026-11-26-013-no-previous-capture-functions.ts';
import * as webhookRules from './2026-11-27-014-webhook-rules.ts';
import * as webhookSchemas from './2026-11-27-015-webhook-schemas.ts';
import * as loadTestReplays from './2026-11-27-016-load-test-replays.ts';
import * as loadTestOutputs from './2026-11-27-017-load-test-outputs.ts';
import * as loadTestSeconds from './2026-11-27-018-load-test-seconds.ts';
import * as loadShardPhases from './2026-11-27-019-load-shard-phases.ts';
import * as captureSchemaChecks from './2026-11-28-020-capture-schema-checks.ts';
import * as capturesAsSentAndAnswered from './2026-11-28-021-captures-as-sent-and-answered.ts';
import * as loadShardSent from './2026-11-28-022-load-shard-sent.ts';
import * as storedInTodaysShape from './2026-11-29-023-stored-in-todays-shape.ts';
import * as loadTestAddresses from './2026-12-01-024-load-test-addresses.ts';

// Listed by hand rather than read from the folder, so bundlers and type stripping see every file.
const migrations: Record<string, Migration> = {
  '2026-11-22-001-accounts-and-webhooks': accountsAndWebhooks,
  '2026-11-22-002-insert-captures-function': insertCapturesFunction,
  '2026-11-22-003-load-tests': loadTests,
  '2026-11-22-004-passwords-and-oauth-store': passwordsAndOauthStore,
  '2026-11-22-005-server-secrets-and-app-use': serverSecretsAndAppUse,
  '2026-11-22-006-lighter-capture-writes': lighterCaptureWrites,
  '2026-11-22-007-unused-oauth-clients-expire': unusedOauthClientsExpire,
  '2026-11-23-008-emails-as-given': emailsAsGiven,
  '2026-11-23-009-webhook-responses': webhookResponses,
  '2026-11-23-010-webhook-signatures': webhookSignatures,
  '2026-11-23-011-webhook-forwarding-and-retention': webhookForwardingAndRetention,
  '2026-11-23-012-delivery-floor': deliveryFloor,
  '2026-11-26-013-no-previous-capture-functions': noPreviousCaptureFunctions,
  '2026-11-27-014-webhook-rules': webhookRules,
  '2026-11-27-015-webhook-schemas': webhookSchemas,
  '2026-11-27-016-load-test-replays': loadTestReplays,
  '2026-11-27-017-load-test-outputs': loadTestOutputs,
  '2026-11-27-018-load-test-seconds': loadTestSeconds,
  '2026-11-27-019-load-shard-phases': loadShardPhases,
  '2026-11-28-020-capture-schema-checks': captureSchemaChecks,
  '2026-11-28-021-captures-as-sent-and-answered': capturesAsSentAndAnswered,
  '2026-11-28-022-load-shard-sent': loadShardSent,
  '2026-11-29-023-stored-in-todays-shape': storedInTodaysShape,
  '2026-12-01-024-load-test-addresses': loadTestAddresses,
};

export const migrationProvider: MigrationProvider = {
  async getMigrations() {
    return migrations;
  },
};
