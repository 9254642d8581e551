// MCP tools of load tests, sharing the REST service: start one (a task when the client asks for one;
// otherwise the call waits for the end, with progress), read its status, stop it, read its results,
// list your tests. Owner checks as on REST: another user's test answers as an unknown one.
import type { McpServer } from '@modelcontextprotocol/server';
import { LOAD_TEST_KIND } from '../../../lib/jobs/load-test.ts';
import { workflowIdOf } from '../../../lib/temporal/jobs.ts';
import { startBody, startFields } from '../../../contract/load/load-test-start.ts';
import { listQuery, testIdParams, verifyTargetBody } from '../../../contract/load/load-tests.ts';
import {
  targetVerificationResult,
  loadTestListResult,
  loadTestResultsAnswer,
  loadTestStatusAnswer,
  loadTestStopResult,
} from '../../../contract/load/responses-load-tests.ts';
import type { LoadTestService } from '../../services/load-tests/load-tests.ts';
import { VERIFICATION_PATH, type TargetVerificationService } from '../../services/load-tests/target-verification.ts';
import { toolArgs, toolInput, toolOutput, validate } from '../../../contract/validate.ts';
import type { Plan } from '../../../lib/plans.ts';
import { TOOL_HINTS, toolResult, type Run } from '../run.ts';
import { loadTestAppMeta } from '../apps/app-load-test.ts';
import { registerJobTool, type JobToolDeps, type TaskPresenter } from './job-tools.ts';

const resultsShape = toolOutput(loadTestResultsAnswer);

const totals = (
  r:
    | {
        total_requests?: unknown;
        error_rate?: unknown;
        p95_response_time?: unknown;
        throughput?: unknown;
        verdict_reason?: unknown;
        verdict_detail?: unknown;
      }
    | null
    | undefined,
) =>
  r
    ? `${r.verdict_reason === 'target_unreachable' ? `FAILED, target unreachable (${r.verdict_detail}): ` : ''}` +
      `${r.total_requests} requests, ${r.error_rate}% errors, p95 ${r.p95_response_time} ms, ${r.throughput} req/s`
    : 'no results';

export interface LoadTestToolDeps extends JobToolDeps {
  loadTests: LoadTestService;
  targets: TargetVerificationService;
  baseUrl: string;
}

