// A small load test started without proof of control (TARGET_VERIFICATION=required) connects only to
// the addresses its host had when the start checked it, whatever the name answers later; a second one
// of the same server needs the proof, and two started at once when the proof is remembered both run
// (the one that finds the other's row looks for the proof rather than refusing). Temporal is stubbed
// (it records what each start was given); the database is PGlite; nothing is connected to.
import type { Client } from '@temporalio/client';
import { describe, expect, it } from 'vitest';
import { loadTestService } from '../../../../../api/services/load-tests/load-tests.ts';
import { targetVerificationService } from '../../../../../api/services/load-tests/target-verification.ts';
import { startBody } from '../../../../../contract/load/load-test-start.ts';
import { upsertUser } from '../../../../../db/users.ts';
import { loadConfig } from '../../../../../lib/config.ts';
import type { LoadTestInput } from '../../../../../lib/jobs/load-test.ts';
import { MemoryKvStore } from '../../../../../lib/kv/index.ts';
import { contractDatabases, useDatabase } from '../../../../support/databases.ts';

const database = useDatabase(contractDatabases('load-test-targets')[0]![1]);

/** The service; with `together`, each start waits after its look for the others until that many have looked. */
function service(together = 1) {
  const config = loadConfig({ TARGET_VERIFICATION: 'required', NETWORK_ALLOW: '127.0.0.1/32' });
  const kv = new MemoryKvStore();
  const inputs: LoadTestInput[] = [];
  const temporal = {
    workflow: {
      start: async (_workflow: string, o: { workflowId: string; args: [LoadTestInput] }) => {
        inputs.push(o.args[0]);
        return { workflowId: o.workflowId, firstExecutionRunId: 'run' };
      },
    },
  } as unknown as Client;
  const real = targetVerificationService({ config, db: database.db, kv });
  let looked = 0;
  let allLooked!: () => void;
  const barrier = new Promise<void>((resolve) => (allLooked = resolve));
  const targets: typeof real = {
    ...real,
    async ensure(...args) {
      const check = await real.ensure(...args);
      if (++looked >= together) allLooked();
      await barrier;
      return check;
    },
  };
  const tests = loadTestService({ config, db: database.db, temporal, targets, replays: undefined as never });
  return { tests, kv, inputs };
}
const small = (targetUrl: string) =>
  startBody.parse({ targetUrl, httpMethod: 'GET', concurrentUsers: 1, requestsPerSecond: 1, testDuration: 10 });

describe('small load tests without proof', () => {
  it("connect only to their start's addresses, and a second one of the server needs the proof", async () => {
    const { tests, inputs } = service();
    const account = {
      userId: (await upsertUser(database.db, 'targets-a@example.test', 'pro')).id,
      plan: 'pro' as const,
    };
    expect((await tests.start(small('http://127.0.0.1:9/'), account)).status).toBe('pending');
    expect(inputs[0]!.target).toMatchObject({ url: 'http://127.0.0.1:9/', connectTo: ['127.0.0.1'] });
    expect(inputs[0]!.target.addresses).toBeUndefined(); // not a proof's pinning
    // Another port of the address (nothing listens there: the proof cannot be read).
    await expect(tests.start(small('http://127.0.0.1:10/'), account)).rejects.toMatchObject({
      status: 403,
      code: 'target_not_verified',
    });
    expect(inputs).toHaveLength(1);
  });

  it('both run when started at once with the proof remembered', async () => {
    // Both look before either stores its row: both find the server free, and one finds the other's row.
    const { tests, kv, inputs } = service(2);
    const userId = (await upsertUser(database.db, 'targets-b@example.test', 'pro')).id;
    for (const port of [11, 12])
      await kv.set(
        `target-verified:${userId}:http://127.0.0.1:${port}`,
        JSON.stringify({ by: 'http', addresses: ['127.0.0.1'] }),
        3600,
      );
    const both = await Promise.allSettled(
      [11, 12].map((port) => tests.start(small(`http://127.0.0.1:${port}/`), { userId, plan: 'pro' })),
    );
    expect(both.map((r) => r.status)).toEqual(['fulfilled', 'fulfilled']);
    // The proven one connects to its proof's addresses only, as the other to its start's.
    expect(inputs.map((i) => i.target.connectTo)).toEqual([['127.0.0.1'], ['127.0.0.1']]);
  });
});
