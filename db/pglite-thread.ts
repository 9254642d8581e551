// The embedded database's thread (db/pglite.ts starts it): opens PGlite, serves it on the socket,
// vacuums the tables due for it now and then (VACUUM_EVERY_MS, vacuumDue), and on 'close' stops
// serving and closes PGlite, its files written.
import { parentPort, workerData } from 'node:worker_threads';
import { openPglite, vacuumDue, type ThreadReport } from './pglite.ts';
import { servePglite } from './pglite-socket.ts';

const { dir, socketPath, vacuumEveryMs } = workerData as { dir: string; socketPath: string; vacuumEveryMs: number };
if (!parentPort) throw new Error('db/pglite-thread.ts runs as a worker thread (db/pglite.ts starts it)');
const port = parentPort;
const tell = (report: ThreadReport) => port.postMessage(report);

try {
  const pglite = await openPglite(dir);
  // The counts of dead rows that vacuumDue judges by start from zero at each opening (PGlite keeps none):
  // what was dead before is reclaimed now, while nobody waits on the session (failing, it is tried no more).
  await pglite.exec('VACUUM').catch(() => {});
  const server = await servePglite(pglite, socketPath);
  // PGlite's exec takes the session as a client's turn does: between transactions, never inside one.
  // One vacuum at a time; one that fails is tried again at the next tick; closing waits for one running.
  let vacuuming: Promise<unknown> | null = null;
  const vacuum = setInterval(() => {
    vacuuming ??= vacuumDue(pglite)
      .catch(() => {})
      .finally(() => (vacuuming = null));
  }, vacuumEveryMs);
  port.once('message', async () => {
    clearInterval(vacuum);
    try {
      await server.close();
      await vacuuming;
      await pglite.close();
      tell({ closed: true });
    } catch (err) {
      tell({ failed: (err as Error).message });
    }
    port.close(); // nothing else keeps this thread: it ends
  });
  tell({ ready: true });
} catch (err) {
  tell({ failed: (err as Error).message });
  port.close();
}
