// MCP tasks over Temporal, through the SDK's own client over HTTP and the real OAuth flow: a load test
// started as a task, read with tasks/get, its result from tasks/result equal to the REST results,
// cancelled with tasks/cancel (every shard stops, partial results kept), invisible to another user,
// a plain call of a 70-second test that lives on progress notifications, and (distributed mode) a
// second API process that answers for the first one's tasks, before and after its restart.
import { looseObjectsOf } from '../support/json-schema.ts';
import { CallToolResultSchema, CreateTaskResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { Client as SdkClient, type Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLoadTarget, type LoadTarget } from '../fixtures/load-target.ts';
import { admin, call, freshWindow, targets } from '../support/client.ts';
import { connectedClient, newUser } from '../support/mcp.ts';
import { pacedTest, secondApiSuite } from '../support/load-tests.ts';
import type { AppProcess } from '../support/processes.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe.each(targets())('MCP tasks on Temporal ($name)', (target) => {
  let site: LoadTarget;
  let owner: { client: Client; key: string };
  let stranger: Client;
  beforeAll(async () => {
    site = await startLoadTarget();
    const user = await newUser(target, 'enterprise');
    const created = await admin(target, ['create-key', '--email', user.email, '--plan', 'enterprise']);
    owner = { client: (await connectedClient(target, user.email)).client, key: JSON.parse(created.stdout).api_key };
    stranger = (await connectedClient(target, (await newUser(target, 'enterprise')).email)).client;
  });
  afterAll(() => site?.close());

  const startTask = async (client: Client, args: Record<string, unknown>) => {
    const started = performance.now();
    const created = await client.request(
      { method: 'tools/call', params: { name: 'load_test_start', arguments: args, task: { ttl: 3_600_000 } } },
      CreateTaskResultSchema,
    );
    return { task: created.task, ms: performance.now() - started };
  };
  const until = async <T>(read: () => Promise<T>, done: (v: T) => boolean, what: string, ms = 30_000): Promise<T> => {
    const deadline = Date.now() + ms;
    for (;;) {
      const v = await read();
      if (done(v)) return v;
      if (Date.now() > deadline) throw new Error(`${what}: still ${JSON.stringify(v)}`);
      await sleep(250);
    }
  };

  it('announces tasks, starts a load test as a task at once, shows its progress, and answers the REST results', {
    timeout: 90_000,
  }, async () => {
    const capabilities = owner.client.getServerCapabilities();
    expect(capabilities?.tasks).toMatchObject({ list: {}, cancel: {}, requests: { tools: { call: {} } } });
    const { tools } = await owner.client.listTools();
    const start = tools.find((t) => t.name === 'load_test_start')!;
    expect(start.execution).toEqual({ taskSupport: 'optional' });
    expect(tools.map((t) => t.name)).toEqual(
      expect.arrayContaining(['load_test_status', 'load_test_stop', 'load_test_results', 'load_test_list']),
    );

    // A typo in the arguments is refused naming it, as the REST body's is (the tool's schema says so:
    // additionalProperties false).
    for (const tool of tools) expect(looseObjectsOf(tool.inputSchema), tool.name).toEqual([]);
    const typo = await owner.client.callTool({
      name: 'load_test_start',
      arguments: {
        targetUrl: `${site.url}/typo`,
        httpMethod: 'GET',
        concurrentUsers: 1,
        testDuration: 10,
        requestPerSecond: 5,
      },
    });
    expect(typo.isError).toBe(true);
    expect((typo.content as Array<{ text: string }>)[0]!.text).toMatch(
      /requestPerSecond: is not an argument of this tool \(did you mean requestsPerSecond\?\)$/,
    );
    // A video job for an AI generator's name is refused for what it is, before its regions are looked at.
    const generator = await owner.client.callTool({ name: 'remove_video_watermark', arguments: { service: 'sora' } });
    expect(generator.isError).toBe(true);
    expect(JSON.stringify(generator.content)).toMatch(/names an AI video generator/);
    const { task, ms } = await startTask(owner.client, {
      targetUrl: `${site.url}/task`,
      httpMethod: 'GET',
      concurrentUsers: 4,
      testDuration: 10,
      rampUpTime: 0,
      requestsPerSecond: 100,
    });
    console.log(`load_test_start as a task answered in ${ms.toFixed(0)} ms`);
    expect(ms).toBeLessThan(500);
    expect(task).toMatchObject({ status: 'working', pollInterval: 2000 });
    expect(task.taskId).toMatch(/^load-test-/);
    const testId = task.taskId.replace(/^load-test-/, '');

    const running = await until(
      () => owner.client.experimental.tasks.getTask(task.taskId),
      (t) => /^running: \d+%/.test(t.statusMessage ?? ''),
      'the task never showed it running',
    );
    expect(running.status).toBe('working');

    // tasks/result waits for the end, then answers what GET /load-testing/results answers.
    const result = await owner.client.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema, {
      timeout: 60_000,
    });
    const rest = await call(target, 'GET', `/api/v1/load-testing/results/${testId}`, { key: owner.key });
    expect(rest.status).toBe(200);
    const { success: _s, ...restResults } = rest.body;
    expect(result.structuredContent).toEqual(restResults);
    expect(result.structuredContent).toMatchObject({
      status: 'completed',
      results: { total_requests: expect.any(Number) },
    });
    expect((result.content[0] as { text: string }).text).toMatch(
      new RegExp(`^Load test ${testId} completed: \\d+ requests`),
    );
    // The same data as JSON text for clients that ignore structured output (or a link to it when large).
    const twin = result.content[1] as { type: string; text?: string; uri?: string };
    if (twin.type === 'text') expect(JSON.parse(twin.text!)).toEqual(restResults);
    else
      expect(twin).toMatchObject({
        type: 'resource_link',
        uri: `${target.env.BASE_URL ?? target.baseUrl}/api/v1/load-testing/results/${testId}`,
      });
    expect(await owner.client.experimental.tasks.getTask(task.taskId)).toMatchObject({ status: 'completed' });

    // Another user: the task is unknown, whatever the method; tasks/list shows each only their own.
    await expect(stranger.experimental.tasks.getTask(task.taskId)).rejects.toThrow(/Task not found/);
    await expect(stranger.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema)).rejects.toThrow(
      /not found/,
    );
    await expect(stranger.experimental.tasks.cancelTask(task.taskId)).rejects.toThrow(/not found/);
    const mine = await until(
      () => owner.client.experimental.tasks.listTasks(),
      (l) => l.tasks.some((t) => t.taskId === task.taskId),
      'tasks/list never showed the task',
    );
    expect(mine.tasks.find((t) => t.taskId === task.taskId)).toMatchObject({ status: 'completed' });
    expect((await stranger.experimental.tasks.listTasks()).tasks.map((t) => t.taskId)).not.toContain(task.taskId);
    const unknownId = `load-test-${'A'.repeat(testId.length)}`;
    await expect(owner.client.experimental.tasks.getTask(unknownId)).rejects.toThrow(/Task not found/);
  });

  it('tasks/cancel stops every shard within 5 seconds; the task ends cancelled with the partial results', {
    timeout: 90_000,
  }, async () => {
    const path = `/cancel-${target.name}`;
    const { task } = await startTask(owner.client, {
      targetUrl: `${site.url}${path}`,
      httpMethod: 'GET',
      concurrentUsers: 4,
      testDuration: 120,
      rampUpTime: 0,
      requestsPerSecond: 200,
    });
    await until(
      () => owner.client.experimental.tasks.getTask(task.taskId),
      (t) => /^running: \d+%/.test(t.statusMessage ?? '') && site.count(path) > 100,
      'the test never ran',
    );

    const asked = Date.now();
    const cancelled = await owner.client.experimental.tasks.cancelTask(task.taskId);
    expect(cancelled.status).toBe('cancelled');
    // Nothing reaches the target once the stop has been seen (a request in flight may still land).
    await sleep(1000);
    const after = site.count(path);
    await sleep(1500);
    expect(site.count(path) - after).toBeLessThanOrEqual(4);
    const lastArrival = Math.max(...site.arrivals(path));
    expect(lastArrival - asked).toBeLessThan(5000);

    const result = await owner.client.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema);
    expect(result.structuredContent).toMatchObject({
      status: 'stopped',
      results: { total_requests: expect.any(Number) },
    });
    expect((result.structuredContent as any).results.total_requests).toBeGreaterThan(100);
    await expect(owner.client.experimental.tasks.cancelTask(task.taskId)).rejects.toThrow(/terminal status: cancelled/);
  });

  it("task methods spend no request within the plan's task reads, then requests; tasks/result waits are " +
    'bounded by the plan', { timeout: 90_000 }, async () => {
    const { email } = await newUser(target, 'free');
    const { client } = await connectedClient(target, email);
    // The allowance and the requests count in minute windows: the whole test in one.
    await freshWindow(20);
    const webhook = (await client.callTool({ name: 'webhook_create', arguments: {} })).structuredContent as any;
    const wait = async () =>
      (
        await client.request(
          {
            method: 'tools/call',
            params: {
              name: 'webhook_wait_for_request',
              arguments: { webhook_id: webhook.webhook_id, timeout: 60 },
              task: {},
            },
          },
          CreateTaskResultSchema,
        )
      ).task.taskId;
    const [a, b] = [await wait(), await wait()];
    // Two tasks/result calls wait (the free plan's two), a third is refused while they do.
    const results = [a, a].map((id) => client.experimental.tasks.getTaskResult(id, CallToolResultSchema));
    await sleep(2000); // for both to hold their slots
    await expect(client.experimental.tasks.getTaskResult(b, CallToolResultSchema)).rejects.toThrow(
      /At most 2 tasks\/result calls waiting at once on the free plan/,
    );
    expect((await client.experimental.tasks.cancelTask(a)).status).toBe('cancelled');
    expect((await client.experimental.tasks.cancelTask(b)).status).toBe('cancelled');
    for (const answer of await Promise.all(results)) expect(answer).toMatchObject({ isError: true });

    // Reads at the advertised pace of every job the plan runs at once (90 a minute) spend no request:
    // polling goes on past the plan's 10 requests, then spends them, then is refused.
    let read = 0;
    let refusal: unknown;
    for (; read < 200; read++) {
      try {
        await client.experimental.tasks.getTask(a);
      } catch (err) {
        refusal = err;
        break;
      }
    }
    expect(String(refusal)).toMatch(/Rate limit of the free plan reached \(10 requests per minute\)/);
    expect((refusal as { code?: number }).code).toBe(-32029);
    // 85 reads left of the 90 (three results and two cancels took five), then the requests the minute
    // has left (10, less the three tool calls): 92.
    expect(read).toBeGreaterThanOrEqual(85);
    expect(read).toBeLessThanOrEqual(92);
  });

  it('checks many domain names as a task (every name in its result) and as a plain call; ' +
    'a cancelled check ends cancelled', {
    timeout: 90_000,
  }, async () => {
    const stamp = `${target.name}-${Date.now().toString(36)}`;
    const names = [`free-${stamp}.com`, `taken-${stamp}.com`, 'not a domain', 'example.com'];
    const created = await owner.client.request(
      {
        method: 'tools/call',
        params: { name: 'domain_check_bulk', arguments: { domains: names, currency: 'EUR' }, task: {} },
      },
      CreateTaskResultSchema,
    );
    expect(created.task.taskId).toMatch(/^domain-check-/);
    const result = await owner.client.experimental.tasks.getTaskResult(created.task.taskId, CallToolResultSchema);
    expect(result.structuredContent).toMatchObject({ total: 4, checked_count: 2, mode: 'fast', currency: 'EUR' });
    const results = (result.structuredContent as any).results;
    expect(results[`free-${stamp}.com`]).toMatchObject({
      success: true,
      available: true,
      availability_confidence: 'medium',
      pricing: { currency: 'EUR' },
    });
    expect(results[`taken-${stamp}.com`]).toMatchObject({ success: true, available: false });
    expect(results['example.com']).toMatchObject({ success: true, available: false, is_reserved: true });
    expect(results['not a domain']).toMatchObject({ success: false });
    expect((result.content[0] as { text: string }).text).toMatch(
      /^4 name\(s\): 1 available, 2 taken, 0 unknown, 1 not checked/,
    );

    // The plain call answers the same, now from the cache for the two checked names.
    const plain = await owner.client.callTool({
      name: 'domain_check_bulk',
      arguments: { domains: names, currency: 'EUR' },
    });
    // Every name counted once: two from the cache, example.com by rule, one refused.
    expect(plain.structuredContent).toMatchObject({
      total: 4,
      cached_count: 2,
      checked_count: 0,
      answered_by_rule_count: 1,
      invalid_count: 1,
    });

    // Names nobody answers (full mode): cancelled while it runs.
    const slow = await owner.client.request(
      {
        method: 'tools/call',
        params: {
          name: 'domain_check_bulk',
          arguments: { domains: [`slow-${stamp}-1.com`, `slow-${stamp}-2.com`], mode: 'full' },
          task: {},
        },
      },
      CreateTaskResultSchema,
    );
    expect((await owner.client.experimental.tasks.cancelTask(slow.task.taskId)).status).toBe('cancelled');
    const cancelled = await owner.client.experimental.tasks.getTaskResult(slow.task.taskId, CallToolResultSchema);
    expect(cancelled.isError).toBe(true);
    expect((cancelled.content[0] as { text: string }).text).toMatch(/cancelled/);
    await expect(stranger.experimental.tasks.getTask(slow.task.taskId)).rejects.toThrow(/Task not found/);
  });
});

