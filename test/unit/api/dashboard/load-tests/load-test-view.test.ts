// What a load test's dashboard page shows: first, that a run tested nothing, above all else; its figures with
// their units; its phases as one table, each figure a cell that stands beside the others once reflowed on a phone.
import { describe, expect, it } from 'vitest';
import {
  resultsSection,
  unreachableLine,
  verdictSection,
} from '../../../../../api/dashboard/load-tests/load-test-view.ts';
import type { FinalResults } from '../../../../../lib/jobs/load-test.ts';
import { PHASE_TABLE_COLUMNS, PHASE_TABLE_ROWS } from '../../../../support/phases-table.ts';

describe('a load test page', () => {
  it('opens with the target unreachable when every attempt failed, and with nothing otherwise', () => {
    const line = String(
      unreachableLine({
        verdict_reason: 'target_unreachable',
        verdict_detail: 'all 23 attempts failed: <ECONNREFUSED>',
      }),
    );
    expect(line).toBe(
      '<p class="error" role="alert" id="load-unreachable" data-verdict-reason="target_unreachable">' +
        '<strong>Failed: target unreachable</strong>, nothing was measured: all 23 attempts failed: ' +
        '&lt;ECONNREFUSED&gt;.</p>',
    );
    expect(
      String(unreachableLine({ verdict_reason: 'thresholds', verdict_detail: '1 of 1 threshold did not hold' })),
    ).toBe('');
    expect(String(unreachableLine(null))).toBe('');
  });
});

describe("a load test's tables", () => {
  it('give each observed figure its unit, and the phases a row per phase, its figures side by side on a phone', () => {
    const verdict = String(
      verdictSection(
        [
          { threshold: 'p95 < 300', observed: 111.11, pass: true },
          { threshold: 'error_rate < 1', observed: 2.5, pass: false },
          { threshold: 'throughput > 100', observed: 98, pass: false },
        ],
        'failed',
      ),
    );
    expect([...verdict.matchAll(/<td data-label="Observed">([^<]*)<\/td>/g)].map((m) => m[1])).toEqual([
      '111.11\u00a0ms',
      '2.5\u00a0%',
      '98\u00a0req/s',
    ]);
    expect(verdict).not.toContain('class="reflow"');
    const figures = { avg: 1.5, p50: 1, p75: 1, p90: 2, p95: 3, p99: 4, 'p99.9': 5, max: 9 };
    const results = String(
      resultsSection({
        total_requests: 10,
        status_codes: { '200': 10 },
        errors: {},
        phases: { dns: figures, connect: figures, tls: figures, ttfb: figures, transfer: figures },
      } as unknown as FinalResults),
    );
    const phases = /<table class="reflow" id="load-phases">.*?<\/table>/s.exec(results)![0];
    expect([...phases.matchAll(/<th scope="col">([^<]+)<\/th>/g)].map((m) => m[1])).toEqual(PHASE_TABLE_COLUMNS);
    expect([...phases.matchAll(/<tr>\s*<td data-label="Phase">([^<]+)<\/td>/g)].map((m) => m[1])).toEqual(
      PHASE_TABLE_ROWS,
    );
    // Each figure a cell of class n (side by side once reflowed, tables.css) under its statistic's name.
    expect(phases).toContain('<td data-label="Phase">TLS</td><td class="n" data-label="avg">1.5</td>');
  });
});
