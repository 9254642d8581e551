// The embedded Temporal engine's start (lib/temporal/dev-server.ts), on a stand-in for the `temporal`
// CLI: a script that fails as the server does when a port it picked itself was taken meanwhile (or
// fails otherwise) a given number of times, then listens on the `--port` it was given.
import fs from 'node:fs/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { type DevServer, devServerArgs, startDevServer } from '../../../../lib/temporal/dev-server.ts';
import { freePort, tempDir } from '../../../support/processes.ts';

const servers: DevServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.stop()));
});

/** A CLI that fails `fails` times saying `why`, then serves; `starts()` counts its runs. */
async function standIn(fails: number, why: string) {
  const dir = await tempDir('dev-server');
  const cli = `${dir}/temporal-cli`;
  const listen = `require('node:net').createServer().listen(Number(process.argv[1]), '127.0.0.1')`;
  await fs.writeFile(
    cli,
    [
      '#!/bin/sh',
      `n=$(cat "${dir}/starts" 2>/dev/null || echo 0); echo $((n + 1)) > "${dir}/starts"`,
      `if [ "$n" -lt ${fails} ]; then echo '${why}' >&2; exit 1; fi`,
      'while [ $# -gt 0 ]; do [ "$1" = --port ] && port=$2; shift; done',
      `exec "${process.execPath}" -e "${listen}" "$port"`,
    ].join('\n'),
    { mode: 0o755 },
  );
  const start = async () => {
    const server = await startDevServer({ cli, dataDir: dir, port: await freePort(), uiPort: 1, namespace: 'default' });
    servers.push(server);
    return server;
  };
  return { start, starts: async () => Number(await fs.readFile(`${dir}/starts`, 'utf8')) };
}

const TAKEN =
  'failed listening for HTTP API on 127.0.0.1:40197: listen tcp 127.0.0.1:40197: bind: address already in use';

describe('startDevServer', () => {
  it('starts again when a port the server picked itself was taken before it bound it', async () => {
    const cli = await standIn(2, TAKEN);
    const server = await cli.start();
    expect(server.address).toMatch(/^127\.0\.0\.1:\d+$/);
    expect(await cli.starts()).toBe(3);
  });

  it('gives up after three starts, saying why', async () => {
    const cli = await standIn(3, TAKEN);
    await expect(cli.start()).rejects.toThrow(/exited with 1: .*address already in use/);
    expect(await cli.starts()).toBe(3);
  });

  it('starts once when it fails for another reason', async () => {
    const cli = await standIn(1, 'unable to open database file');
    await expect(cli.start()).rejects.toThrow(/exited with 1: unable to open database file/);
    expect(await cli.starts()).toBe(1);
  });
});

describe('devServerArgs', () => {
  it('serves the web UI on its port, or none without one', () => {
    const args = { port: 7233, dbFile: '/data/dev.db', logLevel: 'warn' };
    expect(devServerArgs({ ...args, uiPort: 8233 }).join(' ')).toBe(
      'server start-dev --ip 127.0.0.1 --port 7233 --ui-port 8233 --db-filename /data/dev.db --log-level warn',
    );
    expect(devServerArgs(args).join(' ')).toBe(
      'server start-dev --ip 127.0.0.1 --port 7233 --headless --db-filename /data/dev.db --log-level warn',
    );
  });
});
