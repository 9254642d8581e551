// A webhook's response rules: an ordered list of {match, response}; the first rule whose match holds
// for a capture answers it. Compiled once per change of the rules (the capture path keeps the
// compiled form with the webhook's owner); matching a capture parses only what some rule asks for:
// the query string and the JSON body at most once each. Every regular expression (the path globs'
// included) runs on RE2 (re2js): linear time whatever the pattern and the input, so no owner's rule
// can stall the capture path for everyone else.
import { isDeepStrictEqual } from 'node:util';
import { RE2JS } from 're2js';
import { getPointer, headOf, pointerTokens, type JsonValue } from './json-pointer.ts';
import { compileTemplate, MAX_PATTERN_INPUT, RuleRequest } from './webhook-templates.ts';

export { RuleRequest };

/** One test of a named value (a query parameter, a header): exactly one of the three is set. */
export interface ValueTest {
  equals?: string;
  /** true: the name is there (any value); false: it is not. */
  present?: boolean;
  /** RE2 syntax, unanchored (as JavaScript's `test`): `(?i)` for case-insensitive. */
  regex?: string;
}

/** A test of the body: at a JSON pointer (`equals`, `exists` or `regex`), or a `regex` over the text. */
export interface BodyTest {
  pointer?: string;
  equals?: JsonValue;
  exists?: boolean;
  regex?: string;
}

/** What a rule asks of a request; every test given must hold (an empty match holds for every request). */
export interface RuleMatch {
  /** Upper-case method names, any of which. */
  method?: string[];
  /** A glob over the path below the webhook URL: `*` within a segment, `**` across them, `?` one character. */
  path?: string;
  query?: Record<string, ValueTest>;
  /** Header names lower-case. */
  header?: Record<string, ValueTest>;
  body?: BodyTest;
}

/** What a rule answers (the same shape and limits as a webhook's single response). */
export interface RuleAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
  delay_ms: number;
}

export interface ResponseRule {
  match: RuleMatch;
  response: RuleAnswer;
}

export interface CompiledRules {
  /** The index of the first rule whose match holds, or -1. */
  pick(request: RuleRequest): number;
  /** Rule `index`'s answer to `request`. */
  answer(index: number, request: RuleRequest): RuleAnswer;
}

/** What a capture is answered when its webhook sets no answer and no rule holds. */
export const captureAcknowledgement = (webhookId: string) => ({
  success: true,
  message: 'Request captured',
  webhook_id: webhookId,
});

/**
 * RE2 runs in time linear in the input times the size of the pattern's program, so both are bounded:
 * a pattern's program (`a{999}` is a thousand steps a character), all the rules' programs together,
 * and the text a body's pattern reads (its first 64 KiB).
 */
export const MAX_PROGRAM = 200;
export const MAX_RULES_PROGRAM = 2_000;

/** Compiled patterns by their text, so that checking a pattern's size and running it compile it once. */
const COMPILED = new Map<string, RE2JS>();
const COMPILED_MAX = 1_000;

/** `pattern` compiled by RE2 (throws as RE2 does); kept only within MAX_PROGRAM (a refused one may be megabytes). */
function re2(pattern: string): RE2JS {
  let re = COMPILED.get(pattern);
  if (!re) {
    re = RE2JS.compile(pattern);
    if (re.programSize() <= MAX_PROGRAM) {
      if (COMPILED.size >= COMPILED_MAX) COMPILED.clear();
      COMPILED.set(pattern, re);
    }
  }
  return re;
}

/** The size of `pattern`'s RE2 program, however large, or why RE2 does not take it. */
export function programSize(pattern: string): number | string {
  try {
    return re2(pattern).programSize();
  } catch (err) {
    return `is not a regular expression RE2 accepts (${(err as Error).message})`;
  }
}

/** Whether a glob is run by RE2: one without wildcards, or with a trailing `**` only, is compared as text. */
function runsOnRe2(glob: string): boolean {
  const wild = glob.search(/[*?]/);
  return wild !== -1 && !(wild === glob.length - 2 && glob.endsWith('**'));
}

