// The SSRF guard's refusal of a replay or forward target says what to do instead; other errors pass.
import { describe, expect, it } from 'vitest';
import { withTargetHint } from '../../../../../api/services/webhooks/webhook-target-hints.ts';
import { InvalidInputError } from '../../../../../lib/errors.ts';
import { ForbiddenAddressError } from '../../../../../lib/net/target-guard.ts';

describe('withTargetHint', () => {
  const refusal = new ForbiddenAddressError('target_url: target not allowed: 127.0.0.2 is loopback', 'target_url');

  it("adds the command line's way to a replay's refusal, keeping the guard's words, field and code", () => {
    const hinted = withTargetHint(refusal, { replay: { webhookId: 'wh_1', requestId: 42 } }) as ForbiddenAddressError;
    expect(hinted).toBeInstanceOf(ForbiddenAddressError);
    expect([hinted.code, hinted.status, hinted.field]).toEqual(['target_not_allowed', 400, 'target_url']);
    expect(hinted.message).toMatch(/^target_url: target not allowed: 127\.0\.0\.2 is loopback\. Instead: /);
    expect(hinted.message).toContain('`netops webhook replay wh_1 42 --to URL`');
    expect(hinted.message).toContain('NETWORK_ALLOW');
  });

  it("points a forward's refusal to listen, and leaves other errors alone", () => {
    const forward = new ForbiddenAddressError('forward_url: target not allowed: 10.0.0.1 is private', 'forward_url');
    expect((withTargetHint(forward, { forward: { webhookId: null } }) as Error).message).toContain(
      '`netops listen <webhook_id> --forward-to URL`',
    );
    const other = new InvalidInputError('target_url: "x" is not a valid URL', 'target_url');
    expect(withTargetHint(other, { replay: { webhookId: 'wh_1', requestId: 1 } })).toBe(other);
  });
});