export function registerLoadTestTools(
  server: McpServer,
  run: Run,
  deps: LoadTestToolDeps,
  account: { userId: number; plan: Plan },
): Record<string, TaskPresenter> {
  const { loadTests } = deps;
  const resultsLink = (id: string) => `${deps.baseUrl}/api/v1/load-testing/results/${encodeURIComponent(id)}`;
  const strip = <T extends { success: unknown }>({ success: _s, ...rest }: T) => rest;

  const presentResults: TaskPresenter = (value) => {
    const out = strip(
      value as { success: true; test_id: string; status: string; results: Record<string, unknown> | null },
    );
    return toolResult(out, `Load test ${out.test_id} ${out.status}: ${totals(out.results)}.`, resultsLink(out.test_id));
  };

  registerJobTool(
    server,
    'load_test_start',
    {
      title: 'Start a load test',
      description:
        'Starts a load test of a URL you own (the same body as POST /api/v1/load-testing/start). ' +
        'As a task (tools/call with "task"), it answers at once with the task; tasks/get shows ' +
        'its progress, tasks/result gives the final results, tasks/cancel stops every shard and ' +
        'keeps the partial results. As a plain call it waits for the end, sending ' +
        'notifications/progress every 5 seconds when the call carries a progressToken, and ' +
        'answers the results. The test id is the task id without its "load-test-" prefix.',
      // The REST body's fields, strict as it is: a typo (requestPerSecond) is refused, not dropped into an
      // unlimited test. The rules between fields are startBody's, checked in the call.
      inputSchema: toolArgs(startFields),
      outputSchema: resultsShape,
      annotations: { title: 'Start a load test', ...TOOL_HINTS.load_test_start },
      _meta: loadTestAppMeta,
    },
    deps,
    account,
    async (args) =>
      workflowIdOf(LOAD_TEST_KIND, (await loadTests.start(validate(startBody, args, 'arguments'), account)).test_id),
  );

  server.registerTool(
    'load_test_status',
    {
      title: 'Status of a load test',
      description:
        'Status (pending, running, completed, stopped, failed), progress in percent and live ' +
        'totals of one of your load tests.',
      inputSchema: toolInput(testIdParams.shape),
      outputSchema: toolOutput(loadTestStatusAnswer),
      annotations: { title: 'Status of a load test', ...TOOL_HINTS.load_test_status },
      _meta: loadTestAppMeta,
    },
    (args) =>
      run(
        'load_test_status',
        async () => strip(await loadTests.statusOf(String(args.test_id ?? ''), account.userId)),
        (o) => `Load test ${o.test_id} is ${o.status} (${o.progress}%).`,
      ),
  );

  server.registerTool(
    'load_test_stop',
    {
      title: 'Stop a load test',
      description:
        'Stops one of your running load tests: every shard stops within a second or two; answers the partial totals.',
      inputSchema: toolInput(testIdParams.shape),
      outputSchema: toolOutput(loadTestStopResult),
      annotations: { title: 'Stop a load test', ...TOOL_HINTS.load_test_stop },
    },
    (args) =>
      run(
        'load_test_stop',
        async () => strip(await loadTests.stop(await loadTests.owned(String(args.test_id ?? ''), account.userId))),
        (o) => `${o.message}: ${o.partial_results.total_requests} requests sent.`,
      ),
  );

  server.registerTool(
    'load_test_results',
    {
      title: 'Results of a load test',
      description:
        'Final results of one of your ended load tests: totals, latency percentiles, status ' +
        'codes, errors and per-second series. Large results come as a link to the REST resource ' +
        'beside structuredContent.',
      inputSchema: toolInput(testIdParams.shape),
      outputSchema: resultsShape,
      annotations: { title: 'Results of a load test', ...TOOL_HINTS.load_test_results },
    },
    (args) =>
      run(
        'load_test_results',
        async () => strip(await loadTests.results(String(args.test_id ?? ''), account.userId)),
        (o) => `Load test ${o.test_id} ${o.status}: ${totals(o.results)}.`,
        (o) => resultsLink(o.test_id),
      ),
  );

  server.registerTool(
    'load_test_list',
    {
      title: 'Your load tests',
      description: 'Your load tests, newest first, with their status and a summary of the results.',
      inputSchema: toolInput(listQuery.shape),
      outputSchema: toolOutput(loadTestListResult),
      annotations: { title: 'Your load tests', ...TOOL_HINTS.load_test_list },
    },
    (args) =>
      run(
        'load_test_list',
        async () => strip(await loadTests.list(account.userId, validate(listQuery, args, 'arguments').limit)),
        (o) => `${o.data.total} load test(s).`,
      ),
  );

  server.registerTool(
    'load_test_verify_target',
    {
      title: 'Prove you control a load test target',
      description:
        'Large load tests (above the sizes in required_above) need proof that you control the ' +
        "target's host. Gives your token for the host of targetUrl and the ways to serve it (a " +
        `line of ${VERIFICATION_PATH} on the target's origin, or a DNS TXT record), and checks now ` +
        'whether the host serves it. Call it again after serving the token; then start the test.',
      inputSchema: toolInput(verifyTargetBody.shape),
      outputSchema: toolOutput(targetVerificationResult),
      annotations: { title: 'Prove you control a load test target', ...TOOL_HINTS.load_test_verify_target },
    },
    (args) =>
      run(
        'load_test_verify_target',
        async () =>
          strip(await deps.targets.issue(validate(verifyTargetBody, args, 'arguments').targetUrl, account.userId)),
        (o) =>
          o.verified
            ? `${o.host} is verified: large tests of it may start.`
            : `${o.host} is not verified yet. ${o.methods.map((m) => m.how).join(', or ')}; then call this tool again.`,
      ),
  );

  return { [LOAD_TEST_KIND]: presentResults };
}
