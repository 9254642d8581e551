// Runs the `media` pool alone, whatever ROLE says (the pool's worker: pools/media.ts).
import { runRole } from './run.ts';

await runRole('worker:media');
