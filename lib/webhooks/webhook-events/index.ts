// Test events: a few common events of each sender whose signatures the service checks (Stripe, GitHub,
// Slack, Standard Webhooks, a plain HMAC), built fresh each time (new ids, the time of sending) and
// signed as that sender signs (lib/webhooks/webhook-signatures.ts), so a handler can be exercised with what the
// sender would send and the webhook's check says valid. The service sends them to a webhook
// (my-webhook-trigger), the command line to a URL (`netops webhook trigger --to`). Payloads are ours,
// shaped after each sender's public documentation of its events.
import { distance } from 'fastest-levenshtein';
import { SIGNATURE_SCHEMES, type SignatureScheme, signatureHeaders } from '../webhook-signatures.ts';
import { HMAC_EVENTS, STANDARD_WEBHOOKS_EVENTS } from './generic.ts';
import { GITHUB_EVENTS } from './github.ts';
import type { EventContext, EventKind, SampleEvent } from './sample.ts';
import { SLACK_EVENTS } from './slack.ts';
import { STRIPE_EVENTS } from './stripe.ts';

/** The senders of test events: the signature schemes, by the same names. */
export const TEST_EVENT_PROVIDERS = SIGNATURE_SCHEMES;
export type TestEventProvider = SignatureScheme;

const CATALOGUE: Record<TestEventProvider, Record<string, EventKind>> = {
  stripe: STRIPE_EVENTS,
  github: GITHUB_EVENTS,
  slack: SLACK_EVENTS,
  'standard-webhooks': STANDARD_WEBHOOKS_EVENTS,
  'hmac-sha256': HMAC_EVENTS,
};

/** The events of `provider` (of every provider when not given), with what each is. */
export function testEvents(provider?: TestEventProvider) {
  return (provider ? [provider] : TEST_EVENT_PROVIDERS).flatMap((p) =>
    Object.entries(CATALOGUE[p]).map(([event, kind]) => ({ provider: p, event, description: kind.description })),
  );
}

export const isTestEventProvider = (value: string): value is TestEventProvider =>
  (TEST_EVENT_PROVIDERS as readonly string[]).includes(value);

/** Why `provider` is no sender of test events (naming the nearest), or null when it is one. */
export function unknownProvider(provider: string): string | null {
  if (isTestEventProvider(provider)) return null;
  return (
    `${JSON.stringify(provider)} is not a sender of test ` +
    `events${suggestion(provider, TEST_EVENT_PROVIDERS)}: one of ${TEST_EVENT_PROVIDERS.join(', ')}`
  );
}

/** Why `event` is not one of `provider`'s test events (naming the nearest), or null when it is one. */
export function unknownEvent(provider: TestEventProvider, event: string): string | null {
  const known = Object.keys(CATALOGUE[provider]);
  if (Object.hasOwn(CATALOGUE[provider], event)) return null;
  return (
    `${JSON.stringify(event)} is not a ${provider} test event${suggestion(event, known)}: one of ` +
    `${known.join(', ')}`
  );
}

/** " (did you mean X?)" for the known name nearest to `given`, when it is near enough to be a slip. */
function suggestion(given: string, known: readonly string[]): string {
  const g = given.toLowerCase();
  // A part of a name (`succeeded`, `hmac`) is as near as can be.
  const scored = known.map((k) => ({ k, d: g.length >= 3 && k.includes(g) ? 0 : distance(g, k.toLowerCase()) }));
  const best = scored.sort((a, b) => a.d - b.d)[0];
  return best && best.d <= Math.max(2, Math.floor(best.k.length / 4)) ? ` (did you mean ${best.k}?)` : '';
}

/** The header that marks a test event: `<provider> <event>`. */
export const TEST_EVENT_HEADER = 'x-netops-test-event';

/** A test event, signed (or not: no secret given), as it is sent. */
export interface TestEvent extends SampleEvent {
  signed: boolean;
}

/**
 * `event` of `provider`, fresh, sent at `now` to `target`, and signed with `signing` as the provider
 * signs (`header`: where hmac-sha256 puts its digest). A TypeError for an event the catalogue lacks:
 * callers check names first (unknownProvider, unknownEvent).
 */
export function testEvent(
  provider: TestEventProvider,
  event: string,
  { signing, ...ctx }: EventContext & { signing: { secret: string; header: string } | null },
): TestEvent {
  if (unknownEvent(provider, event)) throw new TypeError(`no ${provider} test event ${event}`);
  const built = CATALOGUE[provider][event]!.build(ctx);
  // One header of ours, so test events can be told from deliveries (`--header x-netops-test-event`).
  const sample = { ...built, headers: { ...built.headers, [TEST_EVENT_HEADER]: `${provider} ${event}` } };
  if (!signing) return { ...sample, signed: false };
  const signature = signatureHeaders(provider, signing.secret, signing.header, {
    body: Buffer.from(sample.body),
    at: ctx.now,
    messageId: sample.id,
  });
  return { ...sample, headers: { ...sample.headers, ...signature }, signed: true };
}
