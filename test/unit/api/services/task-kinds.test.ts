// The job kinds' declarations (lib/jobs/, JOB_KINDS) and what is derived from them or must agree with
// them: the workflow bundle's exports, the task rules (api/services/task-kinds.ts), the operator's job
// counts, and a recorded history per workflow type that its workflow test replays.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { TASK_RULES } from '../../../../api/services/task-kinds.ts';
import {
  JOB_KINDS,
  JOB_WORKFLOW_TYPES,
  TASK_JOB_KINDS,
  type JobWorkflowType,
  type JobWorkflows,
  type LoadTestWorkflow,
  type WebhookWaitWorkflow,
} from '../../../../lib/jobs/index.ts';
import type * as bundle from '../../../../workflows/index.ts';
import { ROOT } from '../../../support/processes.ts';
import { HISTORIES_DIR } from '../../../support/workflow-env.ts';

const read = (file: string) => fs.readFileSync(path.join(ROOT, file), 'utf8');

/** The names workflows/index.ts exports (`export { a, b } from ...`, `export const a`, `export function a`). */
function bundleExports(): string[] {
  const text = read('workflows/index.ts');
  const listed = [...text.matchAll(/^export\s*\{([^}]*)\}/gm)].flatMap((m) =>
    m[1]!.split(',').map(
      (name) =>
        name
          .trim()
          .split(/\s+as\s+/)
          .pop()!,
    ),
  );
  const declared = [...text.matchAll(/^export\s+(?:async\s+)?(?:const|function)\s+(\w+)/gm)].map((m) => m[1]!);
  return [...listed, ...declared].filter(Boolean);
}

interface HistoryEvent {
  workflowExecutionStartedEventAttributes?: { workflowType?: { name?: string } };
  activityTaskScheduledEventAttributes?: { taskQueue?: { name?: string } };
}

/** Each recorded history: its name, its workflow type, and the task queues its activities were scheduled on. */
const histories = fs
  .readdirSync(HISTORIES_DIR)
  .filter((f) => f.endsWith('.json'))
  .map((f) => {
    const { events } = JSON.parse(fs.readFileSync(path.join(HISTORIES_DIR, f), 'utf8')) as { events: HistoryEvent[] };
    return {
      name: path.basename(f, '.json'),
      workflow: events[0]?.workflowExecutionStartedEventAttributes?.workflowType?.name,
      queues: new Set(events.flatMap((e) => e.activityTaskScheduledEventAttributes?.taskQueue?.name ?? [])),
    };
  });

/** The workflow tests' source, where the histories are replayed (`env.replay('<name>')`). */
const workflowTests = fs
  .readdirSync(path.join(ROOT, 'test/unit/workflows'))
  .map((f) => read(`test/unit/workflows/${f}`))
  .join('\n');

describe('job kinds', () => {
  it('declares each kind and each workflow once, and no kind is the start of another (a task id names one)', () => {
    const kinds = JOB_KINDS.map((k) => k.kind);
    expect(new Set(kinds).size).toBe(kinds.length);
    expect(new Set(JOB_WORKFLOW_TYPES).size).toBe(JOB_WORKFLOW_TYPES.length);
    expect(kinds.filter((a) => kinds.some((b) => a !== b && b.startsWith(`${a}-`)))).toEqual([]);
  });

  it('has the workflow bundle export exactly the declared workflow types', () => {
    expect(bundleExports().sort()).toEqual([...JOB_WORKFLOW_TYPES].sort());
    // The compiler's word too: no export the declarations lack (workers/pools/workflows.ts checks the other way).
    expectTypeOf<Exclude<keyof typeof bundle, JobWorkflowType>>().toEqualTypeOf<never>();
    expectTypeOf<JobWorkflows['loadTest']>().toEqualTypeOf<LoadTestWorkflow>();
    expectTypeOf<JobWorkflows['webhookWait']>().toEqualTypeOf<WebhookWaitWorkflow>();
  });

  it("marks the service's own workflows internal, and never a task", () => {
    expect(JOB_KINDS.filter((k) => 'internal' in k && 'task' in k).map((k) => k.kind)).toEqual([]);
    expect(JOB_KINDS.filter((k) => 'internal' in k).map((k) => k.workflow)).toEqual([
      'webhookForwarder',
      'webhookUpkeep',
    ]);
  });

  it('gives every task kind its task rules, and no other kind any', () => {
    expect(Object.keys(TASK_RULES).sort()).toEqual(TASK_JOB_KINDS.map((k) => k.kind).sort());
    expect(TASK_JOB_KINDS.map((k) => k.kind).sort()).toEqual([
      'domain-check',
      'load-test',
      'page-audit',
      'site-discovery',
      'video-job',
      'webhook-wait',
    ]);
  });

  it('has the operator count the jobs of every declared workflow type (the derived list, no list of its own)', () => {
    const route = read('api/routes/operator.ts');
    expect(route).toMatch(/\bJOB_WORKFLOW_TYPES\.map\(/);
    expect(JOB_WORKFLOW_TYPES.filter((type) => route.includes(`'${type}'`))).toEqual([]);
    expect(JOB_WORKFLOW_TYPES).toEqual(JOB_KINDS.map((k) => k.workflow));
  });

  it.each(JOB_KINDS.map((k) => [k.workflow, k] as const))(
    '%s has a recorded history, replayed by its workflow test, whose activities ran on the declared pools',
    (workflow, declared) => {
      const recorded = histories.filter((h) => h.workflow === workflow);
      expect(recorded.map((h) => h.name)).not.toEqual([]);
      for (const h of recorded) {
        expect(workflowTests).toContain(`env.replay('${h.name}')`);
        expect([...h.queues].filter((q) => !(declared.pools as readonly string[]).includes(q))).toEqual([]);
      }
    },
  );
});
