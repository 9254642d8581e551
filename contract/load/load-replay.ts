// The `replay` of a load test's start body: recorded requests as the load (domain/load/replay.ts),
// either the caller's captures of one webhook or a HAR 1.2 log (a browser's, a proxy's), at a speed.
import { z } from 'zod';
import { HEADER_NAME, HTTP_METHODS, noLineBreaks } from '../http-fields.ts';
import { searchQuery, webhookIdField } from '../webhooks/webhooks.ts';

/** The most requests one replay sends in a pass. */
export const MAX_REPLAY_REQUESTS = 10_000;
/** The fastest replay: a thousand times the recorded pace; the slowest, a hundredth of it. */
export const MAX_REPLAY_SPEED = 1000;
export const MIN_REPLAY_SPEED = 0.01;
/** The start body's size with a HAR in it: a 10 MB HAR and the rest of the body. */
export const REPLAY_BODY_LIMIT_BYTES = 10 * 1024 * 1024 + 64 * 1024;

/**
 * A HAR's fields a replay reads (HAR 1.2: http://www.softwareishard.com/blog/har-12-spec/); the
 * format's other fields, and the `_` ones tools add, are let through unread.
 */
const harRequest = z.looseObject({
  method: z
    .string({ error: 'must be a string' })
    .transform((m) => m.toUpperCase())
    .pipe(z.enum(HTTP_METHODS, { error: `must be one of ${HTTP_METHODS.join(', ')}` })),
  url: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }),
  headers: z
    .array(
      z
        .looseObject({ name: z.string({ error: 'must be a string' }), value: z.string({ error: 'must be a string' }) })
        // A name or value that would write header lines of its own (HTTP/2's pseudo-headers are left out later).
        .refine(
          (h) => HEADER_NAME.test(h.name.replace(/^:/, '')) && !/[\r\n\0]/.test(h.value),
          'is not a valid header',
        ),
      { error: 'must be a list of {name, value}' },
    )
    .default([]),
  postData: z
    .looseObject({
      // It is sent as the request's content-type.
      mimeType: noLineBreaks('must be a string').optional(),
      text: z.string({ error: 'must be a string' }).optional(),
      encoding: z.string({ error: 'must be a string' }).optional(),
      params: z
        .array(
          z.looseObject({
            name: z.string({ error: 'must be a string' }),
            value: z.string({ error: 'must be a string' }).optional(),
          }),
          { error: 'must be a list of {name, value}' },
        )
        .optional(),
    })
    .optional(),
});

const harEntry = z.looseObject({
  startedDateTime: z.iso.datetime({ offset: true, error: 'must be an ISO 8601 time' }),
  request: harRequest,
});

export const harSchema = z.looseObject(
  {
    log: z.looseObject(
      {
        entries: z
          .array(harEntry, { error: 'must be a list of entries' })
          .min(1, 'must hold at least one entry')
          .max(MAX_REPLAY_REQUESTS, `must hold at most ${MAX_REPLAY_REQUESTS} entries`),
      },
      { error: 'must be an object {entries}' },
    ),
  },
  { error: 'must be a HAR 1.2 object {log: {entries}}' },
);

export type Har = z.output<typeof harSchema>;
export type HarEntry = Har['log']['entries'][number];

/**
 * The HARs harSchema took, each as given and as it gave it back: a HAR is read once. A pass over a
 * 10 MB one takes half a second of the event loop, and the start body's checks, its transform and
 * the MCP SDK's second parse of the arguments read it up to six times.
 */
const takenHars = new WeakMap<object, Har>();

/** harSchema's reading of `har`: once per HAR object (a given one, or one it gave back). */
export function readHar(har: unknown): z.ZodSafeParseResult<Har> {
  const known = har !== null && typeof har === 'object' ? takenHars.get(har) : undefined;
  if (known) return { success: true, data: known };
  const read = harSchema.safeParse(har);
  if (read.success && har !== null && typeof har === 'object') {
    takenHars.set(har, read.data);
    takenHars.set(read.data, read.data);
  }
  return read;
}

/** `har` as harSchema gives it back (it throws as harSchema.parse does, for a HAR it refuses). */
function takenHar(har: unknown): Har {
  const read = readHar(har);
  if (!read.success) throw read.error;
  return read.data;
}

/** Which captures: every filter given must hold (as my-webhook-requests takes them). */
const captureFilter = searchQuery.pick({ method: true, header: true, q: true, since: true, until: true }).strict();