// One long job per run is enough: the embedded target.
describe.each(targets().filter((t) => t.name === 'embedded'))('MCP plain calls of long jobs ($name)', (target) => {
  let site: LoadTarget;
  let owner: { client: Client };
  beforeAll(async () => {
    site = await startLoadTarget();
    owner = { client: (await connectedClient(target, (await newUser(target, 'enterprise')).email)).client };
  });
  afterAll(() => site?.close());

  it('a plain call of a 70-second test completes for a client that sent a progress token, ' +
    'progress at least every 10 s', {
    timeout: 150_000,
  }, async () => {
    const heard: Array<{ at: number; progress: number; message?: string }> = [];
    const started = Date.now();
    const result = await owner.client.callTool(
      {
        name: 'load_test_start',
        arguments: {
          targetUrl: `${site.url}/plain`,
          httpMethod: 'GET',
          concurrentUsers: 1,
          testDuration: 70,
          rampUpTime: 0,
          requestsPerSecond: 5,
        },
      },
      CallToolResultSchema,
      // 20 s without a word would fail the call: only the progress keeps it alive.
      {
        timeout: 20_000,
        resetTimeoutOnProgress: true,
        onprogress: (p) => heard.push({ at: Date.now(), progress: p.progress, message: p.message }),
      },
    );
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toMatchObject({
      status: 'completed',
      results: { total_requests: expect.any(Number) },
    });
    const times = [started, ...heard.map((h) => h.at)];
    const gaps = times.slice(1).map((t, i) => t - times[i]!);
    console.log(
      `plain 70 s call: ${heard.length} progress notifications, largest gap ${Math.max(...gaps)} ms, ` +
        `ended after ${Date.now() - started} ms`,
    );
    expect(heard.length).toBeGreaterThanOrEqual(12);
    expect(Math.max(...gaps)).toBeLessThanOrEqual(10_000);
    for (let i = 1; i < heard.length; i++) expect(heard[i]!.progress).toBeGreaterThan(heard[i - 1]!.progress);
    expect(heard.some((h) => /running: \d+%/.test(h.message ?? ''))).toBe(true);
  });
});

