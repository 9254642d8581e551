// Grading by the method of MDN's HTTP Observatory ("HTTP Observatory scoring methodology", algorithm
// version 5): every site starts at 100; round one applies the penalties; when that leaves 90 or more,
// round two adds the bonuses; the floor is 0 and there is no ceiling (145 at most today); the grade
// comes from the score by MDN's chart. Ten tests, each with MDN's test and result identifiers.
import { grade } from '../grades.ts';
import { cspTest, hasFrameAncestors } from './csp.ts';
import {
  contentTypeOptionsTest,
  cookiesTest,
  frameOptionsTest,
  hstsTest,
  referrerTest,
  resourcePolicyTest,
} from './headers.ts';
import { corsTest, pageFacts, redirectionTest, subresourceIntegrityTest } from './site.ts';
import type { ObservatoryInput, TestResult } from './types.ts';

export type { ObservatoryInput, TestResult } from './types.ts';

/** MDN's grading chart (grades.ts holds it: the Observatory's score maps to a grade directly). */
export const observatoryGrade = grade;

/** The two rounds: penalties, then bonuses only when the penalised score is still 90 or more. */
export function observatoryScore(tests: readonly TestResult[]): number {
  const penalised = 100 + tests.reduce((s, t) => s + Math.min(0, t.modifier), 0);
  const score = penalised >= 90 ? 100 + tests.reduce((s, t) => s + t.modifier, 0) : penalised;
  return Math.max(0, score);
}

export function runObservatory(input: ObservatoryInput) {
  const facts = pageFacts(input.html);
  const hsts = hstsTest(input.headers['strict-transport-security'], input.https, input.certValid);
  const tests: TestResult[] = [
    cspTest({
      headers: input.cspHeaders,
      meta: facts.metaCsp,
      reportOnly: input.headers['content-security-policy-report-only'] !== undefined,
      https: input.https,
    }),
    cookiesTest(input.setCookies, hsts.pass),
    corsTest(input.preflight),
    redirectionTest(input.httpChain),
    referrerTest(input.headers['referrer-policy'], facts.metaReferrer),
    hsts,
    subresourceIntegrityTest(facts, input.html !== null, input.url),
    contentTypeOptionsTest(input.headers['x-content-type-options']),
    frameOptionsTest(input.headers['x-frame-options'], hasFrameAncestors([...input.cspHeaders, ...facts.metaCsp])),
    resourcePolicyTest(input.headers['cross-origin-resource-policy']),
  ];
  const score = observatoryScore(tests);
  const passed = tests.filter((t) => t.pass).length;
  return {
    tests,
    score,
    grade: observatoryGrade(score),
    tests_passed: passed,
    tests_failed: tests.length - passed,
    tests_quantity: tests.length,
  };
}