export const replaySchema = z
  .object(
    {
      webhook_id: webhookIdField.optional(),
      ids: z
        .array(z.number({ error: 'must be capture ids' }).int('must be capture ids').positive('must be capture ids'), {
          error: 'must be a list of capture ids',
        })
        .min(1, 'must hold at least one id')
        .max(MAX_REPLAY_REQUESTS, `must hold at most ${MAX_REPLAY_REQUESTS} ids`)
        .optional(),
      filter: captureFilter.optional(),
      // Shown to clients as an object: HAR is another format, whose fields (and tools' own `_` ones)
      // are read, not refused.
      har: z
        .unknown()
        .meta({
          type: 'object',
          description: 'A HAR 1.2 log {log: {entries: [...]}}, as browsers and proxies export it',
        })
        .optional(),
      speed: z
        .number({ error: 'must be a number' })
        .refine(
          (n) => n === 0 || (n >= MIN_REPLAY_SPEED && n <= MAX_REPLAY_SPEED),
          `must be 0, or from ${MIN_REPLAY_SPEED} to ${MAX_REPLAY_SPEED}`,
        )
        .default(1),
      loop: z.boolean({ error: 'must be true or false' }).default(false),
    },
    { error: 'must be an object {webhook_id, ids, filter} or {har}, with speed and loop' },
  )
  .strict()
  .superRefine((r, ctx) => {
    const issue = (path: Array<string | number>, message: string) => ctx.addIssue({ code: 'custom', path, message });
    if ((r.webhook_id === undefined) === (r.har === undefined))
      issue([], 'must give either webhook_id (your captures) or har');
    if (r.har !== undefined) {
      if (r.ids !== undefined) issue(['ids'], 'picks captures: it goes with webhook_id, not har');
      if (r.filter !== undefined) issue(['filter'], 'picks captures: it goes with webhook_id, not har');
      const har = readHar(r.har);
      if (!har.success)
        for (const fault of har.error.issues) issue(['har', ...(fault.path as Array<string | number>)], fault.message);
    }
  })
  // Parsing a parsed HAR again gives it back as it was (the MCP SDK parses the arguments twice).
  .transform(({ har, ...r }) => ({ ...r, ...(har === undefined ? {} : { har: takenHar(har) }) }))
  .describe(
    'Recorded requests as the load: {webhook_id, ids?, filter?} (your captures, oldest first) ' +
      'or {har} (a HAR 1.2 log, at most 10 MB); speed 1 = recorded timing, 10 = ten times faster, ' +
      '0 = each user sends them in order as fast as answered; loop repeats them until testDuration',
  );

export type ReplayInput = z.output<typeof replaySchema>;

/** The start body's fields a replay bears on, as given. */
interface GivenBody {
  replay?: ReplayInput;
  targetUrl?: string;
  httpMethod?: string;
  concurrentUsers?: number;
  testDuration?: number;
  rampUpTime?: number;
  requestsPerSecond?: number;
  stages?: unknown[];
  stageTarget?: string;
  steps?: unknown[];
  body?: string;
}

/** The origin of a HAR's first entry (its entries are http(s) URLs once harSchema has taken it). */
const harOrigin = (har: Har): string => new URL(har.log.entries[0]!.request.url).origin;

/** The faults of a start body with a replay, each as [path, message]. */
export function replayFaults(b: GivenBody): Array<[Array<string | number>, string]> {
  const faults: Array<[Array<string | number>, string]> = [];
  const r = b.replay;
  if (!r) return faults;
  const fault = (path: Array<string | number>, message: string) => faults.push([path, message]);
  if (b.httpMethod !== undefined) fault(['httpMethod'], 'is not given with replay: each request has its own');
  if (b.body !== undefined) fault(['body'], 'is not given with replay: each request has its own');
  if (b.steps !== undefined) fault(['steps'], 'is not given with replay: the recorded requests are the sequence');
  if (b.requestsPerSecond !== undefined)
    fault(['requestsPerSecond'], 'is not given with replay: replay.speed sets the pace (0: as fast as answered)');
  if (r.speed > 0) {
    const paced =
      'is for replay at speed 0 (each user sending the requests in order): above 0 the recording sets the timing';
    if (b.stages !== undefined) fault(['stages'], paced);
    if (b.rampUpTime !== undefined) fault(['rampUpTime'], paced);
  }
  if (b.stageTarget === 'rate') fault(['stageTarget'], 'must be users with replay');
  if (r.loop && b.testDuration === undefined && b.stages === undefined)
    fault(['testDuration'], 'is required with replay.loop (the requests repeat until it ends)');
  if (b.targetUrl === undefined) {
    if (r.webhook_id !== undefined)
      fault(['targetUrl'], 'is required with a replay of captures: the URL their paths and queries are appended to');
    else if (r.har && readHar(r.har).success) {
      // (A HAR harSchema refused has its own faults already: its entries' URLs may not parse.)
      const origin = harOrigin(r.har);
      const other = r.har.log.entries.findIndex((e) => new URL(e.request.url).origin !== origin);
      if (other >= 0)
        fault(
          ['replay', 'har', 'log', 'entries', other, 'request', 'url'],
          `is on ${new URL(r.har.log.entries[other]!.request.url).origin}, not ${origin} (the first entry's): ` +
            'give targetUrl to send every entry there',
        );
    }
  }
  return faults;
}

/**
 * What a replay leaves out, filled: the target (a HAR's own origin), users (10 connections at a
 * speed above 0, 1 user at speed 0; with stages, their peak), no ramp, and 0 for a length the sequence decides
 * (api/services/load-tests/load-replay.ts computes it once the requests are known).
 */
export function replayDefaults<B extends GivenBody>(b: B) {
  const r = b.replay;
  const harTarget = r?.har && b.targetUrl === undefined;
  return {
    targetUrl: b.targetUrl ?? (r?.har ? harOrigin(r.har) : ''),
    /** The field the target's refusal names. */
    targetField: harTarget ? 'replay.har.log.entries.0.request.url' : 'targetUrl',
    httpMethod: (b.httpMethod ?? 'GET') as NonNullable<B['httpMethod']> | 'GET',
    ...(r
      ? {
          // With stages, their peak (load-test-start.ts).
          ...(b.stages ? {} : { concurrentUsers: b.concurrentUsers ?? (r.speed > 0 ? 10 : 1) }),
          testDuration: b.testDuration ?? 0,
          rampUpTime: b.rampUpTime ?? 0,
        }
      : {}),
  };
}
