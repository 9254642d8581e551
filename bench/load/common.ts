// Shared by the load benchmarks: nginx on loopback as the fast target, and a load test through the service.
import { spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { selfSignedCertificate } from '../../test/fixtures/https-server.ts';
import { freePort } from '../../test/support/processes.ts';
import { cpuOf } from './machine.ts';

export interface Row {
  tool: string;
  rps: number;
  p50: number | null;
  p99: number | null;
  /** CPU seconds the tool used, and the requests it made (when measured). */
  cpu?: number;
  requests?: number;
}

/**
 * nginx with one worker serving a small static file on loopback: over HTTP/1.1 (`url`), HTTP/2 over
 * TLS with a self-signed certificate (`h2Url`) and HTTP/2 with prior knowledge (`h2cUrl`).
 */
export async function startNginx(): Promise<{
  url: string;
  h2Url: string;
  h2cUrl: string;
  /** CPU seconds used so far by nginx, its master and worker (the worker's only while it runs). */
  cpu(): Promise<number>;
  stop(): Promise<void>;
}> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'netops-nginx-'));
  const [port, h2Port, h2cPort] = [await freePort(), await freePort(), await freePort()];
  const tls = await selfSignedCertificate();
  await fs.writeFile(path.join(dir, 'index.html'), 'hello from nginx\n');
  await fs.writeFile(
    path.join(dir, 'nginx.conf'),
    `worker_processes 1;
daemon off;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log;
events { worker_connections 20000; }
http {
  access_log off;
  keepalive_requests 100000000;
  client_body_temp_path ${dir}; proxy_temp_path ${dir}; fastcgi_temp_path ${dir}; \
uwsgi_temp_path ${dir}; scgi_temp_path ${dir};
  server { listen 127.0.0.1:${port}; root ${dir}; location / { } }
  server { listen 127.0.0.1:${h2Port} ssl http2; ssl_certificate ${tls.dir}/cert.pem; \
ssl_certificate_key ${tls.dir}/key.pem; root ${dir}; location / { } }
  server { listen 127.0.0.1:${h2cPort} http2; root ${dir}; location / { } }
}
`,
  );
  const child = spawn('nginx', ['-c', path.join(dir, 'nginx.conf'), '-p', dir], { stdio: 'ignore' });
  for (let i = 0; i < 50; i++) {
    if (
      await fetch(`http://127.0.0.1:${port}/index.html`).then(
        (r) => r.ok,
        () => false,
      )
    )
      break;
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    url: `http://127.0.0.1:${port}/index.html`,
    h2Url: `https://127.0.0.1:${h2Port}/index.html`,
    h2cUrl: `http://127.0.0.1:${h2cPort}/index.html`,
    cpu: async () => {
      const master = child.pid ?? 0;
      // Its worker is the master's child (Linux lists a thread's children here with CONFIG_PROC_CHILDREN).
      const workers = (await fs.readFile(`/proc/${master}/task/${master}/children`, 'utf8')).split(' ').filter(Boolean);
      if (workers.length === 0) throw new Error(`nginx (${master}) has no worker to measure`);
      const pids = [master, ...workers.map(Number)];
      return (await Promise.all(pids.map(cpuOf))).reduce((a, b) => a + b, 0);
    },
    stop: async () => {
      child.kill('SIGTERM');
      await new Promise((r) => child.once('exit', r));
      await fs.rm(dir, { recursive: true, force: true });
      await fs.rm(tls.dir, { recursive: true, force: true });
    },
  };
}

/** Runs a load test through the API and waits for its results; `onPoll` sees each status answer. */
export async function runLoadTest(
  baseUrl: string,
  key: string,
  body: Record<string, unknown>,
  onPoll: (status: any, ms: number) => void = () => {},
  pollMs = 500,
): Promise<Row & { results: any }> {
  const headers = { 'X-API-Key': key, 'Content-Type': 'application/json' };
  const started = (await (
    await fetch(`${baseUrl}/api/v1/load-testing/start`, { method: 'POST', headers, body: JSON.stringify(body) })
  ).json()) as any;
  if (!started.success) throw new Error(JSON.stringify(started));
  for (;;) {
    await new Promise((r) => setTimeout(r, pollMs));
    const asked = performance.now();
    const status = (await (
      await fetch(`${baseUrl}/api/v1/load-testing/status/${started.test_id}`, { headers })
    ).json()) as any;
    onPoll(status, performance.now() - asked);
    if (status.status !== 'pending' && status.status !== 'running') break;
  }
  const { results } = (await (
    await fetch(`${baseUrl}/api/v1/load-testing/results/${started.test_id}`, { headers })
  ).json()) as any;
  return {
    tool: 'netops load worker',
    rps: results.throughput,
    requests: results.total_requests,
    p50: results.p50_response_time,
    p99: results.p99_response_time,
    results,
  };
}
