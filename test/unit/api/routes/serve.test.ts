// serve() validates an operation's path parameters before its handler runs, as it does its query and
// body: a value that cannot be an id is a 400 naming the parameter; one that can reaches the handler,
// whose lookup answers 404 when no such thing is the caller's.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import Koa from 'koa';
import Router from '@koa/router';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadTestOperations } from '../../../../contract/load/load-tests.ts';
import { errorHandler } from '../../../../api/middleware/errors.ts';
import { serve, type V1Router } from '../../../../api/routes/serve.ts';
import { NotFoundError } from '../../../../lib/errors.ts';

describe('serve: path parameters', () => {
  let server: http.Server;
  let base: string;
  const looked: string[] = [];
  beforeAll(async () => {
    const router: V1Router = new Router();
    serve(router, loadTestOperations.results, async (_ctx, { params }) => {
      looked.push(params.test_id);
      throw new NotFoundError(`No load test ${params.test_id} among yours`);
    });
    const app = new Koa();
    app.use(errorHandler({ error() {}, warn() {}, info() {}, debug() {} } as never));
    app.use(router.routes());
    server = http.createServer(app.callback());
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  const get = async (path: string) => {
    const res = await fetch(`${base}${path}`);
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };

  it('answers 400 naming test_id for a value that cannot be a test id, without running the handler', async () => {
    for (const id of ['not%20an%20id', 'x'.repeat(65), 'caf%C3%A9']) {
      expect(await get(`/load-testing/results/${id}`), id).toEqual({
        status: 400,
        body: {
          success: false,
          error: 'Bad Request',
          code: 400,
          error_code: 'invalid_input',
          message: 'test_id: is not a load test id (up to 64 letters, digits, - and _) (path)',
        },
      });
    }
    expect(looked).toEqual([]);
  });

  it('hands a well-formed id to the handler, whose 404 stands', async () => {
    looked.length = 0;
    const reply = await get('/load-testing/results/no-such-test_1');
    expect(reply.status).toBe(404);
    expect(reply.body).toMatchObject({ error_code: 'not_found', message: 'No load test no-such-test_1 among yours' });
    expect(looked).toEqual(['no-such-test_1']);
  });
});
