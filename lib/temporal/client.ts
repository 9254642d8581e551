import { Client, Connection } from '@temporalio/client';
import type { DataConverter } from '@temporalio/common';
import { NativeConnection } from '@temporalio/worker';

const RETRY_MS = 500;

/** Connects the workflow client, retrying while the server comes up (compose starts services together). */
export async function connectClient(
  address: string,
  namespace: string,
  dataConverter: DataConverter,
  timeoutMs = 60_000,
): Promise<Client> {
  const connection = await retry(() => Connection.connect({ address }), address, timeoutMs);
  return new Client({ connection, namespace, dataConverter });
}

export async function connectWorkerConnection(address: string, timeoutMs = 60_000): Promise<NativeConnection> {
  return retry(() => NativeConnection.connect({ address }), address, timeoutMs);
}

async function retry<T>(attempt: () => Promise<T>, address: string, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await attempt();
    } catch (err) {
      if (Date.now() > deadline) throw new Error(`Cannot reach Temporal at ${address}: ${(err as Error).message}`);
      await new Promise((r) => setTimeout(r, RETRY_MS));
    }
  }
}
