// Runs wrk (Debian's package) with a Lua script that spreads POSTs over the given paths, and reads
// its summary back: requests/s, p99 latency, 2xx count and errors.
import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export interface WrkResult {
  requestsPerSecond: number;
  p99Ms: number;
  requests: number;
  non2xx: number;
  socketErrors: number;
}

export async function wrk(
  url: string,
  paths: string[],
  body: string,
  options: { connections: number; seconds: number },
): Promise<WrkResult> {
  const script = path.join(await fs.mkdtemp(path.join(os.tmpdir(), 'wrk-')), 'post.lua');
  await fs.writeFile(
    script,
    `
wrk.method = "POST"
wrk.body = ${JSON.stringify(body)}
wrk.headers["Content-Type"] = "application/json"
local paths = { ${paths.map((p) => JSON.stringify(p)).join(', ')} }
local requests = {}
init = function()
  for n, p in ipairs(paths) do requests[n] = wrk.format(nil, p) end
end
local i = 0
request = function()
  i = i % #requests + 1
  return requests[i]
end
done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format("RESULT %d %d %d %d %d\\n", summary.requests, summary.duration, e.status, \
e.connect + e.read + e.write + e.timeout, latency:percentile(99)))
end
`,
  );
  const { stdout } = await run('wrk', ['-t1', `-c${options.connections}`, `-d${options.seconds}s`, '-s', script, url], {
    maxBuffer: 1 << 20,
  });
  const m = /RESULT (\d+) (\d+) (\d+) (\d+) (\d+)/.exec(stdout);
  if (!m) throw new Error(`unexpected wrk output:\n${stdout}`);
  const [requests, durationUs, non2xx, socketErrors, p99Us] = m.slice(1).map(Number) as [
    number,
    number,
    number,
    number,
    number,
  ];
  return { requestsPerSecond: requests / (durationUs / 1e6), p99Ms: p99Us / 1000, requests, non2xx, socketErrors };
}
