// `npm start`: the role from ROLE, by default everything in one process (embedded mode).
import { runRole } from './run.ts';

await runRole();
