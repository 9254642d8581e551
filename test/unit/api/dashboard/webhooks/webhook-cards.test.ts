// "Copy as curl" sends the captured request again as it was: run through a real shell, with a
// stand-in `curl` that records what it was given.
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { captureItem, curlOf, requestCard } from '../../../../../api/dashboard/webhooks/webhook-cards.ts';

/** Runs `command` in bash with `curl` replaced; answers its arguments and the bytes it read on stdin. */
async function replay(command: string): Promise<{ args: string[]; stdin: Buffer }> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'curl-'));
  try {
    const fake = `curl() { printf '%s\\0' "$@" > ${dir}/args; cat > ${dir}/stdin; }`;
    const run = promisify(execFile)('bash', ['-c', `${fake}\n${command}`], { cwd: dir });
    run.child.stdin?.end(); // nothing on the shell's own stdin: a body comes only through the command
    await run;
    const args = (await fs.readFile(path.join(dir, 'args'), 'utf8')).split('\0').slice(0, -1);
    return { args, stdin: await fs.readFile(path.join(dir, 'stdin')) };
  } finally {
    await fs.rm(dir, { recursive: true, force: true });
  }
}

describe('curlOf', () => {
  const url = 'https://hooks.example.test/webhook/abc';

  it('repeats a query name given several times, and keeps every header but those curl sets', async () => {
    const command = curlOf(
      {
        method: 'POST',
        path: '/webhook/abc/deep/path',
        query_params: JSON.stringify({ x: ['1', '2'], y: "it's" }),
        headers: {
          'content-type': 'application/json',
          'accept-encoding': 'gzip',
          host: 'elsewhere',
          'content-length': '9',
          'x-sig': "t=1,v1='q'",
        },
        body: '{"a":"b"}',
        body_encoding: 'utf8',
      },
      url,
    );
    const { args } = await replay(command);
    expect(args).toEqual([
      '-X',
      'POST',
      'https://hooks.example.test/webhook/abc/deep/path?x=1&x=2&y=it%27s',
      '-H',
      'content-type: application/json',
      '-H',
      'accept-encoding: gzip',
      '-H',
      "x-sig: t=1,v1='q'",
      '--data-raw',
      '{"a":"b"}',
    ]);
  });

  it('sends a body starting with @ as text, never as a file to read, and keeps empty headers', async () => {
    const { args } = await replay(
      curlOf({ method: 'POST', headers: { 'x-empty': '' }, body: '@/etc/passwd', body_encoding: 'utf8' }, url),
    );
    expect(args).toEqual(['-X', 'POST', url, '-H', 'x-empty;', '--data-raw', '@/etc/passwd']);
  });

  it('sends a binary body byte for byte, decoded from what was stored', async () => {
    const bytes = Buffer.concat([randomBytes(300), Buffer.from([0, 39, 10, 255])]);
    const { args, stdin } = await replay(
      curlOf({ method: 'PUT', headers: {}, body: bytes.toString('base64'), body_encoding: 'base64' }, url),
    );
    expect(args).toEqual(['-X', 'PUT', url, '--data-binary', '@-']);
    expect(stdin.equals(bytes)).toBe(true);
  });
});

describe('a capture in the list and in full', () => {
  const url = 'https://hooks.example.test/webhook/abc';
  const capture = {
    id: 7,
    method: 'POST',
    path: '/webhook/abc/orders',
    headers: {},
    body: null,
    body_encoding: 'utf8' as const,
    body_size: 0,
    query_params: JSON.stringify({ q: ' space', b: ['2', '1'], a: '1' }),
    query_string: 'q=%20space&b=2&a=1&b=1',
    ip_address: '127.0.0.1',
    user_agent: '',
    created_at: new Date().toISOString(),
    matched_rule: 0,
    answered_status: 409,
  };

  it('shows when a capture arrived to the millisecond, in UTC as the tables write their times', () => {
    const card = requestCard({ ...capture, created_at: '2026-12-01T09:09:48.847Z' }, url).value;
    const at = '2026-12-01T09:09:48.847Z';
    expect(card).toContain(`<time datetime="${at}" title="${at}">2026-12-01 09:09:48.847\u00a0UTC</time>`);
  });

  it('shows the query as sent and the status answered where it was not 200', () => {
    const item = captureItem(capture, false).value;
    expect(item).toContain('/orders?q=%20space&amp;b=2&amp;a=1&amp;b=1</code>');
    expect(item).toContain('answered 409');
    expect(captureItem({ ...capture, answered_status: 200 }, false).value).not.toContain('answered');
    expect(captureItem({ ...capture, answered_status: null }, false).value).not.toContain('answered');
    const card = requestCard(capture, url).value;
    expect(card).toContain('answered 409 by rule #0');
    expect(card).toContain('/webhook/abc/orders?q=%20space&amp;b=2&amp;a=1&amp;b=1</code>');
  });

  it('copies as curl with the query as sent, rebuilt from its pairs only for a capture stored before', async () => {
    expect((await replay(curlOf(capture, url))).args[2]).toBe(
      'https://hooks.example.test/webhook/abc/orders?q=%20space&b=2&a=1&b=1',
    );
    expect((await replay(curlOf({ ...capture, query_string: null }, url))).args[2]).toBe(
      'https://hooks.example.test/webhook/abc/orders?q=+space&b=2&b=1&a=1',
    );
  });
});
