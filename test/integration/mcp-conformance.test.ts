// The MCP conformance suite (@modelcontextprotocol/conformance) against the real /mcp endpoint. Its
// client sends no credentials, so it talks to a loopback relay that adds a signed-in user's bearer
// token and passes everything else through unchanged. The scenarios that apply to this server: the
// handshake, ping and the tool listing (the others need the suite's reference tools, resources or
// prompts, which this server does not have; its 0.1.16 has no tasks scenario).
import { execFile } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectedClient, newUser } from '../support/mcp.ts';
import { ROOT } from '../support/processes.ts';
import { targets } from '../support/client.ts';

const SCENARIOS = ['server-initialize', 'ping', 'tools-list'];
const CLI = `${ROOT}/node_modules/@modelcontextprotocol/conformance/dist/index.js`;

describe.each(targets().filter((t) => t.name === 'embedded'))('MCP conformance suite ($name)', (target) => {
  let relay: http.Server;
  let relayUrl: string;
  beforeAll(async () => {
    const { oauth } = await connectedClient(target, (await newUser(target)).email);
    const token = oauth.tokens()!.access_token;
    relay = http.createServer(async (req, res) => {
      const chunks: Buffer[] = [];
      for await (const c of req) chunks.push(c as Buffer);
      const headers: Record<string, string> = { authorization: `Bearer ${token}` };
      for (const name of ['content-type', 'accept', 'mcp-protocol-version', 'mcp-session-id', 'last-event-id']) {
        const v = req.headers[name];
        if (typeof v === 'string') headers[name] = v;
      }
      const upstream = await fetch(`${target.baseUrl}/mcp`, {
        method: req.method,
        headers,
        body: chunks.length ? Buffer.concat(chunks) : undefined,
      });
      res.writeHead(upstream.status, Object.fromEntries(upstream.headers));
      if (upstream.body) Readable.fromWeb(upstream.body as never).pipe(res);
      else res.end();
    });
    await new Promise<void>((resolve) => relay.listen(0, '127.0.0.1', () => resolve()));
    relayUrl = `http://localhost:${(relay.address() as AddressInfo).port}/mcp`;
  });
  afterAll(() => new Promise<void>((resolve) => (relay ? relay.close(() => resolve()) : resolve())));

  it.each(SCENARIOS)('passes %s', async (scenario) => {
    let out = '';
    let code = 0;
    try {
      out = (
        await promisify(execFile)(process.execPath, [CLI, 'server', '--url', relayUrl, '--scenario', scenario], {
          cwd: ROOT,
          timeout: 60_000,
        })
      ).stdout;
    } catch (err) {
      code = (err as { code?: number }).code ?? 1;
      out = `${(err as { stdout?: string }).stdout ?? ''}${(err as { stderr?: string }).stderr ?? ''}`;
    }
    expect(code, out).toBe(0);
    expect(out, out).toMatch(/Passed: ([1-9]\d*)\/\1, 0 failed/);
  });
});
