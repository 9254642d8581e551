// Runs the `load` pool alone, whatever ROLE says (the pool's worker: pools/load.ts).
import { runRole } from './run.ts';

await runRole('worker:load');
