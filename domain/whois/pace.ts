// Politeness towards registries: queries to one registry server (an RDAP host, a WHOIS server) are
// spaced to at most its rate, counted across every process that shares the key-value store (Redis in
// the distributed mode, so all network workers and API processes together; the process's own store
// in the embedded mode). A query waits for its turn; when the queue is longer than the lookup may
// wait, it is not sent and the lookup says why (an unknown answer, never a guess).
import type { KvStore } from '../../lib/kv/index.ts';

export interface RegistryRates {
  /** Queries per second to any one server. */
  default: number;
  /** Overrides by server (`host` or `host:port`, lower case). */
  byServer: Readonly<Record<string, number>>;
}

/** Waits for the next turn of `server`; answers why not (nothing sent) when it is too far off. */
export type Pace = (server: string, maxWaitMs: number) => Promise<string | null>;

export function createPace(kv: KvStore, rates: RegistryRates): Pace {
  return async (server, maxWaitMs) => {
    const key = server.toLowerCase();
    const rate = rates.byServer[key] ?? rates.byServer[key.replace(/:\d+$/, '')] ?? rates.default;
    const wait = await kv.pace(`registry-pace:${key}`, 1000 / rate, Math.max(0, maxWaitMs));
    if (wait === null)
      return `queries to ${server} are limited to ${rate} per second and too many are waiting: not asked`;
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    return null;
  };
}
