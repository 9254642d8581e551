// The load-test form (api/dashboard/load-tests/load-test-form.ts): its durations typed as REST takes
// them ("90", "10m", "1h30m") and refused by the form's label when they are not; and the form filled
// from a webhook's page (replayFormOf): its start body's replay names the webhook and the search's
// filters a replay takes, and the API's own schema takes it once the target and the users are filled in.
import { describe, expect, it } from 'vitest';
import { labelled } from '../../../../../api/dashboard/form-labels.ts';
import {
  replayFormOf,
  START_LABELS,
  startBodyFromForm,
  startForm,
} from '../../../../../api/dashboard/load-tests/load-test-form.ts';
import { PLAN_LIMITS } from '../../../../../lib/plans.ts';
import { spellDuration } from '../../../../../lib/duration.ts';
import { startBody } from '../../../../../contract/load/load-test-start.ts';
import { validate } from '../../../../../contract/validate.ts';

describe("the start form's ranges", () => {
  it("are the account's plan's: its users and its longest test, spelled as the field takes a duration", () => {
    const field = (page: string, name: string) =>
      new RegExp(`<label for="${name}">([^<]*)</label><input[^>]*>`).exec(page)![0];
    const free = String(startForm('csrf', {}, PLAN_LIMITS.free));
    expect(field(free, 'concurrentUsers')).toMatch(/\(1 to 50\)<\/label>.*max="50"/);
    expect(field(free, 'testDuration')).toContain('(10s to 5m)');
    const pro = String(startForm('csrf', {}, PLAN_LIMITS.pro));
    expect(field(pro, 'concurrentUsers')).toMatch(/\(1 to 1000\)<\/label>.*max="1000"/);
    expect(field(pro, 'testDuration')).toContain('(10s to 1h)');
    expect([90, 300, 3_600, 5_400, 3_661].map(spellDuration)).toEqual(['1m30s', '5m', '1h', '1h30m', '1h1m1s']);
  });
});

describe('the durations of the start form', () => {
  const form = { targetUrl: 'http://127.0.0.1:8080', concurrentUsers: '2' };
  const refusal = (typed: Record<string, string>) => {
    try {
      validate(startBody, startBodyFromForm({ ...form, ...typed }), 'form');
    } catch (err) {
      return (labelled(err, START_LABELS) as Error).message;
    }
    return 'accepted';
  };

  it('are text fields with examples, not numbers: a duration such as 10m can be typed', () => {
    const page = String(startForm('csrf', {}, PLAN_LIMITS.pro));
    for (const name of ['testDuration', 'rampUpTime']) {
      const field = new RegExp(`<input id="${name}" name="${name}" ([^>]*)>`).exec(page)![1]!;
      expect(field).toContain('type="text"');
      expect(field).toMatch(/placeholder="[^"]*\b\d+(s|m)\b/);
    }
  });

  it('are sent as typed and read as REST reads them: seconds or a duration', () => {
    for (const [duration, rampUp, seconds] of [
      ['90', '', [90, 10]], // (ramp-up left empty: its default)
      ['90s', '30s', [90, 30]],
      ['10m', '1m', [600, 60]],
      [' 1h ', '1m30s', [3600, 90]],
      ['20', '0', [20, 0]],
    ] as const) {
      const body = validate(
        startBody,
        startBodyFromForm({ ...form, testDuration: duration, rampUpTime: rampUp }),
        'form',
      );
      expect([body.testDuration, body.rampUpTime]).toEqual(seconds);
    }
  });

  it('refuse what is no duration, naming the field by its label', () => {
    expect(refusal({ testDuration: '10 minutes' })).toBe(
      'Duration: must be seconds or a duration such as 90, "90s", "10m" or "1h30m"',
    );
    expect(refusal({ testDuration: '10m', rampUpTime: 'soon' })).toBe(
      'Ramp-up: must be seconds or a duration such as 90, "90s", "10m" or "1h30m"',
    );
    expect(refusal({ testDuration: '5s' })).toBe('Duration: must be from 10 to 3600');
  });
});

describe('replayFormOf', () => {
  it("fills the start body's replay with the webhook and the filters a replay takes", () => {
    const form = replayFormOf({
      replay_webhook: 'abcdefghijklmnop',
      method: 'post',
      q: 'order',
      schema: 'valid',
      x: '1',
    });
    expect(JSON.parse(form.startBody!)).toEqual({
      replay: { webhook_id: 'abcdefghijklmnop', filter: { method: 'post', q: 'order' }, speed: 1 },
    });
    const body = startBodyFromForm({
      ...form,
      targetUrl: 'http://127.0.0.1:8080',
      concurrentUsers: '2',
      testDuration: '10',
    });
    const parsed = startBody.safeParse(body);
    expect(parsed.success, JSON.stringify(parsed.error?.issues)).toBe(true);
  });

  it('fills nothing without a webhook', () => {
    expect(replayFormOf({})).toEqual({});
    expect(replayFormOf({ replay_webhook: ['a', 'b'] })).toEqual({});
  });
});
