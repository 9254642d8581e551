// The load-test form filled from a webhook's page (api/dashboard/load-tests/load-test-form.ts: replayFormOf):
// its start body's replay names the webhook and the search's filters a replay takes, and the API's
// own schema takes it once the target and the users are filled in.
import { describe, expect, it } from 'vitest';
import { replayFormOf, startBodyFromForm } from '../../../../../api/dashboard/load-tests/load-test-form.ts';
import { startBody } from '../../../../../contract/load/load-test-start.ts';

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
