// A webhook's response rules as request bodies give them (lib/webhooks/webhook-rules.ts matches them). The
// short forms are taken and stored in full: a method as a string is a list of one, a query or header
// test as a string is `{equals}`, as true or false `{present}`; header names lower-case.
import { z } from 'zod';
import { pointerProblem } from '../../lib/webhooks/json-pointer.ts';
import type { ResponseRule, ValueTest } from '../../lib/webhooks/webhook-rules.ts';
import {
  globProblem,
  MAX_RULES_PROGRAM,
  programSize,
  regexProblem,
  rulePatterns,
} from '../../lib/webhooks/webhook-rules.ts';
import { templateProblem } from '../../lib/webhooks/webhook-templates.ts';
import { HEADER_NAME } from '../http-fields.ts';
import { responseSchema } from './webhook-settings.ts';

export const MAX_RULES = 50;
const METHOD = /^[A-Za-z]{1,20}$/;

const regex = z
  .string({ error: 'must be a string' })
  .min(1, 'must not be empty')
  .max(500, 'must be at most 500 characters')
  .superRefine((p, ctx) => {
    const problem = regexProblem(p);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  });

const valueTest = z.union(
  [
    z
      .string()
      .max(1024, 'must be at most 1024 characters')
      .transform((equals): ValueTest => ({ equals })),
    z.boolean().transform((present): ValueTest => ({ present })),
    z
      .object({
        equals: z.string({ error: 'must be a string' }).max(1024, 'must be at most 1024 characters').optional(),
        present: z.boolean({ error: 'must be true or false' }).optional(),
        regex: regex.optional(),
      })
      .strict()
      .refine(
        (t) => Object.values(t).filter((v) => v !== undefined).length === 1,
        'must give one of equals, present, regex',
      ),
  ],
  { error: 'must be a value (equals), true or false (present or not), or one of {equals}, {present}, {regex}' },
);

/** Named value tests: at most 20, names as given (query) or lower-case (`lower`: headers). */
const valueTests = (name: z.ZodString, lower: boolean) =>
  z
    .record(name, valueTest, { error: 'must be an object of name: test' })
    .refine((t) => Object.keys(t).length <= 20, 'must hold at most 20 names')
    .refine(
      (t) => !lower || new Set(Object.keys(t).map((k) => k.toLowerCase())).size === Object.keys(t).length,
      'must name each header once (names are the same in any case)',
    )
    .transform((t) => (lower ? Object.fromEntries(Object.entries(t).map(([k, v]) => [k.toLowerCase(), v])) : t));

const bodyTest = z
  .object(
    {
      pointer: z
        .string({ error: 'must be a string' })
        .max(500, 'must be at most 500 characters')
        .superRefine((p, ctx) => {
          const problem = pointerProblem(p);
          if (problem) ctx.addIssue({ code: 'custom', message: problem });
        })
        .optional(),
      equals: z.json({ error: 'must be a JSON value' }).optional(),
      exists: z.boolean({ error: 'must be true or false' }).optional(),
      regex: regex.optional(),
    },
    { error: 'must be an object {pointer, equals | exists | regex}, or {regex} over the text' },
  )
  .strict()
  .superRefine((t, ctx) => {
    const given = (['equals', 'exists', 'regex'] as const).filter((k) => t[k] !== undefined);
    if (given.length !== 1)
      ctx.addIssue({ code: 'custom', message: 'must give one of equals, exists, regex', path: [] });
    else if (t.pointer === undefined && given[0] !== 'regex')
      ctx.addIssue({ code: 'custom', message: `needs a pointer to the value it tests`, path: [given[0]!] });
  });

const matchSchema = z
  .object(
    {
      method: z
        .union(
          [
            z.string(),
            z.array(z.string()).min(1, 'must name at least one method').max(10, 'must name at most 10 methods'),
          ],
          {
            error: 'must be a method or a list of methods',
          },
        )
        .transform((m) => (Array.isArray(m) ? m : [m]))
        .refine((m) => m.every((x) => METHOD.test(x)), 'must be method names such as POST')
        .transform((m) => [...new Set(m.map((x) => x.toUpperCase()))])
        .optional(),
      path: z
        .string({ error: 'must be a string' })
        .max(500, 'must be at most 500 characters')
        .regex(
          /^\//,
          'must be a glob starting with "/" (the path below the webhook URL; * within a segment, ** across)',
        )
        .superRefine((glob, ctx) => {
          const problem = globProblem(glob);
          if (problem) ctx.addIssue({ code: 'custom', message: problem });
        })
        .optional(),
      query: valueTests(
        z.string().min(1, 'must be names').max(100, 'must be names of at most 100 characters'),
        false,
      ).optional(),
      header: valueTests(
        z.string().regex(HEADER_NAME, 'must be header names').max(100, 'must be header names'),
        true,
      ).optional(),
      body: bodyTest.optional(),
    },
    { error: 'must be an object of any of method, path, query, header, body ({} matches every request)' },
  )
  .strict();

const ruleSchema = z
  .object(
    {
      match: matchSchema,
      response: responseSchema.superRefine((r, ctx) => {
        const problem = templateProblem(r.body);
        if (problem) ctx.addIssue({ code: 'custom', message: problem, path: ['body'] });
      }),
    },
    { error: 'must be an object {match, response}' },
  )
  .strict();

/** A request tried against a webhook's rules (the dashboard's box): what a sender would send. */
export const ruleTryBody = z
  .object({
    method: z.string({ error: 'must be a string' }).regex(METHOD, 'must be a method name such as POST'),
    path: z
      .string({ error: 'must be a string' })
      .max(2000, 'must be at most 2000 characters')
      .regex(/^\//, 'must start with "/" (the path below the capture URL, with its query)'),
    headers: z
      .record(
        z.string().regex(HEADER_NAME, 'must be header names'),
        z.string().max(8192, 'must be at most 8192 characters'),
      )
      .refine((h) => Object.keys(h).length <= 100, 'must hold at most 100 headers'),
    body: z
      .string({ error: 'must be a string' })
      .refine((b) => Buffer.byteLength(b) <= 1024 * 1024, 'must be at most 1 MiB'),
  })
  .strict();

/** The ordered rules; the first whose match holds answers. */
export const rulesSchema = z
  .array(ruleSchema, { error: `must be a list of at most ${MAX_RULES} rules {match, response}, or null for none` })
  .max(MAX_RULES, `must hold at most ${MAX_RULES} rules`)
  .superRefine((rules, ctx) => {
    // Each at its full size: one refused on its own still counts (its field says why).
    const total = rulePatterns(rules).reduce((sum, p) => {
      const size = programSize(p);
      return sum + (typeof size === 'number' ? size : 0);
    }, 0);
    if (total > MAX_RULES_PROGRAM)
      ctx.addIssue({
        code: 'custom',
        message:
          'hold regular expressions and globs too costly together ' +
          `(programs of ${total} steps, at most ${MAX_RULES_PROGRAM}: every capture runs them)`,
      });
  }) satisfies z.ZodType<ResponseRule[], unknown>;
