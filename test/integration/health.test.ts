import { describe, expect, it } from 'vitest';
import { call, targets } from '../support/client.ts';

describe.each(targets())('health ($name)', (target) => {
  it('/healthz answers without a key', async () => {
    const reply = await call(target, 'GET', '/healthz');
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({ success: true, status: 'ok' });
  });

  it('/readyz reports database, store, blobs and Temporal', async () => {
    const reply = await call(target, 'GET', '/readyz');
    expect(reply.status).toBe(200);
    expect(reply.body.checks).toEqual({ database: 'ok', store: 'ok', blobs: 'ok', temporal: 'ok' });
  });
});
