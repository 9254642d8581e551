// A load test's HTML report saved to a file: `load report`, and `load run --report` at the end.
import fs from 'node:fs';
import { pathOf, type Client } from '../client.ts';
import { loadTestOperations as ops } from '../contract.ts';
import { note } from '../output.ts';

export async function saveReport(c: Client, id: string, file: string): Promise<void> {
  const res = await c.send('GET', pathOf(ops.report, { test_id: id }), { open: true });
  fs.writeFileSync(file, Buffer.from(await res.arrayBuffer()));
  note(`Report saved to ${file}`);
}
