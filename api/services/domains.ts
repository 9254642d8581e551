// Domain registration lookups: one name in the request, many as a workflow on the network pool
// (only the names the cache does not answer), waited for until bulkDeadlineMs.
import type { Client, WorkflowHandle } from '@temporalio/client';
import { createConfiguredDomainLookup } from '../../domain/whois/lookup.ts';
import { bulkEntry, whoisResponse } from '../../domain/whois/present.ts';
import type { RegistrableDomain } from '../../domain/whois/registrable.ts';
import type { Config } from '../../lib/config.ts';
import { InvalidInputError } from '../../lib/errors.ts';
import type { KvStore } from '../../lib/kv/index.ts';
import { resultWithin, startJob, within } from '../../lib/temporal/jobs.ts';
import {
  DOMAIN_CHECK_KIND,
  getDomainCheckState,
  type BulkAnswers,
  type DomainCheckJob,
} from '../../lib/jobs/domain-check.ts';
import type { BulkInput, WhoisQuery } from '../../contract/domains.ts';

/** Registry queries in flight per registry in a full bulk check, and DNS queries in flight in a fast one. */
export const BULK_CONCURRENCY = { full: 4, fast: 50, availability_only: 50 } as const;
/** Names per activity: one in full mode (its answers come one by one), a batch of DNS-only ones otherwise. */
export const BULK_BATCH = { full: 1, fast: 25, availability_only: 25 } as const;
/**
 * How long the API waits for a bulk check: six lookup steps (two names' RDAP, WHOIS and DNS, 30 s with the
 * default LOOKUP_TIMEOUT_MS). Past it the answer holds what is known, the rest as `timeout` entries; the
 * workflow goes on and fills the cache.
 */
export const bulkDeadlineMs = (config: Pick<Config, 'lookupTimeoutMs'>) => 6 * config.lookupTimeoutMs;

/** How long the answers so far may take to read once the deadline has passed. */
const QUERY_WAIT_MS = 3000;

/**
 * The answers a running bulk check holds; none when no workflows worker answers the query in time,
 * or the check was started by a release whose state had no answers.
 */
async function answersSoFar(handle: WorkflowHandle): Promise<BulkAnswers> {
  const asked = handle.query(getDomainCheckState).then((s) => s.results ?? {});
  try {
    return (await within(asked, QUERY_WAIT_MS))?.value ?? {};
  } catch {
    return {};
  }
}

/** A bulk answer: each name's entry (`known` and checked answers alike), counts, and how long it took. */
function bulkAnswer(
  input: Pick<BulkInput, 'mode' | 'currency'>,
  answers: BulkAnswers,
  pending: readonly string[],
  tookMs: number,
  late?: { deadlineMs: number; workflowId: string },
) {
  const results: Record<string, unknown> = {};
  const checked = new Set(pending);
  // Every name is counted once: checked now (the workflow's), or known at once: from the cache, by a
  // rule (reserved names such as example.com), or refused as not a registrable name.
  let cachedCount = 0;
  let ruleCount = 0;
  let invalidCount = 0;
  for (const [domain, entry] of Object.entries(answers)) {
    const known = !checked.has(domain);
    if ('check' in entry) {
      // Answered by the cache before any check (a check may also find the cache filled meanwhile: still checked).
      if (known && entry.cached) cachedCount++;
      else if (known) ruleCount++;
      results[domain] = bulkEntry(entry, input.currency);
    } else if (entry.error === 'timeout') {
      results[domain] = {
        success: false,
        error: 'timeout',
        message: late
          ? `no answer within ${late.deadlineMs / 1000} s; the check goes on (workflow ${late.workflowId}) ` +
            'and fills the cache: ask again later'
          : 'no answer',
      };
    } else {
      if (known) invalidCount++;
      results[domain] = { success: false, error: entry.error };
    }
  }
  return {
    success: true,
    query_time_ms: tookMs,
    total: Object.keys(results).length,
    cached_count: cachedCount,
    checked_count: pending.length,
    answered_by_rule_count: ruleCount,
    invalid_count: invalidCount,
    mode: input.mode,
    currency: input.currency,
    results,
  };
}

