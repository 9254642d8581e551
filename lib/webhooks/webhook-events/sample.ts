// What every provider's sample events are made of: the shape of one event as sent, and fresh ids and
// times in each provider's own forms, so that two triggers never send the same event (a handler that
// drops repeats must not drop a test).
import { randomBytes, randomInt, randomUUID } from 'node:crypto';

/** When, and to where, an event is sent. */
export interface EventContext {
  now: Date;
  /** The URL it is sent to (a GitHub ping names the hook's URL). */
  target: string;
}

/** One event as its provider sends it, unsigned. */
export interface SampleEvent {
  /**
   * What a handler tells deliveries apart by: the event's id (Stripe, Slack, plain), the delivery's (GitHub), the
   * message's (Standard Webhooks).
   */
  id: string;
  /** Lower-case names; no signature. */
  headers: Record<string, string>;
  body: string;
}

/** An event of a provider's catalogue. */
export interface EventKind {
  description: string;
  build(ctx: EventContext): SampleEvent;
}

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const UPPER = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ';

/** `n` random characters of `alphabet`. */
export function randomChars(n: number, alphabet = BASE62): string {
  return Array.from(randomBytes(n), (b) => alphabet[b % alphabet.length]).join('');
}

/** An id in Stripe's form: `evt_1NG8Du2eZvKYlo2CUI79vXWy`. */
export const stripeId = (prefix: string) => `${prefix}_1${randomChars(23)}`;
/** An id in Slack's form: `U061F7AUR`, `C123ABC456`, `Ev123ABC456`. */
export const slackId = (prefix: string) => `${prefix}${randomChars(10, UPPER)}`;
/** A Git object's SHA-1, as hex. */
export const gitSha = () => randomBytes(20).toString('hex');
/** A numeric id of the size a provider's ids have now. */
export const numericId = (digits = 9) => randomInt(10 ** (digits - 1), 10 ** digits - 1);
export const uuid = () => randomUUID();

/** Seconds since the epoch. */
export const unix = (at: Date) => Math.floor(at.getTime() / 1000);
/** An ISO 8601 time without milliseconds (`2026-11-28T20:10:30Z`), as GitHub writes them. */
export const isoSeconds = (at: Date) => at.toISOString().replace(/\.\d{3}Z$/, 'Z');
