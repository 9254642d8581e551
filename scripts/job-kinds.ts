// The table of job kinds that ARCHITECTURE.md shows ("Job kinds"), made from their declarations
// (JOB_KINDS, lib/jobs/index.ts): `node scripts/job-kinds.ts` prints it, and
// test/unit/scripts/job-kinds.test.ts checks that the document holds it as printed.
import { pathToFileURL } from 'node:url';
import { JOB_KINDS } from '../lib/jobs/index.ts';
import type { JobKindDeclaration } from '../lib/jobs/job-kind.ts';

function taskOf(k: JobKindDeclaration): string {
  if (k.task) return k.task.restStarted ? 'yes, started by REST or MCP' : 'yes, when an MCP call started it';
  return k.internal ? `no: the service's own, it ${k.internal}` : 'no';
}

export function jobKindsTable(): string {
  const rows = (JOB_KINDS as readonly JobKindDeclaration[]).map(
    (k) => `| \`${k.kind}\` | \`${k.workflow}\` | ${k.pools.join(', ')} | ${taskOf(k)} |`,
  );
  return ['| kind | workflow | activity pools | an MCP task |', '|---|---|---|---|', ...rows].join('\n');
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) console.log(jobKindsTable());
