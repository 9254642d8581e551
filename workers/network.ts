// Runs the `network` pool alone, whatever ROLE says (the pool's worker: pools/network.ts).
import { runRole } from './run.ts';

await runRole('worker:network');
