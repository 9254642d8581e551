// Client ID Metadata Documents for the OAuth suites: served over HTTPS on loopback with a certificate
// made for the run, and an app of the suite's own that trusts that certificate (NODE_EXTRA_CA_CERTS),
// with a user who signs in by password. The shared apps of the suites trust none, as the header tests need.
import fs from 'node:fs/promises';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { opensslSelfSigned } from '../fixtures/https-server.ts';
import { PASSWORD } from './mcp.ts';
import { runScript, startApp, tempDir, type AppProcess } from './processes.ts';

export interface ClientDocuments {
  /** `https://127.0.0.1:<port>`. */
  url: string;
  /** The certificate's file, for NODE_EXTRA_CA_CERTS. */
  cert: string;
  /** The paths asked for, in order. */
  fetched: string[];
  /**
   * Serves the document of client `name` at `/clients/<name>.json` and gives its URL, the client id: a
   * public client (no secret) named `Assistant <name>` that asks for codes, with the suite's `defaults`
   * and then `fields` over it.
   */
  documentAt(name: string, fields?: Record<string, unknown>): string;
  close(): Promise<void>;
}

/** The documents server, its certificate in a new folder named from `prefix`. */
export async function startClientDocuments(
  prefix: string,
  defaults: Record<string, unknown>,
): Promise<ClientDocuments> {
  const dir = await tempDir(prefix);
  const [key, cert] = [path.join(dir, 'key.pem'), path.join(dir, 'cert.pem')];
  await opensslSelfSigned(dir, {
    subject: '/CN=127.0.0.1',
    days: 2,
    keyFile: key,
    certFile: cert,
    extra: ['-addext', 'subjectAltName=IP:127.0.0.1'],
  });
  const fetched: string[] = [];
  const documents = new Map<string, Record<string, unknown>>();
  const server = https.createServer({ key: await fs.readFile(key), cert: await fs.readFile(cert) }, (req, res) => {
    fetched.push(req.url ?? '');
    const doc = documents.get(req.url ?? '');
    if (!doc) return res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(doc));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    cert,
    fetched,
    documentAt(name, fields = {}) {
      const id = `${url}/clients/${name}.json`;
      documents.set(`/clients/${name}.json`, {
        client_id: id,
        client_name: `Assistant ${name}`,
        response_types: ['code'],
        token_endpoint_auth_method: 'none',
        ...defaults,
        ...fields,
      });
      return id;
    },
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

/**
 * An app of its own (data in a new folder named from `prefix`, loopback allowed) that trusts `docs`'
 * certificate, with `env` over that, and a pro user `email` with the suites' PASSWORD.
 */
export async function startAppTrusting(
  docs: ClientDocuments,
  prefix: string,
  email: string,
  env: Record<string, string> = {},
): Promise<AppProcess> {
  const app = await startApp({
    DATA_DIR: await tempDir(prefix),
    NETWORK_ALLOW: '127.0.0.1/32',
    NODE_EXTRA_CA_CERTS: docs.cert,
    ...env,
  });
  const created = await runScript(
    'scripts/admin.ts',
    ['create-user', '--email', email, '--password', PASSWORD, '--plan', 'pro'],
    app.env,
  );
  if (created.code !== 0) {
    await app.stop();
    throw new Error(`admin create-user failed: ${created.stderr}`);
  }
  return app;
}
