// Every curl example of the README and of each page under docs/, run as it stands against the
// running service (the embedded one): each `sh` block that calls `$BASE` runs in its own bash, and
// - every request it makes answers 2xx (or 304), or the status its comment shows (`# 409 {...}`:
//   a capture URL answering by its owner's rules),
// - the block exits 0 (a `node -p` that cannot read the answer, a `grep` that finds nothing, fail it),
// - where a comment shows the answer (`# {"success":true,"test_id":...}` right after a command),
//   every field the comment names is in the answer the command got.
// The examples' sites (https://example.com, https://staging.example.com) are a loopback site this
// test starts, and what a page assumes its reader has (a webhook with captures, load tests, an
// operator token) is made first and given as the variables the page uses. A block a test cannot
// run (it needs a password, the internet or a video file) is marked `<!-- example: not run (why) -->`.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, newAccount, targets } from '../support/client.ts';
import { ROOT, tempDir } from '../support/processes.ts';
import { greyClip } from '../support/videos.ts';

const run = promisify(execFile);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Block {
  page: string;
  line: number;
  script: string;
}

/** The sh blocks of a page that call the service, each with the fields its answer comments name. */
function blocksOf(page: string): Block[] {
  const text = fs.readFileSync(path.join(ROOT, page), 'utf8');
  const blocks: Block[] = [];
  for (const m of text.matchAll(/(<!-- example: not run[^>]*-->\s*)?```sh\n([\s\S]*?)```/g)) {
    if (m[1] || !m[2]!.includes('$BASE')) continue;
    blocks.push({ page, line: text.slice(0, m.index).split('\n').length, script: withAnswerChecks(m[2]!) });
  }
  return blocks;
}

/**
 * Before each comment that shows an answer (`# {...}` or `# 409 {...}` after a command), a check of
 * its status when it shows one, and of the fields it names.
 */
function withAnswerChecks(script: string): string {
  const lines = script.split('\n');
  const out: string[] = [];
  for (let i = 0; i < lines.length; i += 1) {
    const line = lines[i]!;
    const previous = out.at(-1) ?? '';
    const shown = /^# (\d{3})(?: |$)/.exec(line);
    if ((shown || /^# \{/.test(line)) && previous.trim() !== '' && !previous.trimStart().startsWith('#')) {
      if (shown) out.push(`__answer_status ${shown[1]}`);
      let group = line;
      // The answer goes on over lines indented under its first (`#  "more": ...`).
      for (let j = i + 1; j < lines.length && /^# {2}/.test(lines[j]!); j += 1) group += `\n${lines[j]}`;
      const fields = [...new Set([...group.matchAll(/"([A-Za-z_][A-Za-z0-9_]*)":/g)].map((f) => f[1]!))];
      if (/^# (\d{3} )?\{/.test(line)) out.push(`__answer_has ${fields.join(' ')}`);
    }
    out.push(line);
  }
  return out.join('\n');
}

/** Runs before each block: curl records each answer's status, and the examples' sites are the loopback one. */
const PRELUDE = fs.readFileSync(path.join(ROOT, 'test', 'support', 'docs-example-prelude.sh'), 'utf8');

/** A site for the examples: JSON under /api/ (a login that gives a token and an order), HTML pages, a sitemap. */
function startExampleSite(): Promise<{ url: string; close: () => Promise<void> }> {
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://site');
    req.resume();
    if (url.pathname.startsWith('/api/'))
      return res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ ok: true, data: { token: 'tok', order: { id: 7 } } }));
    if (url.pathname === '/sitemap.xml') {
      const pages = ['/', '/pricing', '/docs']
        .map((p) => `<url><loc>http://${req.headers.host}${p}</loc></url>`)
        .join('');
      return res
        .writeHead(200, { 'content-type': 'application/xml' })
        .end(`<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${pages}</urlset>`);
    }
    if (url.pathname === '/hooks') return res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
    res.writeHead(200, {
      'content-type': 'text/html; charset=utf-8',
      'strict-transport-security': 'max-age=63072000',
      'x-content-type-options': 'nosniff',
    });
    res.end(
      '<!doctype html><html lang="en"><head><title>Pricing</title>' +
        '<style>body{color:#222;background:#fff}.muted{color:#777}' +
        '.hero-caption{color:#fff;background-image:url(/hero.jpg)}</style></head>' +
        '<body><main><h1>Plans</h1><p class="hero-caption">Built for teams</p>' +
        '<p class="muted">Monthly, cancel any time.</p><a href="/docs">Docs</a></main></body></html>',
    );
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({
        url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
        close: () =>
          new Promise<void>((r) => {
            server.closeAllConnections();
            server.close(() => r());
          }),
      }),
    ),
  );
}