/** Why a path glob is too costly to run (its program as RE2 runs it past MAX_PROGRAM), or null. */
export function globProblem(glob: string): string | null {
  if (!runsOnRe2(glob)) return null;
  const size = programSize(globPattern(glob));
  return typeof size === 'number' && size > MAX_PROGRAM
    ? `is too costly a glob (a program of ${size} steps, at most ${MAX_PROGRAM}: shorter, or fewer wildcards)`
    : null;
}

/** Every pattern of a rule set, its path globs' as RE2 runs them included (what MAX_RULES_PROGRAM bounds together). */
export function rulePatterns(rules: readonly ResponseRule[]): string[] {
  const tests = (t: Record<string, ValueTest> | undefined) =>
    Object.values(t ?? {}).flatMap((v) => (v.regex === undefined ? [] : [v.regex]));
  return rules.flatMap(({ match }) => [
    ...(match.path !== undefined && runsOnRe2(match.path) ? [globPattern(match.path)] : []),
    ...tests(match.query),
    ...tests(match.header),
    ...(match.body?.regex === undefined ? [] : [match.body.regex]),
  ]);
}

/** Why `pattern` is not an RE2 expression this service runs, or null when it is one. */
export function regexProblem(pattern: string): string | null {
  const size = programSize(pattern);
  if (typeof size === 'string') return size;
  return size > MAX_PROGRAM
    ? `is too costly a regular expression (a program of ${size} steps, at most ${MAX_PROGRAM}: fewer or ` +
        'smaller repeats)'
    : null;
}

/** A test of the whole path against `glob`: text without wildcards (or but a trailing `**`) is a string comparison. */
function globTest(glob: string): Test {
  if (!runsOnRe2(glob)) {
    if (!/[*?]/.test(glob)) return (p) => p.path === glob;
    const prefix = glob.slice(0, -2);
    return (p) => p.path.startsWith(prefix);
  }
  const re = re2(globPattern(glob));
  return (p) => re.testExact(p.path);
}

/** A path glob as an RE2 expression matching the whole path. */
export function globPattern(glob: string): string {
  let out = '';
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i]!;
    if (c === '*' && glob[i + 1] === '*') {
      out += '.*';
      i++;
    } else if (c === '*') out += '[^/]*';
    else if (c === '?') out += '[^/]';
    else out += RE2JS.quote(c);
  }
  return out;
}

type Test = (request: RuleRequest) => boolean;

/** Regular expression characters: a pattern without them (but a leading ^, a trailing $) is text to find. */
const SPECIAL = /[\\.^$|?*+()[\]{}]/;

/**
 * A test of `pattern` (RE2, unanchored). A pattern that is plain text, anchored at either end or not,
 * is a string comparison (same answer, a twentieth of RE2's time: a rule's header test such as
 * `^application/json` runs on every capture); any other runs on RE2.
 */
export function patternTest(pattern: string): (text: string) => boolean {
  const start = pattern.startsWith('^');
  const end = pattern.endsWith('$') && !pattern.endsWith('\\$');
  const text = pattern.slice(start ? 1 : 0, end ? -1 : undefined);
  if (!SPECIAL.test(text)) {
    if (start && end) return (s) => s === text;
    if (start) return (s) => s.startsWith(text);
    if (end) return (s) => s.endsWith(text);
    return (s) => s.includes(text);
  }
  const re = re2(pattern);
  return (s) => re.test(s);
}

function valueTest(test: ValueTest): (value: string | undefined) => boolean {
  if (test.present !== undefined) return (v) => (v !== undefined) === test.present;
  if (test.regex !== undefined) {
    const holds = patternTest(test.regex);
    return (v) => v !== undefined && holds(v);
  }
  return (v) => v === test.equals;
}

