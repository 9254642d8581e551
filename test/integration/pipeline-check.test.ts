import { Client, Connection } from '@temporalio/client';
import { ENCRYPTED_ENCODING, encryptingDataConverter, loadPayloadKey } from '../../lib/temporal/codec.ts';
import { afterAll, describe, expect, it } from 'vitest';
import { call, expectErrorShape, newAccount, targets } from '../support/client.ts';

describe.each(targets())('pipeline check, the job template ($name)', (target) => {
  const connecting = Connection.connect({ address: target.temporalAddress });
  afterAll(async () => (await connecting).close());

  it(
    'is started by the API, runs on the workflows pool, ' + 'reaches every activity pool and is read back by query',
    async () => {
      const { key, userId } = await newAccount(target);
      const started = await call(target, 'POST', '/api/v1/diagnostics/pipeline-checks', { key });
      expect(started.status).toBe(202);
      expect(started.body).toMatchObject({ success: true, status: 'running' });
      const checkId: string = started.body.check_id;

      let state: any;
      for (let i = 0; i < 100; i++) {
        state = (await call(target, 'GET', `/api/v1/diagnostics/pipeline-checks/${checkId}`, { key })).body;
        if (state.status !== 'running') break;
        await new Promise((r) => setTimeout(r, 100));
      }
      expect(state.status).toBe('completed');
      for (const pool of ['network', 'load', 'media']) {
        expect(state.pools[pool].status, pool).toBe('ok');
        expect(state.pools[pool].worker.pid).toBe(target.pid);
      }
      expect(Date.parse(state.completed_at)).toBeGreaterThanOrEqual(Date.parse(state.started_at));

      // What an operator sees in Temporal: the public id with the kind prefix, the workflows task queue, the owner.
      const dataConverter = encryptingDataConverter(await loadPayloadKey(target.env.PAYLOAD_KEY, target.env.DATA_DIR!));
      const client = new Client({
        connection: await connecting,
        namespace: target.env.TEMPORAL_NAMESPACE ?? 'default',
        dataConverter,
      });
      const description = await client.workflow.getHandle(`pipeline-check-${checkId}`).describe();
      expect(description.taskQueue).toBe('workflows');
      expect(description.type).toBe('pipelineCheck');
      expect(description.status.name).toBe('COMPLETED');
      expect(description.memo).toEqual({
        owner: userId,
        kind: 'pipeline-check',
        requestId: expect.stringMatching(/^[A-Za-z0-9_-]{12}$/),
      });
      const history = await client.workflow.getHandle(`pipeline-check-${checkId}`).fetchHistory();
      const queues = (history.events ?? []).flatMap((e) =>
        e.activityTaskScheduledEventAttributes ? [e.activityTaskScheduledEventAttributes.taskQueue?.name] : [],
      );
      expect(queues.sort()).toEqual(['load', 'media', 'network']);

      // History holds only ciphertext: the result, the activity results and the memo are encrypted.
      const encodings = (history.events ?? [])
        .flatMap((e) => [
          ...(e.workflowExecutionCompletedEventAttributes?.result?.payloads ?? []),
          ...(e.activityTaskCompletedEventAttributes?.result?.payloads ?? []),
          ...Object.values(e.workflowExecutionStartedEventAttributes?.memo?.fields ?? {}),
        ])
        .map((p) => Buffer.from(p.metadata!.encoding!).toString());
      expect(encodings.length).toBe(1 + 3 + 3); // result, three activity results, memo: owner, kind and requestId
      expect(new Set(encodings)).toEqual(new Set([ENCRYPTED_ENCODING]));
      expect(JSON.stringify(history)).not.toContain('hostname');
    },
  );

  it("answers 404 for another user's or an unknown check, 400 naming check_id for what cannot be one", async () => {
    const owner = await newAccount(target);
    const other = await newAccount(target);
    const { check_id } = (await call(target, 'POST', '/api/v1/diagnostics/pipeline-checks', { key: owner.key })).body;
    expectErrorShape(
      await call(target, 'GET', `/api/v1/diagnostics/pipeline-checks/${check_id}`, { key: other.key }),
      404,
    );
    expectErrorShape(
      await call(target, 'GET', '/api/v1/diagnostics/pipeline-checks/no-such-check', { key: owner.key }),
      404,
    );
    const refused = await call(target, 'GET', `/api/v1/diagnostics/pipeline-checks/${'x'.repeat(300)}`, {
      key: owner.key,
    });
    expectErrorShape(refused, 400);
    expect(refused.body.message).toBe(
      'check_id: is not a pipeline check id (up to 64 letters, digits, - and _) (path)',
    );
  });
});
