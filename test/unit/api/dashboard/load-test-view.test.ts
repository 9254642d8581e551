// What a load test's dashboard page shows first: a run that tested nothing says so, above all else.
import { describe, expect, it } from 'vitest';
import { unreachableLine } from '../../../../api/dashboard/load-test-view.ts';

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
        '<strong>Failed: target unreachable</strong>, nothing was measured: all 23 attempts failed: &lt;ECONNREFUSED&gt;.</p>',
    );
    expect(
      String(unreachableLine({ verdict_reason: 'thresholds', verdict_detail: '1 of 1 threshold did not hold' })),
    ).toBe('');
    expect(String(unreachableLine(null))).toBe('');
  });
});
