// JSON Schema checks of bodies: errors by JSON Pointer (a missing property named where it belongs),
// the first failure only (each failing branch of it said once), at most 20; what is not JSON; schemas refused (not a
// schema, too big, too deep, a remote $ref, a
// pattern RE2 does not take); patterns on RE2 (linear time); keywords of other tools ignored.
import { describe, expect, it } from 'vitest';
import { checkBody, compileSchema, MAX_SCHEMA_ERRORS } from '../../../../lib/json-schema/json-schema-check.ts';

const compiled = (schema: unknown) => {
  const v = compileSchema(schema);
  if (typeof v === 'string') throw new Error(v);
  return v;
};

describe('JSON Schema checks', () => {
  const order = compiled({
    type: 'object',
    required: ['id', 'order'],
    properties: {
      id: { type: 'string', pattern: '^evt_' },
      order: { type: 'object', required: ['total'], properties: { total: { type: 'number', minimum: 0 } } },
      email: { type: 'string', format: 'email' },
    },
    example: { id: 'evt_1' },
    'x-owner': 'billing',
  });

  it('says what is wrong and where, by JSON Pointer', () => {
    expect(checkBody(order, '{"id":"evt_1","order":{"total":3}}', 'utf8')).toEqual({ valid: true, errors: [] });
    // The first failure (no error object for every failure of a large body: a check stops there).
    expect(checkBody(order, '{"id":"x","order":{"total":-1},"email":"nope"}', 'utf8')).toEqual({
      valid: false,
      errors: [{ path: '/id', message: 'must match pattern "^evt_"' }],
    });
    expect(checkBody(order, '{"id":"evt_1","order":{"total":-1}}', 'utf8').errors).toEqual([
      { path: '/order/total', message: 'must be >= 0' },
    ]);
    // format is an annotation (draft 2020-12's default): no format's own expression runs.
    expect(checkBody(order, '{"id":"evt_1","order":{"total":3},"email":"nope"}', 'utf8').valid).toBe(true);
    expect(checkBody(order, '{"order":{"total":"3"}}', 'utf8').errors).toEqual([
      { path: '/id', message: 'is required' },
    ]);
    expect(checkBody(order, '{"id":"evt_1","order":{"total":"3"}}', 'utf8').errors).toEqual([
      { path: '/order/total', message: 'must be number' },
    ]);
  });

  it('fails a body that is not JSON, is binary or is missing, saying so', () => {
    expect(checkBody(order, 'id=1', 'utf8').errors[0]!.message).toMatch(/^is not JSON/);
    expect(checkBody(order, 'AAEC', 'base64').errors).toEqual([
      { path: '', message: 'is not JSON: the body is binary' },
    ]);
    expect(checkBody(order, null, 'utf8').errors).toEqual([
      { path: '', message: 'is missing: the request had no body' },
    ]);
  });

  it(
    `stops at the first failing item, says each failing branch once, and keeps at most ${MAX_SCHEMA_ERRORS} ` +
      `errors`,
    () => {
      const strings = compiled({ type: 'array', items: { type: 'string' } });
      expect(checkBody(strings, JSON.stringify(Array.from({ length: 20_000 }, (_, i) => i)), 'utf8')).toEqual({
        valid: false,
        errors: [{ path: '/0', message: 'must be string' }],
      });
      // The schema: 600 branches that each fail alike, over 20,000 items: one failure, said once.
      const anyOf = compiled({
        type: 'array',
        items: { anyOf: Array.from({ length: 600 }, (_, i) => ({ const: `v${i}` })) },
      });
      expect(checkBody(anyOf, JSON.stringify(Array.from({ length: 20_000 }, () => 1)), 'utf8').errors).toEqual([
        { path: '/0', message: 'must be equal to constant' },
        { path: '/0', message: 'must match a schema in anyOf' },
      ]);
      // Branches that fail each in its own words: the first 20.
      const minimums = compiled({ anyOf: Array.from({ length: 30 }, (_, i) => ({ minimum: i + 1 })) });
      const verdict = checkBody(minimums, '0', 'utf8');
      expect(verdict.errors).toHaveLength(MAX_SCHEMA_ERRORS);
      expect(verdict.errors[19]).toEqual({ path: '', message: 'must be >= 20' });
    },
  );

  it('refuses what it cannot check with, saying why', () => {
    expect(compileSchema([])).toBe('must be a JSON Schema object');
    expect(compileSchema({ type: 'strin' })).toMatch(
      /^is not a JSON Schema this service can check with \(schema is invalid/,
    );
    expect(compileSchema({ $ref: 'https://example.com/order.json' })).toMatch(/can't resolve reference/);
    expect(compileSchema({ properties: { a: { pattern: '(?<=a)b' } } })).toMatch(
      /is not a JSON Schema this service can check with/,
    );
    expect(compileSchema({ description: 'x'.repeat(64 * 1024) })).toBe('must be at most 64 KiB as JSON');
    let deep: Record<string, unknown> = { type: 'string' };
    for (let i = 0; i < 40; i++) deep = { items: deep };
    expect(compileSchema(deep)).toBe('must nest at most 32 levels deep');
    expect(compileSchema({ properties: { tags: { type: 'array', uniqueItems: true } } })).toMatch(
      /^must give uniqueItems a maxItems of at most 1000 \(at \/properties\/tags\)/,
    );
    expect(typeof compileSchema({ type: 'array', uniqueItems: true, maxItems: 100 })).toBe('function');
  });

  it('runs patterns on RE2: one that backtracks exponentially in JavaScript stays linear', () => {
    const v = compiled({ type: 'string', pattern: '^(a|a)*$' });
    expect(checkBody(v, JSON.stringify(`${'a'.repeat(50_000)}!`), 'utf8').valid).toBe(false);
    expect(checkBody(v, JSON.stringify('aaaa'), 'utf8').valid).toBe(true);
    // A recursive schema over a body nested deeper than the stack: a verdict, not a throw.
    const tree = compiled({
      $defs: { node: { type: 'array', items: { $ref: '#/$defs/node' } } },
      $ref: '#/$defs/node',
    });
    const deepBody = `${'['.repeat(200_000)}${']'.repeat(200_000)}`;
    let parsedDeep = true;
    try {
      JSON.parse(deepBody);
    } catch {
      parsedDeep = false;
    }
    if (parsedDeep)
      expect(checkBody(tree, deepBody, 'utf8')).toEqual({
        valid: false,
        errors: [{ path: '', message: 'could not be checked: the body is nested too deeply' }],
      });
    // Two schemas of the same $id do not clash.
    expect(typeof compileSchema({ $id: 'https://x.test/s', type: 'string' })).toBe('function');
    expect(typeof compileSchema({ $id: 'https://x.test/s', type: 'number' })).toBe('function');
  });
});