const PAGES = [
  'README.md',
  ...fs
    .readdirSync(path.join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .sort()
    .map((f) => `docs/${f}`),
];

describe('the curl examples of README.md and docs/', () => {
  const target = targets()[0]!;
  let site: Awaited<ReturnType<typeof startExampleSite>>;
  let vars: Record<string, string>;
  let key: string;
  let clip: string;

  beforeAll(async () => {
    site = await startExampleSite();
    // The clip the video page uploads: 3 s, 320x240, made here.
    clip = path.join(await tempDir('docs-example-clip'), 'my-clip.mp4');
    await greyClip(clip);
    ({ key } = await newAccount(target));
    const post = async (p: string, json: unknown) => (await call(target, 'POST', p, { key, json })).body;
    // A webhook with captures, and the cursor of its second page of one.
    const webhook = await post('/api/v1/network/my-webhook-create', {});
    // 60 captures: more than a page of the search example's 50.
    const capture = (event: string) =>
      fetch(`${target.baseUrl}/webhook/${webhook.webhook_id}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-event': event },
        body: JSON.stringify({ event, customer: 'cus_42' }),
      });
    for (let i = 0; i < 6; i += 1)
      await Promise.all(Array.from({ length: 10 }, (_, j) => capture(j === 0 ? 'invoice.created' : 'invoice.paid')));
    const page = (
      await call(target, 'GET', `/api/v1/network/my-webhook-requests?webhook_id=${webhook.webhook_id}&limit=1`, { key })
    ).body;
    // Two ended load tests (a report compares two).
    const [first, second] = await Promise.all([startTest(), startTest()]);
    await Promise.all(
      [first, second].map(async (id) => {
        await waitForTest(id, (s) => s !== 'pending');
        await stop(id);
        expect(await waitForTest(id, (s) => s !== 'pending' && s !== 'running')).toMatch(/^(stopped|completed)$/);
      }),
    );
    vars = {
      BASE: target.baseUrl,
      KEY: key,
      SITE: site.url,
      WEBHOOK_ID: webhook.webhook_id,
      REQUEST_ID: String(page.data.requests[0].id),
      ENDED_ID: first,
      OTHER_ID: second,
      OPERATOR_TOKEN: target.env.OPERATOR_TOKEN ?? '',
    };
  }, 90_000);

  const statusOf = async (id: string): Promise<string> =>
    (await call(target, 'GET', `/api/v1/load-testing/status/${id}`, { key })).body.status;
  const stop = (id: string) => call(target, 'POST', `/api/v1/load-testing/stop/${id}`, { key });
  /** A small load test of the loopback site, started (pending until a load worker takes it). */
  async function startTest(): Promise<string> {
    const started = await call(target, 'POST', '/api/v1/load-testing/start', {
      key,
      json: {
        targetUrl: `${site.url}/api/health`,
        httpMethod: 'GET',
        concurrentUsers: 1,
        testDuration: 600,
        rampUpTime: 0,
        requestsPerSecond: 2,
      },
    });
    expect(started.status, started.text).toBe(202);
    return started.body.test_id;
  }
  async function waitForTest(id: string, until: (status: string) => boolean): Promise<string> {
    let status = await statusOf(id);
    for (let i = 0; i < 150 && !until(status); i += 1) status = await sleep(200).then(() => statusOf(id));
    return status;
  }

  /**
   * Stops every test the examples started (they would load the loopback site for minutes): a pending one once a worker
   * took it.
   */
  async function stopStarted() {
    const live = (
      (await call(target, 'GET', '/api/v1/load-testing/tests?limit=100', { key })).body?.tests ?? []
    ).filter((t: { status: string }) => ['pending', 'running'].includes(t.status));
    await Promise.all(
      live.map(async (t: { test_id: string }) => {
        await waitForTest(t.test_id, (s) => s !== 'pending');
        if ((await statusOf(t.test_id)) === 'running') expect((await stop(t.test_id)).status).toBe(200);
      }),
    );
  }

  afterAll(async () => {
    if (key) await stopStarted();
    await site?.close();
  });

  const blocks = PAGES.flatMap(blocksOf);

  it('finds the examples of every page that has them', () => {
    const pages = new Set(blocks.map((b) => b.page));
    for (const page of [
      'README.md',
      'docs/webhooks.md',
      'docs/load-testing.md',
      'docs/domains.md',
      'docs/lookups.md',
      'docs/site-audit.md',
      'docs/api.md',
      'docs/operating.md',
    ])
      expect(pages, page).toContain(page);
    expect(blocks.length).toBeGreaterThan(20);
  });

  it.each(blocks.map((b) => [`${b.page}:${b.line}`, b] as const))(
    '%s answers as it says',
    async (_name, block) => {
      const log = await tempDir('docs-example');
      const cwd = await tempDir('docs-example-cwd');
      fs.copyFileSync(clip, path.join(cwd, 'my-clip.mp4'));
      // $TEST_ID: a running test, new for the block; in a report's block, an ended one (a report is of ended tests).
      const testId = block.script.includes('$TEST_ID')
        ? block.script.includes('/report/')
          ? vars.ENDED_ID!
          : await startTest()
        : '';
      let failure: Error | null = null;
      try {
        await run('bash', ['-c', `${PRELUDE}\n${block.script}`], {
          cwd,
          env: { ...process.env, ...vars, TEST_ID: testId, LOG: log },
          timeout: 60_000,
          maxBuffer: 16 * 1024 * 1024,
        });
      } catch (err) {
        failure = err as Error;
      }
      await stopStarted();
      const calls = fs.existsSync(path.join(log, 'calls')) ? fs.readFileSync(path.join(log, 'calls'), 'utf8') : '';
      const answered = [...calls.matchAll(/@@ (\d{3}) (\S+) (\S+)$/gm)].map((m) => ({
        status: Number(m[1]),
        method: m[2],
        url: m[3],
      }));
      expect(
        failure
          ? `the block exited with ` +
              `${(failure as { code?: number }).code}:\n${calls}${(failure as { stderr?: string }).stderr ?? ''}`
          : null,
      ).toBeNull();
      // Every curl the block ran answered (a status, 000 when it could not connect), and there was at least one.
      expect(answered.length, calls).toBeGreaterThan(0);
      expect(answered.length, calls).toBe([...calls.matchAll(/^@@ exit /gm)].length);
      // A status a comment showed (and __answer_status found) is the answer expected there.
      const shownStatuses = [...calls.matchAll(/^@@ shown (\d{3})$/gm)].map((m) => Number(m[1]));
      expect(
        answered.filter((a) => {
          if ((a.status >= 200 && a.status < 300) || a.status === 304) return false;
          const at = shownStatuses.indexOf(a.status);
          if (at === -1) return true;
          shownStatuses.splice(at, 1);
          return false;
        }),
        calls,
      ).toEqual([]);
    },
    90_000,
  );
});
