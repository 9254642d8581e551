// Starts the service once per test run, as a user would, for each backend set under test:
// - `embedded`: Temporal dev server started by the app, PGlite, in-process store, folder blobs;
// - `external`: whatever of DATABASE_URL, REDIS_URL, S3_*, TEMPORAL_ADDRESS this run has (CI sets them all).
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { NODE_SCRIPT_FLAGS } from '../../lib/threads/node-script.ts';
import { startDnsServer } from '../fixtures/dns-server.ts';
import { startHttpsServer } from '../fixtures/https-server.ts';
import { startRdapServer } from '../fixtures/rdap-server.ts';
import { startWhoisServers } from '../fixtures/whois-server.ts';
import { BACKEND_VARS, ROOT, startApp, TEST_RUN_DIR, tempDir, type AppProcess } from './processes.ts';

export interface Target {
  name: 'embedded' | 'external';
  baseUrl: string;
  env: Record<string, string>;
  temporalAddress: string;
  pid: number;
  /** The admin key the app printed on first run, when it printed one. */
  firstRunKey: string | null;
  /** The password the first run printed for the same admin, when it printed one. */
  firstRunPassword: string | null;
  /** The loopback HTTPS site (self-signed) the header analysis is tested on. */
  siteUrl: string;
  /** The same site from a server that also speaks HTTP/2. */
  h2SiteUrl: string;
}

declare module 'vitest' {
  export interface ProvidedContext {
    targets: Target[];
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  // The run's folder, which the workers started after this inherit by name (see TEST_RUN_DIR): removed at the end.
  const runDir = fs.mkdtempSync(path.join(os.tmpdir(), 'netops-run-'));
  fs.chmodSync(runDir, 0o755); // open to the postgres user the fault suites run their servers as, as /tmp is
  process.env[TEST_RUN_DIR] = runDir;
  const removeRunDir = () => fs.rmSync(runDir, { recursive: true, force: true });
  // The `netops` command the suites run is built from the sources as they are now.
  execFileSync(process.execPath, [...NODE_SCRIPT_FLAGS, 'scripts/build-cli.ts'], { cwd: ROOT, stdio: 'inherit' });
  // Protocol fixtures on loopback, which the service reaches through its configuration.
  // The SSRF guard lets the service reach 127.0.0.1 only: refusals are tested against 127.0.0.2 and ::1.
  const dns = await startDnsServer();
  const site = await startHttpsServer();
  const whois = await startWhoisServers();
  const rdap = await startRdapServer();
  // The registry fixtures answer at any rate: pacing (REGISTRY_RATE) is tested on its own cluster
  // (registry-pace.test.ts).
  // Video jobs: a 2 MB upload limit (oversize is tested with 3 MB) and 20 s links (expiry is tested by waiting).
  const fixtures = {
    DNS_SERVERS: dns.address,
    NETWORK_ALLOW: '127.0.0.1/32',
    WHOIS_SERVER: whois.root,
    RDAP_BASE_URL: rdap.url,
    LOOKUP_TIMEOUT_MS: '1000',
    REGISTRY_RATE: '1000',
    VIDEO_MAX_BYTES: '2000000',
    VIDEO_UPLOAD_TTL_SECONDS: '20',
    VIDEO_DOWNLOAD_TTL_SECONDS: '20',
  };
  const apps: Array<[Target['name'], AppProcess]> = [];
  const stopAll = () =>
    Promise.all(apps.map(([, a]) => a.stop()))
      .then(() => Promise.all([dns.close(), site.close(), whois.close(), rdap.close()]))
      .then(removeRunDir);
  try {
    // The embedded app guards its operator endpoints with a token; the external one by loopback only.
    apps.push([
      'embedded',
      await startApp({
        ...fixtures,
        DATA_DIR: await tempDir('embedded'),
        OPERATOR_TOKEN: 'operator-token-for-the-test-suite-0001',
      }),
    ]);
    const external = Object.fromEntries(BACKEND_VARS.flatMap((k) => (process.env[k] ? [[k, process.env[k]!]] : [])));
    if (Object.keys(external).some((k) => k !== 'TEMPORAL_ADDRESS' && k !== 'PAYLOAD_KEY')) {
      apps.push(['external', await startApp({ ...fixtures, ...external, DATA_DIR: await tempDir('external') })]);
    }
  } catch (err) {
    await stopAll();
    throw err;
  }
  project.provide(
    'targets',
    apps.map(([name, app]) => ({
      name,
      baseUrl: app.baseUrl,
      env: app.env,
      temporalAddress: app.temporalAddress,
      pid: app.pid,
      firstRunKey: /admin API key .*: (ntk_\S+)/.exec(app.output())?.[1] ?? null,
      firstRunPassword: /with password (\S+) \(shown once/.exec(app.output())?.[1] ?? null,
      siteUrl: site.url,
      h2SiteUrl: site.h2Url,
    })),
  );
  return stopAll;
}
