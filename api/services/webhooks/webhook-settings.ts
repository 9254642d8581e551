// Webhooks themselves, for every door: create, read, list, update and delete, each setting checked
// against the plan and the SSRF guard, the signature secret sealed. Unknown and foreign ids are the same 404.
import type { Kysely } from 'kysely';
import type { z } from 'zod';
import type { createBody } from '../../../contract/webhooks/webhooks.ts';
import type { Database, WebhookSignature } from '../../../db/schema.ts';
import { failPendingDeliveries, raiseDeliveryFloors } from '../../../db/webhooks/capture-deliveries.ts';
import {
  ForwardingFullError,
  createWebhook,
  deleteOwnedWebhook,
  findOwnedWebhook,
  listWebhooks,
  setWebhookSettings,
  type WebhookSettings,
} from '../../../db/webhooks/webhooks.ts';
import { checkTarget } from '../../../lib/net/target-guard.ts';
import { withTargetHint } from './webhook-target-hints.ts';
import type { SchemaChecks } from './webhook-schema-checks.ts';
import type { SecretBox } from '../../../lib/auth/secret-box.ts';
import type { SignatureScheme } from '../../../lib/webhooks/webhook-signatures.ts';
import { InvalidInputError, NotFoundError, PlanLimitError } from '../../../lib/errors.ts';
import type { KvStore } from '../../../lib/kv/index.ts';
import { defaultRetention, effectiveRetention, PLAN_LIMITS, RETENTION_CAPS, type Plan } from '../../../lib/plans.ts';

/** The channel on which every API process hears which webhook's settings changed (its cached answer goes). */
export const WEBHOOK_SETTINGS_CHANNEL = 'webhook-settings';

/** A signature check as the owner gives it: the secret in the clear, only until it is sealed. */
export interface SignatureSetting {
  scheme: SignatureScheme;
  secret: string;
  header: string;
}

/**
 * What an owner sets on a webhook, as every door reads it by the contract's fields (a create body's, an update's
 * beside its webhook_id). Undefined: unchanged; null: the default / none; a retention's field left out: the plan's.
 */
export type WebhookSettingsInput = z.output<typeof createBody>;

/** The caller's webhook (with its settings and its owner's plan); unknown and foreign ids are the same 404. */
export async function ownedWebhook(db: Kysely<Database>, userId: number, webhookId: string) {
  const webhook = await findOwnedWebhook(db, userId, webhookId);
  if (!webhook) throw new NotFoundError(`No webhook ${webhookId} among yours`);
  return webhook;
}

/** What the webhooks' services are built from (webhooks.ts builds the three). */
export interface WebhookDeps {
  db: Kysely<Database>;
  /** The service's public URL (its API, dashboard and, unless they have their own, capture URLs). */
  baseUrl: string;
  /** Where capture URLs start (CAPTURE_BASE_URL); baseUrl when not given. */
  captureBaseUrl?: string;
  /** Live streams and settings changes go through it; without it, no live stream. */
  kv?: KvStore;
  /** Seals signature secrets; without it, signatures cannot be set. */
  box?: SecretBox;
  /** NETWORK_ALLOW: private addresses a forward URL may reach. */
  allow?: readonly string[];
  /** This process's cached answer of the webhook goes (the others hear it on WEBHOOK_SETTINGS_CHANNEL). */
  settingsChanged?: (webhookId: string) => void;
}

