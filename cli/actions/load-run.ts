// netops load run when it runs (its flags: commands/load.ts): the start body checked with the API's own
// schema, the test followed to its end, the summary, and the exit code CI reads.
import { client, pathOf } from '../client.ts';
import { currentService } from '../config.ts';
import { loadTestOperations as ops } from '../contract.ts';
import { TargetUnreachable, ThresholdsFailed } from '../errors.ts';
import { asFlags } from '../flag-errors.ts';
import { runFlagFields, startBodyOf, type RunFlags } from '../load/load-body.ts';
import { followTest } from '../load/load-progress.ts';
import { saveReport } from '../load/load-report.ts';
import { summary, type ResultsAnswer } from '../load/load-summary.ts';
import { note, out, print, printJson } from '../output.ts';

/** 0 when it completed (and every threshold held), 98 when it tested nothing, 99 when a threshold failed, else 1. */
function outcome(a: ResultsAnswer): void {
  if (a.results?.verdict_reason === 'target_unreachable')
    throw new TargetUnreachable(
      `load test ${a.test_id}: target unreachable: ${a.results.verdict_detail ?? 'every attempt failed'}`,
    );
  if (a.results?.verdict === 'failed')
    throw new ThresholdsFailed(
      `load test ${a.test_id}: ${a.results.thresholds
        ?.filter((t) => !t.pass)
        .map((t) => `${t.threshold} (observed ${t.observed})`)
        .join(', ')} did not hold`,
    );
  if (a.status !== 'completed')
    throw new Error(`load test ${a.test_id} ${a.status}${a.failure_reason ? `: ${a.failure_reason}` : ''}`);
}

export async function run(file: string | undefined, o: RunFlags & { report?: string; json?: boolean }): Promise<void> {
  const body = startBodyOf(file, o);
  const c = client(currentService());
  // What only the service judges (its SSRF guard, the plan's bounds) is told as the flag that gave it.
  const started = await asFlags(runFlagFields(o), () =>
    c.call<{ test_id: string; config: { target_url: string } }>('POST', pathOf(ops.start), { json: body }),
  );
  note(`Load test ${out.bold(started.test_id)} started against ${started.config.target_url}`);
  const final = await followTest(c, started.test_id);
  const results = await c.call<ResultsAnswer>('GET', pathOf(ops.results, { test_id: started.test_id }));
  if (o.json) printJson(results);
  else print(`\n${summary(results)}`);
  if (o.report && results.results) await saveReport(c, started.test_id, o.report);
  if (final.stoppedHere)
    throw new Error(`load test ${started.test_id} stopped by Ctrl-C: the results above are partial`);
  outcome(results);
}
