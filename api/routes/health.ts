import Router from '@koa/router';
import { sql } from 'kysely';
import type { ApiDeps } from '../deps.ts';

const CHECK_TIMEOUT_MS = 3000;

/** `/healthz`: the process answers. `/readyz`: database, key-value store, blob store and Temporal answer. */
export function healthRoutes({ db, kv, blobs, temporal, logger }: ApiDeps): Router {
  const router = new Router();
  router.get('/healthz', (ctx) => {
    ctx.body = { success: true, status: 'ok' };
  });
  router.get('/readyz', async (ctx) => {
    const checks = {
      database: () => sql`select 1`.execute(db),
      store: () => kv.ping(),
      blobs: () => blobs.ping(),
      temporal: () => temporal.workflowService.getSystemInfo({}),
    };
    const results = Object.fromEntries(
      await Promise.all(
        Object.entries(checks).map(async ([name, check]) => [name, await outcome(name, check, logger)] as const),
      ),
    );
    const ready = Object.values(results).every((r) => r === 'ok');
    ctx.status = ready ? 200 : 503;
    ctx.body = { success: ready, status: ready ? 'ready' : 'not ready', checks: results };
  });
  return router;
}

/** 'ok', 'timeout' or 'error': the details name hosts and users, so they go to the log, not to anyone asking. */
async function outcome(
  name: string,
  check: () => Promise<unknown>,
  logger: ApiDeps['logger'],
): Promise<'ok' | 'timeout' | 'error'> {
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      check(),
      new Promise((_, reject) => (timer = setTimeout(() => reject(new TimeoutError()), CHECK_TIMEOUT_MS))),
    ]);
    return 'ok';
  } catch (err) {
    logger.warn({ err, check: name }, 'readiness check failed');
    return err instanceof TimeoutError ? 'timeout' : 'error';
  } finally {
    clearTimeout(timer);
  }
}

class TimeoutError extends Error {
  constructor() {
    super(`no answer within ${CHECK_TIMEOUT_MS} ms`);
  }
}
