// Test events delivered to a webhook (my-webhook-trigger, the webhook_trigger tool): a sample event of a
// sender (lib/webhooks/webhook-events/), signed with the webhook's own secret (opened here: it never leaves the
// service) as that sender signs, and taken through the capture intake as a delivery is: the webhook's
// rules answer it, its checks judge it, it is forwarded and streamed like any capture. Never over HTTP
// to this service itself: no connection to lose, no address to know.
import type { Kysely } from 'kysely';
import type { Database } from '../../../db/schema.ts';
import { InvalidInputError } from '../../../lib/errors.ts';
import type { SecretBox } from '../../../lib/auth/secret-box.ts';
import { type TestEventProvider, testEvent } from '../../../lib/webhooks/webhook-events/index.ts';
import { checkSignature, type SignatureScheme } from '../../../lib/webhooks/webhook-signatures.ts';
import { CAPTURE_PREFIX, type CaptureIntake } from './capture-intake.ts';
import { ownedWebhook } from './webhook-settings.ts';

export interface TriggerInput {
  webhook_id: string;
  provider: TestEventProvider;
  event: string;
}

interface TriggerDeps {
  db: Kysely<Database>;
  box?: SecretBox;
  captureBaseUrl: string;
}

/** `intake`: the capture path (the API's writer); without it (a process that serves no captures), no `trigger`. */
export function webhookTriggerService({ intake, ...deps }: TriggerDeps & { intake?: CaptureIntake }): {
  trigger?: ReturnType<typeof triggerWith>['trigger'];
} {
  return intake ? triggerWith(intake, deps) : {};
}

function triggerWith(intake: CaptureIntake, { db, box, captureBaseUrl }: TriggerDeps) {
  return {
    /**
     * Delivers `event` of `provider` to the caller's webhook, as sent from `from` (the caller's address).
     * A webhook that checks another scheme's signatures is refused (400 naming provider: the event would
     * only ever be judged invalid); one that checks none gets it unsigned, and the answer says so.
     */
    async trigger(userId: number, { webhook_id: webhookId, provider, event }: TriggerInput, from: string) {
      const webhook = await ownedWebhook(db, userId, webhookId);
      const setting = webhook.signature;
      if (setting && setting.scheme !== provider)
        throw new InvalidInputError(
          `provider: webhook ${webhookId} checks ${setting.scheme} signatures, so a ${provider} event would be ` +
            `judged invalid: trigger a ${setting.scheme} event, or set its signature to ${provider} ` +
            '(my-webhook-update)',
          'provider',
        );
      const signing = setting && box ? { secret: await box.open(setting.sealed_secret), header: setting.header } : null;
      const path = `${CAPTURE_PREFIX}${webhookId}`;
      const url = `${captureBaseUrl}${path}`;
      const sample = testEvent(provider, event, { now: new Date(), target: url, signing });
      const raw = Buffer.from(sample.body);
      // As an HTTP client sends it to the capture URL: its host, the body's length.
      const headers = { host: new URL(url).host, ...sample.headers, 'content-length': String(raw.length) };
      const owner = await intake.admit(webhookId, from); // 429 past the webhook's captures per minute
      const { record } = await intake.take(owner, {
        webhookId,
        method: 'POST',
        path,
        query: null,
        headers,
        raw,
        ipAddress: from,
      });
      const signature =
        setting && signing
          ? checkSignature(setting.scheme as SignatureScheme, signing.secret, setting.header, {
              headers,
              body: raw,
              capturedAt: record.createdAt,
            })
          : null;
      const status = record.answeredStatus ?? 200;
      const what = `a ${provider} ${event} test event (${sample.id}) to webhook ${webhookId}`;
      return {
        webhook_id: webhookId,
        provider,
        event,
        event_id: sample.id,
        signed: sample.signed,
        signature,
        answered: { status, matched_rule: record.matchedRule ?? null },
        sent: { method: 'POST', path, headers, body: sample.body },
        message: signature
          ? `Delivered ${what}, signed with its secret: answered ${status}, signature ${signature.status}`
          : `Delivered ${what} unsigned: the webhook has no signature set ` +
            `(set signature {"scheme": "${provider}", "secret": ...} with my-webhook-update to have it signed)`,
      };
    },
  };
}
