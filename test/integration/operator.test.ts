// What operators get next to Temporal UI: /metrics after traffic, a request id that links an API
// call to its workflow (memo and search attributes), and /codec/decode with the service's own key.
// The embedded target is started with OPERATOR_TOKEN (token mode); the external one without (loopback mode).
import { AesGcmCodec, encryptingDataConverter, loadPayloadKey } from '../../lib/temporal/codec.ts';
import { connectClient } from '../../lib/temporal/client.ts';
import { workflowIdOf } from '../../lib/temporal/jobs.ts';
import { KIND_ATTRIBUTE, OWNER_ATTRIBUTE } from '../../lib/temporal/search-attributes.ts';
import { describe, expect, it } from 'vitest';
import { call, expectErrorShape, freshWindow, newAccount, targets } from '../support/client.ts';

function metricValue(text: string, name: string, labels: Record<string, string> = {}): number {
  let total = 0;
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    if (!Object.entries(labels).every(([k, v]) => line.includes(`${k}="${v}"`))) continue;
    total += Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return total;
}

describe.each(targets())('operator endpoints ($name)', (target) => {
  const token = target.env.OPERATOR_TOKEN;
  const operator: Record<string, string> = token ? { authorization: `Bearer ${token}` } : {};

  it('guards /metrics: a token when one is configured, else loopback only', async () => {
    if (token) {
      expectErrorShape(await call(target, 'GET', '/metrics'), 401);
      expectErrorShape(await call(target, 'GET', '/metrics', { headers: { authorization: `Bearer ${token}x` } }), 401);
    }
    const ok = await call(target, 'GET', '/metrics', { headers: operator });
    expect(ok.status).toBe(200);
    expect(ok.headers.get('content-type')).toMatch(/^text\/plain/);
    // The process's own figures under one prefix, never doubled.
    expect(ok.text).toMatch(/^netops_process_cpu_seconds_total \d/m);
    expect(ok.text).toMatch(/^netops_nodejs_eventloop_lag_seconds \d/m);
    expect(ok.text).not.toContain('process_process_');
  });

  it('counts requests by route template, captures stored, jobs started and rate-limit refusals', async () => {
    const before = (await call(target, 'GET', '/metrics', { headers: operator })).text;
    const { key } = await newAccount(target, 'free');
    await freshWindow();
    const hook = await call(target, 'POST', '/api/v1/network/my-webhook-create', { key });
    for (let i = 0; i < 3; i++)
      await fetch(`${target.baseUrl}/webhook/${hook.body.webhook_id}`, { method: 'POST', body: `n=${i}` });
    for (let i = 0; i < 3; i++)
      await call(target, 'GET', `/api/v1/network/my-webhook-requests?webhook_id=${hook.body.webhook_id}`, { key });
    await call(target, 'POST', '/api/v1/diagnostics/pipeline-checks', { key });
    await call(target, 'GET', '/api/v1/load-testing/status/id-in-the-path-123', { key }); // 404, by the route template
    let limited = 0;
    for (let i = 0; i < 12 && limited === 0; i++)
      if ((await call(target, 'GET', '/api/v1/network/my-webhooks', { key })).status === 429) limited++;
    expect(limited).toBe(1);
    const after = (await call(target, 'GET', '/metrics', { headers: operator })).text;

    // Ids in paths never become labels: the route template does.
    expect(after).not.toContain('id-in-the-path-123');
    expect(
      metricValue(after, 'netops_http_requests_total', {
        route: '/api/v1/load-testing/status/:test_id',
        status: '404',
      }),
    ).toBeGreaterThanOrEqual(1);
    const route = { route: '/api/v1/network/my-webhook-requests', status: '200' };
    expect(
      metricValue(after, 'netops_http_requests_total', route) -
        metricValue(before, 'netops_http_requests_total', route),
    ).toBeGreaterThanOrEqual(3);
    expect(after).not.toContain(hook.body.webhook_id);
    expect(
      metricValue(after, 'netops_captures_stored_total') - metricValue(before, 'netops_captures_stored_total'),
    ).toBeGreaterThanOrEqual(3);
    expect(
      metricValue(after, 'netops_jobs_started_total', { kind: 'pipeline-check' }) -
        metricValue(before, 'netops_jobs_started_total', { kind: 'pipeline-check' }),
    ).toBeGreaterThanOrEqual(1);
    expect(
      metricValue(after, 'netops_rate_limit_rejections_total', { plan: 'free' }) -
        metricValue(before, 'netops_rate_limit_rejections_total', { plan: 'free' }),
    ).toBeGreaterThanOrEqual(1);
    expect(
      metricValue(after, 'netops_http_request_duration_seconds_count', { route: '/api/v1/network/my-webhooks' }),
    ).toBeGreaterThan(0);
    expect(after).toMatch(/^netops_jobs\{type="pipelineCheck",status="(running|completed)"\} \d+/m);
    expect(after).toMatch(/^netops_load_requests_sent \d+/m);
  });

  it(
    'links a request to its workflow: the id comes back in X-Request-Id and sits in the memo, with owner and ' +
      'kind searchable',
    async () => {
      const { key, userId } = await newAccount(target);
      const started = await call(target, 'POST', '/api/v1/diagnostics/pipeline-checks', {
        key,
        headers: { 'x-request-id': 'ops-test-123' },
      });
      expect(started.headers.get('x-request-id')).toBe('ops-test-123');
      expect(
        (await call(target, 'GET', '/health', { headers: { 'x-request-id': 'bad id with spaces' } })).headers.get(
          'x-request-id',
        ),
      ).toMatch(/^[A-Za-z0-9_-]{12}$/);

      const payloadKey = await loadPayloadKey(target.env.PAYLOAD_KEY, target.env.DATA_DIR!);
      const client = await connectClient(
        target.temporalAddress,
        target.env.TEMPORAL_NAMESPACE ?? 'default',
        encryptingDataConverter(payloadKey),
      );
      try {
        const described = await client.workflow
          .getHandle(workflowIdOf('pipeline-check', started.body.check_id))
          .describe();
        expect(described.memo).toMatchObject({ requestId: 'ops-test-123', owner: userId, kind: 'pipeline-check' });
        expect(described.typedSearchAttributes.get(KIND_ATTRIBUTE)).toBe('pipeline-check');
        expect(described.typedSearchAttributes.get(OWNER_ATTRIBUTE)).toBe(userId);
        // ...and the workflow handed it to the activities it scheduled, on every pool.
        let state: any;
        for (let i = 0; i < 100 && state?.status !== 'completed'; i++) {
          await new Promise((r) => setTimeout(r, 100));
          state = (await call(target, 'GET', `/api/v1/diagnostics/pipeline-checks/${started.body.check_id}`, { key }))
            .body;
        }
        expect(state.status).toBe('completed');
        for (const pool of ['network', 'load', 'media'])
          expect(state.pools[pool].worker.request_id, pool).toBe('ops-test-123');
      } finally {
        await client.connection.close();
      }
    },
  );

  it('decodes payloads for Temporal UI with the service key at /codec/decode, behind the same guard', async () => {
    const payloadKey = await loadPayloadKey(target.env.PAYLOAD_KEY, target.env.DATA_DIR!);
    const [encrypted] = await new AesGcmCodec(payloadKey).encode([
      { metadata: { encoding: Buffer.from('json/plain') }, data: Buffer.from('{"secret":"target credentials"}') },
    ]);
    const wire = {
      payloads: [
        {
          metadata: Object.fromEntries(
            Object.entries(encrypted!.metadata!).map(([k, v]) => [k, Buffer.from(v!).toString('base64')]),
          ),
          data: Buffer.from(encrypted!.data!).toString('base64'),
        },
      ],
    };
    if (token) expectErrorShape(await call(target, 'POST', '/codec/decode', { json: wire }), 401);
    const decoded = await call(target, 'POST', '/codec/decode', { json: wire, headers: operator });
    expect(decoded.status, decoded.text).toBe(200);
    expect(Buffer.from(decoded.body.payloads[0].data, 'base64').toString()).toBe('{"secret":"target credentials"}');
    expect(Buffer.from(decoded.body.payloads[0].metadata.encoding, 'base64').toString()).toBe('json/plain');
    const wrongKey = await new AesGcmCodec(Buffer.alloc(32, 9)).encode([{ metadata: {}, data: Buffer.from('x') }]);
    const refused = await call(target, 'POST', '/codec/decode', {
      headers: operator,
      json: {
        payloads: [
          {
            metadata: Object.fromEntries(
              Object.entries(wrongKey[0]!.metadata!).map(([k, v]) => [k, Buffer.from(v!).toString('base64')]),
            ),
            data: Buffer.from(wrongKey[0]!.data!).toString('base64'),
          },
        ],
      },
    });
    expectErrorShape(refused, 400);
    expect(refused.body.message).toMatch(/could not be decoded/);
  });
});
