// ARCHITECTURE.md's table of job kinds is the one their declarations make (scripts/job-kinds.ts):
// a kind added, renamed or moved to another pool changes the table, and this asks for it.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { JOB_KINDS } from '../../../lib/jobs/index.ts';
import { jobKindsTable } from '../../../scripts/job-kinds.ts';
import { ROOT } from '../../support/processes.ts';

describe('the job kinds table', () => {
  it('has a row per declared kind, with its workflow, pools and task support', () => {
    const table = jobKindsTable().split('\n');
    expect(table).toHaveLength(JOB_KINDS.length + 2);
    expect(table).toContain('| `load-test` | `loadTest` | load | yes, started by REST or MCP |');
    expect(table).toContain('| `webhook-wait` | `webhookWait` | network | yes, when an MCP call started it |');
  });

  it('is the table ARCHITECTURE.md shows (print it with `node scripts/job-kinds.ts`)', () => {
    expect(fs.readFileSync(path.join(ROOT, 'ARCHITECTURE.md'), 'utf8')).toContain(`${jobKindsTable()}\n`);
  });
});
