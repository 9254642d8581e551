// Every operation declares the parameters of its path, by the names the path gives them: serve()
// validates exactly those, and the OpenAPI document describes them from the same schema.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { OPERATIONS } from '../../../contract/index.ts';
import { accepted, created, get, ok, type Operation, operations, post } from '../../../contract/operation.ts';

describe('path parameters', () => {
  it('are declared for every {name} of a path, and none is declared that the path lacks', () => {
    const mismatched = OPERATIONS.map((op) => ({
      op: `${op.method} ${op.path}`,
      inPath: [...op.path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]).sort(),
      declared: Object.keys(op.params?.shape ?? {}).sort(),
    })).filter(({ inPath, declared }) => inPath.join() !== declared.join());
    expect(mismatched).toEqual([]);
    expect(OPERATIONS.filter((op) => op.params).length).toBeGreaterThanOrEqual(8);
  });

  it('are read from the path: a name contract/input-fields.ts does not know is refused where it is declared', () => {
    const declare = (path: string): { one: Operation } =>
      operations('Tests', { one: get(path, { summary: 's', success: ok(null, 'd'), errors: [] }) } as never) as never;
    expect(() => declare('/tests/{test}')).toThrow('/tests/{test}: {test} is not a path parameter');
    expect(Object.keys(declare('/tests/{test_id}/jobs/{job_id}').one.params?.shape ?? {})).toEqual([
      'test_id',
      'job_id',
    ]);
    expect(declare('/tests').one.params).toBeUndefined();
  });

  it('a path naming a parameter the contract does not know does not type-check either', () => {
    const success = ok(null, 'd');
    expect(() =>
      operations('Tests', {
        // @ts-expect-error {test} is not a name of PATH_PARAMS (the typecheck fails if this is accepted)
        one: get('/tests/{test}', { summary: 's', success, errors: [] }),
      }),
    ).toThrow('{test} is not a path parameter');
    expect(() =>
      operations('Tests', {
        // @ts-expect-error as above, declared with post()
        one: post('/tests/{test_id}/{job}', { summary: 's', success, errors: [] }),
      }),
    ).toThrow('{job} is not a path parameter');
  });

  it('get() and post() give the method and path, ok(), created() and accepted() the success status', () => {
    const made = z.strictObject({ id: z.string() });
    const { one, two } = operations('Tests', {
      one: get('/tests/{test_id}', { summary: 's', success: ok(null, 'a stream'), errors: [404] }),
      two: post('/tests', { summary: 's', success: created(made, 'made'), errors: [] }),
    });
    expect(one).toMatchObject({ method: 'get', path: '/tests/{test_id}', tag: 'Tests', errors: [404] });
    expect(one.success).toEqual({ status: 200, schema: null, description: 'a stream' });
    expect(two).toMatchObject({ method: 'post', path: '/tests', success: { status: 201, description: 'made' } });
    expect(two.success.schema).toBe(made);
    expect(accepted(made, 'queued').status).toBe(202);
  });

  it('each is required, and refuses a value that cannot be an id', () => {
    for (const { path, params } of OPERATIONS.flatMap((op) =>
      op.params ? [{ path: op.path, params: op.params }] : [],
    )) {
      const names = Object.keys(params.shape);
      const all = Object.fromEntries(names.map((n) => [n, 'Ab3-_x9QzL0pR7sT']));
      expect(params.safeParse(all).success, path).toBe(true);
      for (const name of names) {
        expect(params.safeParse({ ...all, [name]: undefined }).success, `${path} without ${name}`).toBe(false);
        expect(params.safeParse({ ...all, [name]: 'no such id' }).success, `${path} ${name}`).toBe(false);
      }
    }
  });
});
