// Response rules: which rule a request meets (every kind of test), the first of several, none; the
// answers filled from the request; RE2 keeping a pattern that backtracks in JavaScript linear.
import { describe, expect, it } from 'vitest';
import { RE2JS } from 're2js';
import { MAX_JSON_DEPTH } from '../../../../lib/webhooks/json-pointer.ts';
import {
  compileRules,
  globPattern,
  patternTest,
  regexProblem,
  RuleRequest,
  type ResponseRule,
} from '../../../../lib/webhooks/webhook-rules.ts';

const answer = (status: number, body = '', headers: Record<string, string> = {}) => ({
  status,
  headers,
  body,
  delay_ms: 0,
});
const request = (over: Partial<ConstructorParameters<typeof RuleRequest>[0]> = {}) =>
  new RuleRequest({ method: 'POST', path: '/', search: '', headers: {}, text: null, ...over });

describe('response rules', () => {
  const rules: ResponseRule[] = [
    { match: { body: { pointer: '/order/id', equals: 42 } }, response: answer(409, 'duplicate') },
    { match: { header: { authorization: { present: false } } }, response: answer(401) },
    { match: { method: ['GET'], path: '/orders/*/items' }, response: answer(200, 'items') },
    { match: { query: { page: { regex: '^[0-9]+$' } } }, response: answer(206) },
    { match: { body: { regex: '(?i)refund' } }, response: answer(202) },
    {
      match: { header: { 'x-env': { equals: 'test' } }, body: { pointer: '/tags/1', exists: true } },
      response: answer(204),
    },
  ];
  const compiled = compileRules(rules);
  const auth = { authorization: 'Bearer t' };

  it('picks the first rule whose every test holds', () => {
    expect(compiled.pick(request({ text: '{"order":{"id":42}}', headers: auth }))).toBe(0);
    // Not equal (a string is not the number), so the next rule that holds: no authorization.
    expect(compiled.pick(request({ text: '{"order":{"id":"42"}}' }))).toBe(1);
    expect(compiled.pick(request({ method: 'get', path: '/orders/7/items', headers: auth }))).toBe(2);
    // * stays within a segment; POST is not GET.
    expect(compiled.pick(request({ method: 'GET', path: '/orders/7/x/items', headers: auth }))).toBe(-1);
    expect(compiled.pick(request({ method: 'POST', path: '/orders/7/items', headers: auth }))).toBe(-1);
    expect(compiled.pick(request({ search: 'page=12', headers: auth }))).toBe(3);
    expect(compiled.pick(request({ search: 'page=12a', headers: auth }))).toBe(-1);
    expect(compiled.pick(request({ text: 'please REFUND this', headers: auth }))).toBe(4);
    expect(compiled.pick(request({ text: '{"tags":["a","b"]}', headers: { ...auth, 'x-env': 'test' } }))).toBe(5);
    expect(compiled.pick(request({ text: '{"tags":["a"]}', headers: { ...auth, 'x-env': 'test' } }))).toBe(-1);
    // A body that is not JSON meets no pointer test, and a binary one (null text) no regex either.
    expect(compiled.pick(request({ text: '{"order":', headers: auth }))).toBe(-1);
    expect(compiled.pick(request({ text: null, headers: auth }))).toBe(-1);
  });

  it('a body that is not JSON passes no pointer test, exists: false included', () => {
    const r = compileRules([{ match: { body: { pointer: '/id', exists: false } }, response: answer(200) }]);
    expect(r.pick(request({ text: '{"other":1}' }))).toBe(0);
    expect(r.pick(request({ text: 'id=1' }))).toBe(-1);
    expect(r.pick(request({ text: null }))).toBe(-1);
  });

  it('reads the first 64 Ki characters of a JSON value for a pattern, and no JSON nested past the bound', () => {
    // 50 rules over a value whose JSON is a megabyte: each pattern reads its first 64 Ki characters.
    const body = JSON.stringify({ v: { a: 'x'.repeat(65_530), b: 'tail', pad: 'y'.repeat(1_000_000) } });
    const head = compileRules([
      ...Array.from({ length: 49 }, () => ({
        match: { body: { pointer: '/v', regex: 'tail' } },
        response: answer(500),
      })),
      { match: { body: { pointer: '/v', regex: '^\\{"a":"x+$' } }, response: answer(200) },
    ]);
    expect(head.pick(request({ text: body }))).toBe(49);
    const nested = (depth: number) => `{"v":${'['.repeat(depth - 1)}${']'.repeat(depth - 1)}}`;
    const exists = compileRules([{ match: { body: { pointer: '/v', exists: true } }, response: answer(200) }]);
    expect(exists.pick(request({ text: nested(MAX_JSON_DEPTH) }))).toBe(0);
    expect(exists.pick(request({ text: nested(MAX_JSON_DEPTH + 1) }))).toBe(-1);
  });

  it("never throws on a sender's data, and a stored rule that no longer compiles never holds", () => {
    const deep = `{"v":${'['.repeat(20_000)}${']'.repeat(20_000)}}`;
    const r = compileRules([
      { match: { body: { pointer: '/v', regex: 'x' } }, response: answer(200, '{{request.body./v}}') },
      { match: {}, response: answer(201, '{{request.body./v}}') },
    ]);
    expect(r.pick(request({ text: deep }))).toBe(1);
    expect(r.answer(1, request({ text: deep })).body).toBeTypeOf('string');
    const broken: unknown[] = [];
    const stored = compileRules(
      [
        { match: { body: { regex: 'a(b' } }, response: answer(500) },
        { match: {}, response: answer(202) },
      ],
      (i) => broken.push(i),
    );
    expect(broken).toEqual([0]);
    expect(stored.pick(request({ text: 'ab' }))).toBe(1);
  });

  it('bounds what a pattern costs: its program, and the body text it reads', () => {
    expect(regexProblem('a[^\\n]{999}z')).toMatch(
      /^is too costly a regular expression \(a program of \d+ steps, at most 200/,
    );
    expect(regexProblem('a{50}')).toBeNull();
    const r = compileRules([{ match: { body: { regex: 'needle' } }, response: answer(200) }]);
    expect(r.pick(request({ text: `${'x'.repeat(70_000)}needle` }))).toBe(-1);
    expect(r.pick(request({ text: `${'x'.repeat(60_000)}needle` }))).toBe(0);
  });

  it('holds a rule set stored before a bound to it: a rule past it never matches, and is told', () => {
    const broken: number[] = [];
    const glob = `/${'*a'.repeat(50)}`; // 153 steps: 13 of them pass 2,000 together
    const stored = compileRules(
      [
        { match: { body: { regex: 'a[^\\n]{999}z' } }, response: answer(500) },
        ...Array.from({ length: 14 }, () => ({ match: { path: glob }, response: answer(201) })),
        { match: {}, response: answer(202) },
      ],
      (i) => broken.push(i),
    );
    expect(broken).toEqual([0, 14]);
    expect(stored.pick(request({ text: `a${'b'.repeat(999)}z`, path: `/${'xa'.repeat(50)}` }))).toBe(1);
    expect(stored.pick(request({ text: 'ab' }))).toBe(15);
  });

  it('an empty match holds for every request; no rules pick none', () => {
    expect(compileRules([{ match: {}, response: answer(418) }]).pick(request())).toBe(0);
    expect(compileRules([]).pick(request())).toBe(-1);
  });

  it('a body test compares any JSON value, and tests a value that is not a string as its JSON', () => {
    const r = compileRules([
      { match: { body: { pointer: '/items', equals: [{ sku: 'a', n: 1 }] } }, response: answer(200) },
      { match: { body: { pointer: '/n', regex: '^1[0-9]$' } }, response: answer(201) },
      { match: { body: { pointer: '/a~1b', exists: true } }, response: answer(202) },
    ]);
    expect(r.pick(request({ text: '{"items":[{"n":1,"sku":"a"}]}' }))).toBe(0);
    expect(r.pick(request({ text: '{"n":15}' }))).toBe(1);
    expect(r.pick(request({ text: '{"a/b":null}' }))).toBe(2);
  });

  it('fills placeholders from the request, JSON-escaped in a JSON answer', () => {
    const r = compileRules([
      {
        match: {},
        response: answer(
          201,
          '{"id":"{{request.body./order/id}}","note":"{{ request.body./note ' +
            '}}","n":{{request.body./n}},"q":"{{request.query.q}}","who":"{{request.header.X-User}}","m":"{' +
            '{request.method}}","p":"{{request.path}}","none":"{{request.body./missing}}"}',
          { 'Content-Type': 'application/json' },
        ),
      },
    ]);
    const req = request({
      path: '/orders',
      search: 'q=a%20b',
      headers: { 'x-user': 'ann' },
      text: '{"order":{"id":"o-1"},"note":"say \\"hi\\"\\n","n":3}',
    });
    const filled = r.answer(r.pick(req), req);
    expect(JSON.parse(filled.body)).toEqual({
      id: 'o-1',
      note: 'say "hi"\n',
      n: 3,
      q: 'a b',
      who: 'ann',
      m: 'POST',
      p: '/orders',
      none: '',
    });
    expect(filled.status).toBe(201);
  });

  it('fills text answers as they are, and {{uuid}} and {{now}} anew each time', () => {
    const r = compileRules([{ match: {}, response: answer(200, '{{request.body}}|{{uuid}}|{{now}}') }]);
    const one = r.answer(0, request({ text: 'a"b' })).body.split('|');
    const two = r.answer(0, request({ text: 'a"b' })).body.split('|');
    expect(one[0]).toBe('a"b');
    expect(one[1]).toMatch(/^[0-9a-f-]{36}$/);
    expect(one[1]).not.toBe(two[1]);
    expect(new Date(one[2]!).getTime()).toBeGreaterThan(Date.now() - 60_000);
  });

  it('globs: * within a segment, ** across, ? one character, the rest literal', () => {
    const matches = (glob: string, path: string) =>
      compileRules([{ match: { path: glob }, response: answer(200) }]).pick(request({ path })) === 0;
    expect(matches('/a/**', '/a/b/c')).toBe(true);
    expect(matches('/a/*', '/a/b/c')).toBe(false);
    expect(matches('/v?/x', '/v2/x')).toBe(true);
    expect(matches('/v?/x', '/v22/x')).toBe(false);
    expect(matches('/a.b(c)', '/a.b(c)')).toBe(true);
    expect(matches('/a.b', '/aXb')).toBe(false);
    expect(globPattern('/a/*')).toBe('/a/[^/]*');
  });

  it('answers as RE2 does where a pattern is plain text and runs as a string comparison', () => {
    const inputs = [
      'application/json',
      'application/json; charset=utf-8',
      'text/application/json',
      'APPLICATION/JSON',
      '',
      'a$b',
      'x.y',
    ];
    for (const pattern of [
      '^application/json',
      'application/json$',
      '^application/json$',
      'application/json',
      'a\\$b',
      'x.y',
      '^$',
      '(?i)^application/json',
    ]) {
      const re = RE2JS.compile(pattern);
      for (const input of inputs) expect(patternTest(pattern)(input), `${pattern} on ${input}`).toBe(re.test(input));
    }
    const glob = (g: string, path: string) =>
      compileRules([{ match: { path: g }, response: answer(200) }]).pick(request({ path })) === 0;
    expect([
      glob('/a/**', '/a/b/c'),
      glob('/a/**', '/a'),
      glob('/a/**', '/a/'),
      glob('/exact', '/exact'),
      glob('/exact', '/exact/'),
    ]).toEqual([true, false, true, true, false]);
  });

  it('runs a pattern that backtracks exponentially in JavaScript in linear time', () => {
    const r = compileRules([{ match: { body: { regex: '^(a|a)*$' } }, response: answer(200) }]);
    const text = `${'a'.repeat(50_000)}!`;
    expect(r.pick(request({ text }))).toBe(-1);
    expect(regexProblem('(?<=a)b')).toMatch(/RE2/);
    expect(regexProblem('a(b')).toMatch(/RE2/);
    expect(regexProblem('(?i)ok')).toBeNull();
  });
});
