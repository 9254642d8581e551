// Serves one declared operation (contract/operation.ts) on a router: its method and path, and its
// path parameters, query, headers and body validated before the handler runs (a 400 that names the
// field otherwise).
import type Router from '@koa/router';
import type { RouterContext } from '@koa/router';
import type { Operation, OperationInput } from '../../contract/operation.ts';
import type { AuthState } from '../middleware/auth.ts';
import { refuseUnknownParameters, validate } from '../../contract/validate.ts';

export type V1Router = Router<AuthState>;
type V1Context = RouterContext<AuthState>;

/** The Koa path of an OpenAPI path template (`/status/{test_id}` is `/status/:test_id`). */
const routerPath = (path: string) => path.replace(/\{([a-z_]+)\}/g, ':$1');

export function serve<O extends Operation>(
  router: V1Router,
  op: O,
  handler: (ctx: V1Context, input: OperationInput<O>) => Promise<unknown>,
): void {
  router[op.method](routerPath(op.path), async (ctx) => {
    if (!op.query) refuseUnknownParameters(ctx.query, []);
    const input = {
      params: op.params ? validate(op.params, ctx.params, 'path') : undefined,
      query: op.query ? validate(op.query, ctx.query, 'query') : undefined,
      headers: op.headers ? validate(op.headers, ctx.headers, 'header') : undefined,
      body: op.body ? validate(op.body, ctx.request.body, 'body') : undefined,
    } as OperationInput<O>;
    const answer = await handler(ctx, input);
    // A stream (no answer schema) is answered by its handler; every other answer is the JSON body.
    if (op.success.schema === null) return;
    if (answer === undefined) throw new Error(`the handler of ${op.method} ${op.path} answered nothing`);
    ctx.status = op.success.status;
    ctx.body = answer;
  });
}
