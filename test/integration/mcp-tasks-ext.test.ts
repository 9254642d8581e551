// The tasks extension (io.modelcontextprotocol/tasks) at 2026-07-28, through its own requester
// (@modelcontextprotocol/ext-tasks) on the 2.x SDK client signed in by the real OAuth forms: a load test
// against a loopback target started as a task, its progress read with tasks/get, cancelled with
// tasks/cancel and seen stopped by REST; tasks/update refused (no job takes input); without the
// extension declared, a job tool's call answers its result as before; (distributed mode) a task
// started through one API process read and cancelled through another, before and after its restart.
import type { JsonValue } from '@modelcontextprotocol/ext-tasks/core';
import { createTaskSessionFromClient, type RawClientDispatch } from '@modelcontextprotocol/ext-tasks/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLoadTarget, type LoadTarget } from '../fixtures/load-target.ts';
import { admin, call, targets } from '../support/client.ts';
import { connectedModernClient, newUser } from '../support/mcp.ts';
import { pacedTest, secondApiSuite } from '../support/load-tests.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const EXTENSION = 'io.modelcontextprotocol/tasks';
const framing = {
  protocolVersion: '2026-07-28',
  clientInfo: { name: 'ext-tasks e2e', version: '1.0.0' },
  clientCapabilities: {},
};

/** A request's params with the 2026-07-28 envelope, declaring the extension unless told not to. */
const framed = (params: Record<string, JsonValue>, declared = true): JsonValue => ({
  ...params,
  _meta: {
    'io.modelcontextprotocol/protocolVersion': framing.protocolVersion,
    'io.modelcontextprotocol/clientInfo': framing.clientInfo,
    'io.modelcontextprotocol/clientCapabilities': declared ? { extensions: { [EXTENSION]: {} } } : {},
  },
});

/**
 * The requester's raw path for task traffic (the SDK client's codec refuses `resultType: "task"`): one
 * POST per request, with the revision's headers, answered as JSON or as an event stream.
 */
function rawDispatcher(url: URL, token: string): RawClientDispatch {
  let id = 0;
  return async (request, options) => {
    const message: Record<string, any> = { jsonrpc: '2.0', id: ++id, ...(request as Record<string, any>) };
    const name = message.params?.name ?? message.params?.taskId;
    const res = await fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        authorization: `Bearer ${token}`,
        'mcp-protocol-version': framing.protocolVersion,
        'mcp-method': message.method,
        ...(typeof name === 'string' ? { 'mcp-name': name } : {}),
      },
      body: JSON.stringify(message),
      signal: options?.signal,
    });
    const text = await res.text();
    const replies = res.headers.get('content-type')?.startsWith('text/event-stream')
      ? text
          .split('\n')
          .filter((l) => l.startsWith('data:'))
          .map((l) => JSON.parse(l.slice(5)))
      : [JSON.parse(text)];
    const reply = replies.find((r) => r.id === message.id);
    if (!reply) throw new Error(`no answer to ${message.method} (HTTP ${res.status}): ${text.slice(0, 300)}`);
    return reply.error ? { kind: 'error', error: reply.error } : { kind: 'result', result: reply.result };
  };
}

