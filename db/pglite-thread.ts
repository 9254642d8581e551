// The embedded database's thread (db/pglite.ts starts it): opens PGlite, serves it on the socket,
// and on 'close' stops serving and closes PGlite, its files written.
import { parentPort, workerData } from 'node:worker_threads';
import { openPglite, type ThreadReport } from './pglite.ts';
import { servePglite } from './pglite-socket.ts';

const { dir, socketPath } = workerData as { dir: string; socketPath: string };
const tell = (report: ThreadReport) => parentPort!.postMessage(report);

try {
  const pglite = await openPglite(dir);
  const server = await servePglite(pglite, socketPath);
  parentPort!.once('message', async () => {
    try {
      await server.close();
      await pglite.close();
      tell({ closed: true });
    } catch (err) {
      tell({ failed: (err as Error).message });
    }
    parentPort!.close(); // nothing else keeps this thread: it ends
  });
  tell({ ready: true });
} catch (err) {
  tell({ failed: (err as Error).message });
  parentPort!.close();
}
