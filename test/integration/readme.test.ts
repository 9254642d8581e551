// The webhook page's curl walk-through (docs/webhooks.md), run as it stands against the running service.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { call, newAccount, targets } from '../support/client.ts';
import { ROOT } from '../support/processes.ts';

const run = promisify(execFile);

function walkthrough(): string {
  const page = fs.readFileSync(path.join(ROOT, 'docs', 'webhooks.md'), 'utf8');
  const m = /<!-- readme-walkthrough[^>]*-->\s*```sh\n([\s\S]*?)```/.exec(page);
  if (!m) throw new Error('docs/webhooks.md has no walk-through block');
  return m[1]!;
}

describe.each(targets())('webhook walk-through of docs/webhooks.md ($name)', (target) => {
  it('works verbatim: create, capture, list, read, delete', async () => {
    const { key } = await newAccount(target);
    const { stdout } = await run('bash', ['-euo', 'pipefail', '-c', walkthrough()], {
      env: { ...process.env, BASE: target.baseUrl, KEY: key },
    });
    const replies = stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(replies).toHaveLength(5);
    const [captured, capturedDelete, list, requests, deleted] = replies;
    expect(captured).toMatchObject({ success: true, message: 'Request captured' });
    expect(capturedDelete).toMatchObject({ success: true });
    expect(list.data.webhooks[0]).toMatchObject({ webhook_id: captured.webhook_id, request_count: 2 });
    expect(requests.data.requests.map((r: { method: string }) => r.method)).toEqual(['DELETE', 'POST']);
    expect(requests.data.requests[1]).toMatchObject({
      body: '{"event":"invoice.paid"}',
      query_params: '{"source":"readme"}',
      headers: expect.objectContaining({ 'x-signature': 't=1,v1=abc' }),
    });
    expect(requests.data.requests[0].path).toBe(`/webhook/${captured.webhook_id}/any/path/below`);
    expect(deleted).toMatchObject({ success: true, webhook_id: captured.webhook_id });
    expect((await call(target, 'GET', '/api/v1/network/my-webhooks', { key })).body.data.total).toBe(0);
  });
});
