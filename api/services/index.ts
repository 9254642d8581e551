// The API's services: the one layer between the doors (REST routes, MCP tools, dashboard pages) and
// the database or Temporal. Built once per process and handed to every door.
import type { CaptureWriter } from '../../db/webhooks/capture-writer.ts';
import type { ApiDeps } from '../deps.ts';
import { accountService } from './accounts.ts';
import { captureIntake } from './webhooks/capture-intake.ts';
import { captureService } from './webhooks/captures.ts';
import { credentialService } from './credentials.ts';
import { diagnosticsService } from './diagnostics.ts';
import { domainService } from './domains.ts';
import { loadReportService } from './load-tests/load-report.ts';
import { loadReplayService } from './load-tests/load-replay.ts';
import { loadSeriesService } from './load-tests/load-series.ts';
import { loadTestService } from './load-tests/load-tests.ts';
import { lookupService } from './lookups.ts';
import { quotaService } from './quota.ts';
import { siteService } from './site.ts';
import { streamService } from './streams.ts';
import { targetVerificationService } from './load-tests/target-verification.ts';
import { taskService } from './tasks.ts';
import { videoService } from './video/video.ts';
import { secretBox } from '../../lib/auth/secret-box.ts';
import { webhookExportService } from './webhooks/webhook-export.ts';
import { webhookForwardingService } from './webhooks/webhook-forwarding.ts';
import { webhookReplayService } from './webhooks/webhook-replay.ts';
import { WEBHOOK_SETTINGS_CHANNEL } from './webhooks/webhook-settings.ts';
import { RuleBudget } from '../../lib/webhooks/rule-budget.ts';
import { webhookService } from './webhooks/webhooks.ts';
import { webhookWaitService } from './webhooks/webhook-waits.ts';

/** `writer`: where captures are stored (the API's); without it, no test events. */
export function createServices(deps: ApiDeps, writer?: CaptureWriter) {
  const { config, db, kv, temporal } = deps;
  const targets = targetVerificationService({ config, db, kv });
  const domains = domainService({ config, kv, temporal });
  const site = siteService({ kv, temporal, allow: config.networkAllow });
  // How long each user's response rules may run in this process: captures and the dashboard's test box share it.
  const ruleBudget = new RuleBudget();
  const captures = captureService({
    db,
    kv,
    settingsChannel: WEBHOOK_SETTINGS_CHANNEL,
    ruleBudget,
    onBrokenRule: (webhookId, rule, err) =>
      deps.logger.warn(
        { err, webhook_id: webhookId, rule },
        "a stored response rule no longer compiles: it never matches (set the webhook's rules again)",
      ),
  });
  const webhooks = webhookService({
    db,
    baseUrl: config.baseUrl,
    captureBaseUrl: config.captureBaseUrl,
    kv,
    box: secretBox(deps.codec),
    allow: config.networkAllow,
    settingsChanged: captures.settingsChanged,
    intake: writer && captureIntake(writer, captures),
    ruleBudget,
  });
  const replays = loadReplayService({ db, captures: webhooks });
  const loadTests = loadTestService({ config, db, temporal, targets, replays });
  const series = loadSeriesService({ db, loadTests });
  const video = videoService({ config, db, kv, blobs: deps.blobs, temporal });
  const streams = streamService({ kv });
  const webhookWaits = webhookWaitService({ temporal, streams, webhooks });
  return {
    config,
    accounts: accountService({ db }),
    captures,
    credentials: credentialService({ db, logger: deps.logger }),
    diagnostics: diagnosticsService({ temporal }),
    domains,
    loadTests,
    reports: loadReportService({ loadTests }),
    series,
    lookups: lookupService({ config }),
    quota: quotaService({ kv }),
    site,
    streams,
    targets,
    tasks: taskService({ temporal, loadTests, domains, site, video, webhookWaits }),
    video,
    webhooks,
    webhookWaits,
    webhookExports: webhookExportService({ db, baseUrl: config.captureBaseUrl, webhooks }),
    webhookReplays: webhookReplayService({ db, allow: config.networkAllow }),
    forwarding: webhookForwardingService({
      temporal,
      onError: (err) =>
        deps.logger.warn({ err }, 'waking a webhook forwarder failed (its captures go at the next wake)'),
    }),
  };
}

export type Services = ReturnType<typeof createServices>;
