// A table for the terminal, apart from output.ts: cli-table3 (and the string-width code under it) is
// loaded by the commands that print one, not at every start.
import Table from 'cli-table3';
import { out } from './output.ts';

/** A header row and rows, borders light, colours only where they are on. */
export function table(head: string[], rows: Array<Array<string | number>>): string {
  const t = new Table({
    head: head.map((h) => out.bold(h)),
    style: { head: [], border: [], compact: true },
    chars: { mid: '', 'left-mid': '', 'mid-mid': '', 'right-mid': '' },
  });
  t.push(...rows.map((r) => r.map((c) => String(c))));
  return t.toString();
}