// Distributed mode: a second API process on the same Temporal, database and Redis answers for the
// tasks the first one created, and still does after it restarts (no task state lives in a process).
describe.each(targets().filter((t) => t.name === 'external'))('MCP tasks across API processes ($name)', (target) => {
  const { site, startSecond } = secondApiSuite(target);
  const clientOf = async (api: AppProcess, token: string) => {
    const client = new SdkClient({ name: 'second', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${api.baseUrl}/mcp`), {
        requestInit: { headers: { Authorization: `Bearer ${token}` } },
      }),
    );
    return client;
  };

  it('a task created through one API process is read and cancelled through another, and survives its restart', {
    timeout: 180_000,
  }, async () => {
    const user = await newUser(target, 'enterprise');
    const { client, oauth } = await connectedClient(target, user.email);
    const token = oauth.tokens()!.access_token;
    let second = await startSecond();
    const path = '/two-processes';
    const created = await client.request(
      {
        method: 'tools/call',
        params: {
          name: 'load_test_start',
          arguments: pacedTest(`${site().url}${path}`, { testDuration: 120, requestsPerSecond: 50 }),
          task: {},
        },
      },
      CreateTaskResultSchema,
    );

    let other = await clientOf(second, token);
    const deadline = Date.now() + 30_000;
    let seen = await other.experimental.tasks.getTask(created.task.taskId);
    while (!/^running/.test(seen.statusMessage ?? '') && Date.now() < deadline) {
      await sleep(250);
      seen = await other.experimental.tasks.getTask(created.task.taskId);
    }
    expect(seen).toMatchObject({ taskId: created.task.taskId, status: 'working' });
    expect(seen.statusMessage).toMatch(/^running/);

    // The second process restarts: the task is still there, and it is cancelled through it.
    await other.close();
    await second.stop();
    second = await startSecond();
    other = await clientOf(second, token);
    expect(await other.experimental.tasks.getTask(created.task.taskId)).toMatchObject({ status: 'working' });
    expect((await other.experimental.tasks.cancelTask(created.task.taskId)).status).toBe('cancelled');
    // The first process sees the same end.
    expect(await client.experimental.tasks.getTask(created.task.taskId)).toMatchObject({ status: 'cancelled' });
    const result = await client.experimental.tasks.getTaskResult(created.task.taskId, CallToolResultSchema);
    expect(result.structuredContent).toMatchObject({ status: 'stopped' });
    expect(site().count(path)).toBeGreaterThan(0);
    await other.close();
  });
});