describe.each(targets())('MCP tasks extension at 2026-07-28 ($name)', (target) => {
  let site: LoadTarget;
  let key: string;
  let session: ReturnType<typeof createTaskSessionFromClient>;
  let dispatch: RawClientDispatch;
  let close: () => Promise<void>;
  beforeAll(async () => {
    site = await startLoadTarget();
    const user = await newUser(target, 'enterprise');
    key = JSON.parse(
      (await admin(target, ['create-key', '--email', user.email, '--plan', 'enterprise'])).stdout,
    ).api_key;
    const { client, oauth, url } = await connectedModernClient(target, user.email, { name: 'tasks-ext' });
    expect(client.getServerCapabilities()?.extensions?.[EXTENSION]).toEqual({});
    dispatch = rawDispatcher(url, oauth.tokens()!.access_token);
    session = createTaskSessionFromClient(client as any, {
      endpointId: `netops-${target.name}`,
      rawDispatch: dispatch,
      v2RequestFraming: framing,
    });
    close = async () => {
      await session.close();
      await client.close();
    };
  }, 60_000);
  afterAll(async () => {
    await close?.();
    await site?.close();
  });

  it('starts a load test as a task, reads its progress, cancels it, and REST sees the test stopped', {
    timeout: 90_000,
  }, async () => {
    const path = `/ext-cancel-${target.name}`;
    const started = performance.now();
    const execution = await session.callTool(
      'load_test_start',
      {
        targetUrl: `${site.url}${path}`,
        httpMethod: 'GET',
        concurrentUsers: 2,
        testDuration: 120,
        rampUpTime: 0,
        requestsPerSecond: 100,
      },
      { task: { preference: 'require' } },
    );
    console.log(`load_test_start as an extension task answered in ${(performance.now() - started).toFixed(0)} ms`);
    expect(execution.kind).toBe('task');
    const taskId = execution.handle!.taskId;
    expect(taskId).toMatch(/^load-test-/);
    const testId = taskId.replace(/^load-test-/, '');

    // tasks/get: working, with the test's percent in its message and in `_meta`.
    const controller = session.task(taskId);
    const deadline = Date.now() + 30_000;
    let seen = await controller.snapshot();
    while (!(/^running: \d+%/.test(seen.statusMessage ?? '') && site.count(path) > 50) && Date.now() < deadline) {
      await sleep(250);
      seen = await controller.snapshot();
    }
    expect(seen).toMatchObject({ taskId, status: 'working' });
    expect(seen.statusMessage).toMatch(/^running: \d+%, \d+ requests/);
    const got = await dispatch({ method: 'tasks/get', params: framed({ taskId }) });
    expect(got).toMatchObject({
      kind: 'result',
      result: { resultType: 'complete', taskId, status: 'working', ttlMs: expect.any(Number) },
    });
    expect((got as any).result._meta['netops/progress']).toEqual(expect.any(Number));

    // No job takes input: tasks/update is refused, and the test runs on.
    await expect(controller.update({ answer: { action: 'accept', content: {} } })).rejects.toThrow(
      /does not take input/,
    );

    const asked = Date.now();
    await execution.cancel();
    const { outcome } = await execution.settle();
    expect(outcome.status).toBe('cancelled');
    expect((await controller.snapshot()).status).toBe('cancelled');
    // Nothing reaches the target once the stop has been seen (a request in flight may still land).
    await sleep(1000);
    const after = site.count(path);
    await sleep(1500);
    expect(site.count(path) - after).toBeLessThanOrEqual(4);
    expect(Math.max(...site.arrivals(path)) - asked).toBeLessThan(5000);
    let rest = await call(target, 'GET', `/api/v1/load-testing/status/${testId}`, { key });
    for (const end = Date.now() + 20_000; rest.body.status !== 'stopped' && Date.now() < end; ) {
      await sleep(500);
      rest = await call(target, 'GET', `/api/v1/load-testing/status/${testId}`, { key });
    }
    expect(rest.status).toBe(200);
    expect(rest.body).toMatchObject({ test_id: testId, status: 'stopped' });

    // An ended task is not cancelled again.
    const again = await dispatch({ method: 'tasks/cancel', params: framed({ taskId }) });
    expect(again).toMatchObject({ kind: 'error', error: { code: -32602 } });
    expect((again as any).error.message).toMatch(/terminal status: cancelled/);
  });

  it('a job that ends is completed in tasks/get with its result; ' +
    'a call answers a task only when the extension is declared', {
    timeout: 90_000,
  }, async () => {
    const stamp = `${target.name}-${Date.now().toString(36)}`;
    const domains = [`free-${stamp}.com`, 'example.com'];
    const execution = await session.callTool('domain_check_bulk', { domains }, { task: { preference: 'require' } });
    expect(execution.kind).toBe('task');
    const { outcome } = await execution.settle();
    expect(outcome.status, JSON.stringify(outcome)).toBe('completed');
    const result = (outcome as { result: any }).result;
    expect(result.structuredContent).toMatchObject({ total: 2, mode: 'fast' });
    expect(result.structuredContent.results['example.com']).toMatchObject({ is_reserved: true });

    // On the wire: the extension declared, the call answers the task at once.
    const asTask = await dispatch({
      method: 'tools/call',
      params: framed({ name: 'domain_check_bulk', arguments: { domains } }),
    });
    expect(asTask).toMatchObject({
      kind: 'result',
      result: {
        resultType: 'task',
        taskId: expect.stringMatching(/^domain-check-/),
        status: 'working',
        ttlMs: 86_400_000,
      },
    });

    // The same call, the extension not declared: the plain call's result (no task).
    const plain = await dispatch({
      method: 'tools/call',
      params: framed({ name: 'domain_check_bulk', arguments: { domains } }, false),
    });
    expect(plain).toMatchObject({
      kind: 'result',
      result: { resultType: 'complete', structuredContent: { total: 2 } },
    });
    expect((plain as any).result.taskId).toBeUndefined();
  });
});

// Distributed mode: a second API process on the same Temporal, database and Redis answers for the
// extension's tasks the first one created, and still does after it restarts.
describe.each(targets().filter((t) => t.name === 'external'))(
  'MCP tasks extension across API processes ($name)',
  (target) => {
    const { site, startSecond } = secondApiSuite(target);

    it('a task started through one API process is read and cancelled through another, and survives its restart', {
      timeout: 180_000,
    }, async () => {
      const user = await newUser(target, 'enterprise');
      const { client, oauth, url } = await connectedModernClient(target, user.email, { name: 'tasks-ext' });
      await client.close();
      const token = oauth.tokens()!.access_token;
      const first = rawDispatcher(url, token);
      let second = await startSecond();
      let other = rawDispatcher(new URL(`${second.baseUrl}/mcp`), token);
      const path = '/ext-two-processes';
      const created = await first({
        method: 'tools/call',
        params: framed({
          name: 'load_test_start',
          arguments: pacedTest(`${site().url}${path}`, { testDuration: 120, requestsPerSecond: 50 }),
        }),
      });
      expect(created).toMatchObject({ kind: 'result', result: { resultType: 'task', status: 'working' } });
      const taskId: string = (created as any).result.taskId;
      const get = (dispatch: RawClientDispatch) => dispatch({ method: 'tasks/get', params: framed({ taskId }) });

      const deadline = Date.now() + 30_000;
      let seen = (await get(other)) as any;
      while (!/^running/.test(seen.result?.statusMessage ?? '') && Date.now() < deadline) {
        await sleep(250);
        seen = await get(other);
      }
      expect(seen.result).toMatchObject({
        taskId,
        status: 'working',
        statusMessage: expect.stringMatching(/^running/),
      });

      // The second process restarts: the task is still there, and it is cancelled through it.
      await second.stop();
      second = await startSecond();
      other = rawDispatcher(new URL(`${second.baseUrl}/mcp`), token);
      expect(await get(other)).toMatchObject({ kind: 'result', result: { status: 'working' } });
      expect(await other({ method: 'tasks/cancel', params: framed({ taskId }) })).toMatchObject({
        kind: 'result',
        result: { resultType: 'complete' },
      });
      // The first process sees the same end.
      expect(await get(first)).toMatchObject({ kind: 'result', result: { taskId, status: 'cancelled' } });
      expect(site().count(path)).toBeGreaterThan(0);
    });
  },
);
