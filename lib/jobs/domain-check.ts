// The bulk domain check (workflows/domain-check.ts): the names grouped by registry, each name checked
// by one activity on the network pool (activities/whois), every answer kept in the state as it comes.
import { defineQuery } from '@temporalio/workflow';
import type { LookupMode } from '../lookup-modes.ts';
import { defineJobKind } from './job-kind.ts';

export { LOOKUP_MODES, type LookupMode } from '../lookup-modes.ts';

export const DOMAIN_CHECK_KIND = 'domain-check';
export type Confidence = 'high' | 'medium' | 'low';

/**
 * What is known about one name, without the registration record and raw answer: what a bulk check
 * carries around (domain/whois/lookup.ts's DomainCheck adds them).
 */
export interface CheckSummary {
  domain: string;
  /** The public suffix (prices are per suffix). */
  suffix: string;
  available: boolean | null;
  is_registered: boolean | null;
  is_reserved: boolean;
  /** The rule or registry answer that reserves it. */
  reserved_reason: string | null;
  /** The registry called the unregistered name premium. */
  registry_premium: boolean;
  /** Registered and parked at a marketplace's for-sale name servers. */
  aftermarket: boolean;
  confidence: Confidence;
  evidence: 'rdap' | 'whois' | 'dns' | 'rule';
  whois_server: string;
  /** Why the answer is unknown or weaker than asked for. */
  problems: string[];
}

export interface CheckedDomain {
  check: CheckSummary;
  cached: boolean;
}

/** One name's answer in a bulk check, or why its check failed. */
export type BulkAnswer = CheckedDomain | { error: string };
/** The answers so far, by registrable domain. */
export type BulkAnswers = Record<string, BulkAnswer>;

export interface DomainCheckJob {
  mode: LookupMode;
  /** Names of one registry, and how many of them may be queried at once. */
  groups: Array<{ registry: string; domains: string[]; concurrency: number }>;
  /**
   * Answers known before the job started (the cache's, a rule's, refused names), kept as they are, so
   * the job's result holds every name asked (an MCP task's result is the job's).
   */
  known?: BulkAnswers;
  /** Names checked by one activity (absent: 1, an activity per name). */
  batch?: number;
}

export interface DomainCheckState {
  status: 'running' | 'completed';
  total: number;
  done: number;
  /** Every answer that has come, so a caller past its deadline answers with what is known. */
  results: BulkAnswers;
}

export type DomainCheckWorkflow = (job: DomainCheckJob) => Promise<BulkAnswers>;
export const DOMAIN_CHECK_JOB = defineJobKind<DomainCheckWorkflow>()({
  kind: DOMAIN_CHECK_KIND,
  workflow: 'bulkDomainCheck',
  pools: ['network'],
  task: { restStarted: false },
});

export const getDomainCheckState = defineQuery<DomainCheckState>('getDomainCheckState');
