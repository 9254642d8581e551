// The embedded mode's Temporal dev server is a child of the service's process: killed, it is started
// again on the same database file, and the service goes on (a load test started afterwards completes).
import { execFileSync } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';
import { canConnect } from '../../lib/can-connect.ts';
import { startLoadTarget, type LoadTarget } from '../fixtures/load-target.ts';
import { runScript, startApp, tempDir, type AppProcess } from '../support/processes.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('the embedded Temporal server', () => {
  let app: AppProcess | undefined;
  let site: LoadTarget | undefined;
  afterAll(async () => {
    await app?.stop();
    await site?.close();
  });

  it('is started again when it dies, and jobs run afterwards', { timeout: 150_000 }, async () => {
    site = await startLoadTarget();
    app = await startApp({ DATA_DIR: await tempDir('embedded-temporal'), NETWORK_ALLOW: '127.0.0.1/32' });
    const key = JSON.parse(
      (
        await runScript(
          'scripts/admin.ts',
          ['create-key', '--email', 'embedded-temporal@example.test', '--plan', 'enterprise'],
          app.env,
        )
      ).stdout,
    ).api_key;
    const port = Number(app.env.TEMPORAL_DEV_PORT);
    const server = execFileSync('ps', ['-o', 'pid=,comm=', '--ppid', String(app.pid)], { encoding: 'utf8' })
      .split('\n')
      .find((l) => /temporal/.test(l));
    expect(server, 'the dev server is a child of the app').toBeTruthy();
    process.kill(Number(server!.trim().split(/\s+/)[0]), 'SIGKILL');
    const killed = Date.now();
    await sleep(200);
    expect(await canConnect({ host: '127.0.0.1', port })).toBe(false);
    while (!(await canConnect({ host: '127.0.0.1', port }))) {
      expect(Date.now() - killed, 'restarted within 30 s').toBeLessThan(30_000);
      await sleep(100);
    }
    console.log(JSON.stringify({ fault: 'embedded temporal killed', listening_again_ms: Date.now() - killed }));
    expect(app.output()).toMatch(/the embedded Temporal server ended: starting it again/);
    expect(process.kill(app.pid, 0)).toBe(true);

    const call = async (method: string, path: string, body?: unknown) =>
      (
        await fetch(`${app!.baseUrl}${path}`, {
          method,
          headers: { 'X-API-Key': key, 'Content-Type': 'application/json' },
          body: body === undefined ? undefined : JSON.stringify(body),
        })
      ).json() as Promise<any>;
    let started: any;
    for (let i = 0; i < 30 && !started?.test_id; i++) {
      started = await call('POST', '/api/v1/load-testing/start', {
        targetUrl: `${site.url}/after-restart`,
        httpMethod: 'GET',
        concurrentUsers: 1,
        testDuration: 10,
        rampUpTime: 0,
        requestsPerSecond: 10,
      });
      if (!started.test_id) await sleep(1000); // 503 while the workers reconnect
    }
    expect(started.test_id, JSON.stringify(started)).toBeTruthy();
    let status: any = {};
    for (let i = 0; i < 120 && !['completed', 'stopped', 'failed'].includes(status.status); i++) {
      await sleep(500);
      status = await call('GET', `/api/v1/load-testing/status/${started.test_id}`);
    }
    expect(status.status).toBe('completed');
    expect(site.count('/after-restart')).toBeGreaterThan(50);
    expect(app.output()).not.toMatch(/nobody handled/);
  });
});
