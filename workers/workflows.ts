// Runs the `workflows` pool alone, whatever ROLE says (the pool's worker: pools/workflows.ts).
import { runRole } from './run.ts';

await runRole('worker:workflows');