function bodyTest(test: BodyTest): Test {
  const re = test.regex === undefined ? null : patternTest(test.regex);
  if (test.pointer === undefined) return (p) => p.text !== null && re!(p.textHead);
  const pointer = pointerTokens(test.pointer);
  const equals = test.equals;
  const same: (v: JsonValue) => boolean =
    equals === null || typeof equals !== 'object' ? (v) => v === equals : (v) => isDeepStrictEqual(v, equals);
  return (p) => {
    // A body that is not JSON passes no pointer test, `exists: false` included.
    if (!p.json) return false;
    const found = getPointer(p.json.value, pointer);
    if (test.exists !== undefined) return (found !== undefined) === test.exists;
    if (found === undefined) return false;
    if (!re) return same(found.value);
    // The first 64 Ki characters, and no more written: a value's JSON may be a megabyte, or nested past the stack.
    const v = found.value;
    return re(typeof v === 'string' ? headOf(v, MAX_PATTERN_INPUT) : p.patternHead(v));
  };
}

function matchTests(match: RuleMatch): Test[] {
  const tests: Test[] = [];
  if (match.method) {
    const methods = new Set(match.method);
    tests.push((p) => methods.has(p.method));
  }
  if (match.path !== undefined) {
    tests.push(globTest(match.path));
  }
  for (const [name, test] of Object.entries(match.query ?? {})) {
    const holds = valueTest(test);
    tests.push((p) => holds(p.query.get(name) ?? undefined));
  }
  for (const [name, test] of Object.entries(match.header ?? {})) {
    const holds = valueTest(test);
    tests.push((p) => holds(p.headers[name]));
  }
  if (match.body) tests.push(bodyTest(match.body));
  return tests;
}

/** A rule that cannot be compiled any more (rules are checked when set): it never holds. */
const NEVER: Test = () => false;

/** The rules, compiled when first picked from (compileRules), not before. */
export function compiledOnFirstUse(
  rules: readonly ResponseRule[],
  onBroken?: (index: number, err: unknown) => void,
): CompiledRules {
  let compiled: CompiledRules | undefined;
  const rulesNow = () => (compiled ??= compileRules(rules, onBroken));
  return { pick: (request) => rulesNow().pick(request), answer: (index, request) => rulesNow().answer(index, request) };
}

/**
 * The rules, compiled. Rules are checked when set; one stored that no longer compiles (an engine's
 * upgrade) is told to `onBroken` and never holds, so the webhook's other rules and its captures go on.
 */
export function compileRules(
  rules: readonly ResponseRule[],
  onBroken: (index: number, err: unknown) => void = () => {},
): CompiledRules {
  // Bounds as when set (a set stored before a bound was enforced is held to it here): a rule with a
  // pattern past MAX_PROGRAM, or past what is left of MAX_RULES_PROGRAM, never holds.
  let program = 0;
  const compiled = rules.map((rule, index) => {
    const isJson = Object.entries(rule.response.headers).some(
      ([k, v]) => k.toLowerCase() === 'content-type' && /\bjson\b|\+json\b/i.test(v),
    );
    try {
      for (const pattern of rulePatterns([rule])) {
        const size = programSize(pattern);
        if (typeof size === 'string') throw new Error(size);
        // A rule that never runs spends nothing of the set's budget.
        if (size > MAX_PROGRAM || program + size > MAX_RULES_PROGRAM)
          throw new Error(`past the rules' bounds (${MAX_PROGRAM} steps a pattern, ${MAX_RULES_PROGRAM} in all)`);
        program += size;
      }
      return { tests: matchTests(rule.match), body: compileTemplate(rule.response.body, isJson) };
    } catch (err) {
      onBroken(index, err);
      return { tests: [NEVER], body: { fill: () => '' } };
    }
  });
  return {
    pick(request) {
      // Plain loops: this runs for every capture of the webhook, each rule's tests until one fails.
      next: for (let i = 0; i < compiled.length; i++) {
        for (const test of compiled[i]!.tests) if (!test(request)) continue next;
        return i;
      }
      return -1;
    },
    answer(index, request) {
      const { body, ...rest } = rules[index]!.response;
      return { ...rest, body: compiled[index]!.body.fill(request) };
    },
  };
}