export function webhookSettingsService({
  db,
  baseUrl,
  captureBaseUrl = baseUrl,
  kv,
  box,
  allow = [],
  settingsChanged = () => {},
  live,
  checks,
}: WebhookDeps & {
  /** Tells every process's streams that these webhooks changed (webhook-live.ts). */
  live: { changed(webhookIds: Iterable<string>): Promise<void> };
  /** Compiles a schema on the checker's threads (webhook-schema-checks.ts), never on the event loop. */
  checks: Pick<SchemaChecks, 'problem'>;
}) {
  const urlOf = (webhookId: string) => `${captureBaseUrl}/webhook/${webhookId}`;
  const shown = (s: WebhookSignature | null) => (s ? { scheme: s.scheme, header: s.header } : null);
  /** A webhook's settings as every door answers them (never the secret; the retention in force). */
  const shownSettings = (w: WebhookSettings, plan: Plan) => ({
    response: w.response,
    rules: w.rules ?? [],
    schema: w.schema,
    signature: shown(w.signature),
    forward_url: w.forwardUrl,
    retention: effectiveRetention(plan, w.retention),
  });
  /** The settings checked against the plan and the SSRF guard, the secret sealed: ready to store. */
  async function checkedSettings(
    account: { userId: number; plan: Plan },
    input: WebhookSettingsInput,
    webhookId: string | null = null,
  ): Promise<Partial<WebhookSettings>> {
    const { plan } = account;
    const { forward_url: forwardUrl } = input;
    // Fields left out (or sent empty) are the plan's defaults; the plan bounds what is asked.
    const asked = input.retention
      ? Object.fromEntries(Object.entries(input.retention).filter(([, v]) => v !== undefined))
      : null;
    const retention =
      input.retention === undefined ? undefined : asked ? { ...defaultRetention(plan), ...asked } : null;
    if (retention) {
      const { capturesKept, captureDays } = PLAN_LIMITS[plan];
      if (retention.max_requests > capturesKept)
        throw new PlanLimitError(`retention.max_requests: at most ${capturesKept} on the ${plan} plan`);
      if (retention.max_age_days > captureDays)
        throw new PlanLimitError(`retention.max_age_days: at most ${captureDays} on the ${plan} plan`);
    }
    if (input.schema) {
      const problem = await checks.problem(account.userId, input.schema);
      if (problem) throw new InvalidInputError(`schema: ${problem}`, 'schema');
    }
    if (forwardUrl) {
      // Forwarding to a capture URL of this service would pass captures around in a circle.
      // Host and port (a service on localhost may well forward to an app on another port of it); a
      // trailing dot is the same host. Other names for it are stopped by the mark forwards carry.
      const where = (u: string) => {
        const url = new URL(u);
        const port = url.port || (url.protocol === 'https:' ? '443' : '80');
        return `${url.hostname.replace(/\.$/, '').toLowerCase()}:${port}`;
      };
      if (where(forwardUrl) === where(baseUrl) || where(forwardUrl) === where(captureBaseUrl))
        throw new InvalidInputError(
          'forward_url: must not be this service (forwarding to a capture URL would go round in circles)',
          'forward_url',
        );
      await checkTarget(forwardUrl, { allow, field: 'forward_url' }).catch((e) => {
        throw withTargetHint(e, { forward: { webhookId } });
      });
    }
    // No rules is stored as none (null), whichever way it was said.
    const rules = input.rules === undefined ? undefined : input.rules?.length ? input.rules : null;
    return {
      response: input.response,
      rules,
      schema: input.schema,
      signature: await sealed(input.signature),
      forwardUrl,
      retention,
    };
  }
  const forwardingMost = (plan: Plan) => PLAN_LIMITS[plan].forwardingWebhooks;
  /** The plan's refusal for a webhook that would forward past its owner's limit; other errors as they are. */
  const forwardingFull =
    (plan: Plan) =>
    (err: unknown): never => {
      if (!(err instanceof ForwardingFullError)) throw err;
      throw new PlanLimitError(
        `forward_url: at most ${err.most} of your webhooks forward at once on the ${plan} plan ` +
          '(stop one with forward_url null)',
      );
    };
  async function sealed(s: SignatureSetting | null | undefined): Promise<WebhookSignature | null | undefined> {
    if (!s) return s;
    if (!box) throw new Error('signature checks need the payload key');
    return { scheme: s.scheme, header: s.header, sealed_secret: await box.seal(s.secret) };
  }
  return {
    /** A new webhook, or 403 when the account owns as many as its plan allows. */
    async create(account: { userId: number; plan: Plan }, settings: WebhookSettingsInput = {}) {
      const max = PLAN_LIMITS[account.plan].webhooks;
      const given = await checkedSettings(account, settings);
      const webhook = await createWebhook(db, account.userId, max, given, forwardingMost(account.plan)).catch(
        forwardingFull(account.plan),
      );
      if (!webhook)
        throw new PlanLimitError(`You own ${max} webhooks, the most the ${account.plan} plan allows: delete one first`);
      return {
        webhook_id: webhook.webhookId,
        webhook_url: urlOf(webhook.webhookId),
        created_at: webhook.createdAt.toISOString(),
        ...shownSettings(
          {
            response: given.response ?? null,
            rules: given.rules ?? null,
            schema: given.schema ?? null,
            signature: given.signature ?? null,
            forwardUrl: given.forwardUrl ?? null,
            retention: given.retention ?? null,
          },
          account.plan,
        ),
        message: 'Webhook created: send any HTTP request to webhook_url and read it back from my-webhook-requests',
      };
    },

    /**
     * Sets what the webhook answers its senders, how its captures' signatures are checked, where they
     * are forwarded and how long they are kept (undefined: unchanged, null: the default / none); every
     * process drops its cached answer at once. Forwarding applies to captures from then on.
     */
    async update(account: { userId: number; plan: Plan }, webhookId: string, settings: WebhookSettingsInput) {
      const given = await checkedSettings(account, settings, webhookId);
      const most = forwardingMost(account.plan);
      const set = await setWebhookSettings(db, account.userId, webhookId, given, most).catch(
        forwardingFull(account.plan),
      );
      if (!set) throw new NotFoundError(`No webhook ${webhookId} among yours`);
      if (settings.response !== undefined || settings.rules !== undefined) {
        settingsChanged(webhookId); // this process at once: the next capture here gets the new answer
        if (kv) await kv.publish(WEBHOOK_SETTINGS_CHANNEL, webhookId);
      }
      const { response, rules, schema, signature, forwardUrl, retention } = given;
      const said = [
        response === undefined
          ? ''
          : response
            ? `captures are now answered with ${response.status} after ${response.delay_ms} ms`
            : 'captures are now answered with the default JSON',
        rules === undefined
          ? ''
          : rules
            ? `${rules.length} response rule${rules.length === 1 ? '' : 's'} ` +
              `now answer${rules.length === 1 ? 's' : ''} first`
            : 'no response rules',
        schema === undefined
          ? ''
          : schema
            ? 'bodies are checked against the JSON Schema'
            : 'bodies are not checked against a schema',
        signature === undefined
          ? ''
          : signature
            ? `signatures are checked as ${signature.scheme}`
            : 'signatures are not checked',
        forwardUrl === undefined
          ? ''
          : forwardUrl
            ? `new captures are forwarded to ${forwardUrl}`
            : 'captures are not forwarded',
        retention === undefined
          ? ''
          : retention
            ? `it keeps ${retention.max_requests} captures for ${retention.max_age_days} days`
            : 'it keeps what the plan keeps by default',
      ].filter(Boolean);
      const after = await findOwnedWebhook(db, account.userId, webhookId);
      // Deleted by another request since the update: gone, as it would be a moment later.
      if (!after) throw new NotFoundError(`No webhook ${webhookId} among yours`);
      if (forwardUrl === null)
        await failPendingDeliveries(db, after.id, 'forwarding was turned off before this capture was delivered');
      // What was captured before is not forwarded: the forwarder's walk starts past it.
      if (forwardUrl) await raiseDeliveryFloors(db, [after.id]);
      return { webhook_id: webhookId, ...shownSettings(after, account.plan), message: `Updated: ${said.join('; ')}` };
    },

    /** One of the caller's webhooks with its settings (404 otherwise). */
    async one(account: { userId: number; plan: Plan }, webhookId: string) {
      const w = await ownedWebhook(db, account.userId, webhookId);
      return {
        webhook_id: w.webhookId,
        webhook_url: urlOf(w.webhookId),
        created_at: w.createdAt.toISOString(),
        ...shownSettings(w, account.plan),
      };
    },

    async list(account: { userId: number; plan: Plan }) {
      const webhooks = await listWebhooks(
        db,
        account.userId,
        defaultRetention(account.plan),
        RETENTION_CAPS[account.plan],
      );
      return {
        total: webhooks.length,
        webhooks: webhooks.map((w) => ({
          id: w.id,
          webhook_id: w.webhookId,
          webhook_url: urlOf(w.webhookId),
          request_count: w.requestCount,
          created_at: w.createdAt.toISOString(),
          ...shownSettings(w, account.plan),
        })),
      };
    },

    async remove(userId: number, webhookId: string) {
      if (!(await deleteOwnedWebhook(db, userId, webhookId)))
        throw new NotFoundError(`No webhook ${webhookId} among yours`);
      await live.changed([webhookId]).catch(() => {}); // its open streams end (or see it at their next look)
      return { message: 'Webhook and its captured requests deleted', webhook_id: webhookId };
    },
  };
}

export type WebhookSettingsService = ReturnType<typeof webhookSettingsService>;
