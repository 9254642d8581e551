// The `outputs` and `tags` of a load test's start body: where the test's metrics go while it runs
// (domain/load/metrics/outputs.ts builds them; activities/load/outputs.ts sends them) and the labels they carry.
import { z } from 'zod';
import { CLIENT_HEADERS, headerMap, noLineBreaks } from '../http-fields.ts';
import { seconds } from './load-profile.ts';

/** Outputs of one test, at most; tags, at most. */
export const MAX_OUTPUTS = 3;
export const MAX_TAGS = 10;
/** Headers a write sets itself, or the connection's: an output's `headers` may not set them. */
const WRITE_HEADERS: ReadonlySet<string> = new Set([
  ...CLIENT_HEADERS,
  'content-type',
  'content-encoding',
  'user-agent',
  'x-prometheus-remote-write-version',
]);

/** The labels every series carries already (and the ones some series carry): a tag may not take them. */
export const RESERVED_LABELS = ['test_id', 'target_host', 'stat', 'phase', 'status', 'job', 'instance'];

const remoteWrite = z
  .object({
    type: z.literal('prometheus_remote_write'),
    url: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }).describe("The receiver's write URL"),
    headers: headerMap(
      20,
      WRITE_HEADERS,
      `must not set ${[...WRITE_HEADERS].join(', ')}: the write sets them`,
    ).describe('Headers sent with each write (an Authorization, a tenant id); shown by name only'),
    interval_seconds: seconds(1, 60)
      .default(5)
      .describe(
        'Seconds between writes while the test runs, 1 to 60 (default 5), or a duration such as "10s"; ' +
          'one more at the end',
      ),
  })
  .strict();
const series = (type: 'ndjson' | 'csv') =>
  z
    .object({ type: z.literal(type) })
    .strict()
    .describe(`Nothing is sent: GET /api/v1/load-testing/series/{test_id}?format=${type} streams the series`);

export const outputsSchema = z
  .array(
    z.discriminatedUnion('type', [remoteWrite, series('ndjson'), series('csv')], {
      error: 'must be prometheus_remote_write, ndjson or csv',
    }),
    { error: 'must be a list of outputs' },
  )
  .max(MAX_OUTPUTS, `must hold at most ${MAX_OUTPUTS} outputs`)
  // The same series twice to one receiver would collide (the same samples at interleaved times).
  .superRefine((outputs, ctx) => {
    const seen = new Map<string, number>();
    outputs.forEach((o, i) => {
      if (o.type !== 'prometheus_remote_write') return;
      const first = seen.get(o.url);
      if (first === undefined) seen.set(o.url, i);
      else ctx.addIssue({ code: 'custom', path: [i, 'url'], message: `is the receiver of outputs.${first} already` });
    });
  })
  .describe(
    "Where the test's metrics go while it runs: " +
      'Prometheus remote write every interval_seconds (and once at the end), or a series format',
  );

const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]{0,62}$/;
export const tagsSchema = z
  .record(
    z.string(),
    noLineBreaks('must be a string').pipe(
      z.string().min(1, 'must not be empty').max(200, 'must be at most 200 characters'),
    ),
    { error: 'must be an object of label names and values' },
  )
  .superRefine((tags, ctx) => {
    const names = Object.keys(tags);
    if (names.length > MAX_TAGS) ctx.addIssue({ code: 'custom', message: `must hold at most ${MAX_TAGS} tags` });
    for (const name of names) {
      if (!LABEL_NAME.test(name))
        ctx.addIssue({
          code: 'custom',
          path: [name],
          message: 'must be a label name (letters, digits, _; not starting with a digit)',
        });
      else if (name.startsWith('__') || RESERVED_LABELS.includes(name))
        ctx.addIssue({
          code: 'custom',
          path: [name],
          message: `must not start with __ or be one of ${RESERVED_LABELS.join(', ')}`,
        });
    }
  })
  .describe('Labels on every series an output sends (at most 10), e.g. {"env": "staging"}');

export type LoadOutput = z.output<typeof outputsSchema>[number];
export type RemoteWriteOutput = Extract<LoadOutput, { type: 'prometheus_remote_write' }>;
