import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createApi } from './app.ts';
import { CAPTURE_PREFIX } from './capture.ts';
import type { ApiDeps } from './context.ts';

export interface ApiServer {
  url: string;
  close(): Promise<void>;
}

export async function startApiServer(deps: ApiDeps): Promise<ApiServer> {
  const api = createApi(deps);
  const koa = api.app.callback();
  const server = http.createServer((req, res) => (req.url?.startsWith(CAPTURE_PREFIX) ? api.capture(req, res) : koa(req, res)));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(deps.config.port, deps.config.host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const host = deps.config.host.includes(':') ? `[${deps.config.host}]` : deps.config.host;
  return {
    url: `http://${host}:${port}`,
    async close() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      await api.drain();
      setTimeout(() => server.closeAllConnections(), 5000).unref();
      await closed;
    },
  };
}