export function domainService({ config, kv, temporal }: { config: Config; kv: KvStore; temporal: Client }) {
  const lookup = createConfiguredDomainLookup(config, kv);

  /**
   * What the request's names need: refused names and the ones the cache or a rule answers are known at
   * once (`known`); the others are grouped by registry for the workflow (`pending`). Duplicates collapse.
   */
  async function prepare(input: BulkInput): Promise<{ job: Required<DomainCheckJob>; pending: string[] }> {
    const known: BulkAnswers = {};
    const pending = new Map<string, string>(); // registrable domain -> registry
    const names = new Map<string, RegistrableDomain>();
    for (const given of input.domains) {
      try {
        const name = lookup.registrable(given, 'domains');
        if (!names.has(name.domain)) names.set(name.domain, name);
      } catch (err) {
        if (!(err instanceof InvalidInputError)) throw err;
        known[given.trim()] = { error: err.message };
      }
    }
    // The cache read for every name at once (one round trip's time, not one per name).
    const cachedAnswers = await Promise.all([...names.values()].map((name) => lookup.cachedOnly(name, input.mode)));
    [...names.values()].forEach((name, i) => {
      const cached = cachedAnswers[i];
      // A rule's answer (RFC 6761) is neither cached nor checked.
      if (cached) known[name.domain] = { check: cached.check, cached: cached.cached };
      else if (!known[name.domain]) pending.set(name.domain, lookup.answeredBy(name, input.mode));
    });
    const groups = new Map<string, string[]>();
    for (const [domain, registry] of pending) groups.set(registry, [...(groups.get(registry) ?? []), domain]);
    return {
      job: {
        mode: input.mode,
        groups: [...groups].map(([registry, domains]) => ({
          registry,
          domains,
          concurrency: BULK_CONCURRENCY[input.mode],
        })),
        known,
        batch: BULK_BATCH[input.mode],
      },
      pending: [...pending.keys()],
    };
  }

  return {
    async whois(q: WhoisQuery) {
      const started = performance.now();
      const result = await lookup.check(lookup.registrable(q.domain), q.mode);
      return whoisResponse(result, {
        mode: q.mode,
        includePricing: q.include_pricing,
        currency: q.currency,
        executionMs: Math.round(performance.now() - started),
      });
    },

    async bulk(input: BulkInput, ownerId: number) {
      const started = performance.now();
      const asked = await prepare(input);
      const checked: BulkAnswers = {};
      let late: { deadlineMs: number; workflowId: string } | undefined;
      if (asked.job.groups.length > 0) {
        const { handle } = await startJob(temporal, {
          kind: DOMAIN_CHECK_KIND,
          ownerId,
          workflow: 'bulkDomainCheck',
          args: [{ mode: asked.job.mode, groups: asked.job.groups, batch: asked.job.batch }],
        });
        late = { deadlineMs: bulkDeadlineMs(config), workflowId: handle.workflowId };
        Object.assign(
          checked,
          (await resultWithin<BulkAnswers>(handle, late.deadlineMs))?.value ?? (await answersSoFar(handle)),
        );
      }
      // Names past the deadline: a timeout entry each, the check goes on and fills the cache.
      for (const domain of asked.pending) checked[domain] ??= { error: 'timeout' };
      return bulkAnswer(
        input,
        { ...asked.job.known, ...checked },
        asked.pending,
        Math.round(performance.now() - started),
        late,
      );
    },

    /**
     * The same check as a job of its own (an MCP task): every name asked is in the workflow (the ones the
     * cache or a rule answered, and the refused ones, as they are), so its result is the whole answer.
     */
    async startBulk(input: BulkInput, ownerId: number): Promise<string> {
      const asked = await prepare(input);
      const { handle } = await startJob(temporal, {
        kind: DOMAIN_CHECK_KIND,
        ownerId,
        workflow: 'bulkDomainCheck',
        args: [asked.job],
        memo: { task: true, currency: input.currency, mode: input.mode, pending: asked.pending },
      });
      return handle.workflowId;
    },

    /** A bulk check job's progress: names checked of those to check (the query needs a workflows worker). */
    async bulkProgress(workflowId: string): Promise<{ done: number; total: number } | null> {
      try {
        const state = (await within(temporal.workflow.getHandle(workflowId).query(getDomainCheckState), QUERY_WAIT_MS))
          ?.value;
        return state ? { done: state.done, total: state.total } : null;
      } catch {
        return null;
      }
    },

    /** The answer of a bulk check job that ended (startBulk), as `bulk` answers. */
    async bulkResult(workflowId: string): Promise<ReturnType<typeof bulkAnswer>> {
      const handle = temporal.workflow.getHandle(workflowId);
      const [answers, description] = await Promise.all([handle.result() as Promise<BulkAnswers>, handle.describe()]);
      const memo = (description.memo ?? {}) as {
        currency?: BulkInput['currency'];
        mode?: BulkInput['mode'];
        pending?: string[];
      };
      const tookMs = (description.closeTime ?? new Date()).getTime() - description.startTime.getTime();
      return bulkAnswer(
        { mode: memo.mode ?? 'fast', currency: memo.currency ?? 'USD' },
        answers,
        memo.pending ?? [],
        tookMs,
      );
    },
  };
}

export type DomainService = ReturnType<typeof domainService>;
