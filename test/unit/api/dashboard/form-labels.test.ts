// A dashboard form's refusal names the field by its label on the form, not by the API's name for it.
import { describe, expect, it } from 'vitest';
import { formRefusal, labelled } from '../../../../api/dashboard/form-labels.ts';
import { START_LABELS, startBodyFromForm } from '../../../../api/dashboard/load-tests/load-test-form.ts';
import { WEBHOOK_FORM_LABELS, settingsFromForm } from '../../../../api/dashboard/webhooks/webhook-settings.ts';
import { startBody } from '../../../../contract/load/load-test-start.ts';
import { replayBody, searchQuery, updateBody } from '../../../../contract/webhooks/webhooks.ts';
import { fieldsOf, validate } from '../../../../contract/validate.ts';
import {
  DependencyUnavailableError,
  InvalidInputError,
  PlanLimitError,
  RateLimitedError,
} from '../../../../lib/errors.ts';

const refusal = (run: () => unknown): Error => {
  try {
    run();
  } catch (err) {
    return err as Error;
  }
  throw new Error('accepted');
};

describe('form labels', () => {
  const form = {
    targetUrl: 'http://127.0.0.1:9/',
    httpMethod: 'GET',
    concurrentUsers: '3',
    testDuration: '10',
    rampUpTime: '20',
  };

  it("names the load-test form's fields by their labels, keeping the field and the code", () => {
    const err = labelled(
      refusal(() => validate(startBody, startBodyFromForm(form), 'form')),
      START_LABELS,
    ) as InvalidInputError;
    expect(err.message).toBe('Ramp-up: must not exceed testDuration');
    expect(err.field).toBe('rampUpTime');
    expect(err.code).toBe('invalid_input');
    expect(
      labelled(
        refusal(() =>
          validate(startBody, startBodyFromForm({ ...form, rampUpTime: '0', concurrentUsers: '0' }), 'form'),
        ),
        START_LABELS,
      ).message,
    ).toMatch(/^Concurrent users: /);
  });

  it('sends HTTP/2 with its users per connection, and names a refusal by the form’s label', () => {
    const h2 = { ...form, rampUpTime: '0', httpVersion: '2', streamsPerConnection: '10' };
    expect(validate(startBody, startBodyFromForm(h2), 'form')).toMatchObject({
      httpVersion: '2',
      http2: { streamsPerConnection: 10 },
    });
    expect(
      labelled(
        refusal(() => validate(startBody, startBodyFromForm({ ...h2, streamsPerConnection: '2000' }), 'form')),
        START_LABELS,
      ).message,
    ).toBe('HTTP/2: users per connection (streamsPerConnection): must be from 1 to 1000');
    expect(startBodyFromForm({ ...h2, httpVersion: '1.1' })).not.toHaveProperty('http2');
  });

  it('names a nested field by the label of the part it sits in', () => {
    const webhook = {
      response: null,
      forward_url: null,
      signature: null,
      retention: { max_requests: 100, max_age_days: 7 },
    } as never;
    const err = labelled(
      refusal(() => settingsFromForm({ status: '700', body: '' }, webhook, 'abcdefghijklmnopqrstuv')),
      WEBHOOK_FORM_LABELS,
    );
    expect(err.message).toMatch(/^Status: /);
    expect(
      labelled(
        new InvalidInputError('response.headers.X Y: must be a header name', 'response.headers.X Y'),
        WEBHOOK_FORM_LABELS,
      ).message,
    ).toBe('Headers (X Y): must be a header name');
  });

  it('leaves alone what names no labelled field first, and keeps a refused target a refused target', () => {
    const other = new InvalidInputError('Headers: "x" is not "Name: value"', 'headers');
    expect(labelled(other, START_LABELS)).toBe(other);
    expect(labelled(new Error('boom'), START_LABELS).message).toBe('boom');
    const target = labelled(
      new InvalidInputError('targetUrl: target not allowed', 'targetUrl', 'target_not_allowed'),
      START_LABELS,
    ) as InvalidInputError;
    expect([target.message, target.code]).toEqual(['Target URL: target not allowed', 'target_not_allowed']);
  });

  it('labels only fields the API knows (a renamed field would leave its label behind)', () => {
    expect(Object.keys(START_LABELS).filter((k) => k !== 'startBody' && !fieldsOf(startBody).includes(k))).toEqual([]);
    const webhookFields = [...fieldsOf(updateBody), ...fieldsOf(searchQuery), ...fieldsOf(replayBody)];
    expect(Object.keys(WEBHOOK_FORM_LABELS).filter((k) => !webhookFields.includes(k.split('.')[0]!))).toEqual([]);
  });
});

describe('form refusals', () => {
  it("shows the caller's mistakes on the form, labelled, and throws anything else on", () => {
    const set: Array<Record<string, string>> = [];
    const ctx = { set: (headers: Record<string, string>) => set.push(headers) };
    const bad = new InvalidInputError('rampUpTime: must not exceed testDuration', 'rampUpTime');
    expect(formRefusal(ctx, bad, START_LABELS).message).toBe('Ramp-up: must not exceed testDuration');
    const limit = new PlanLimitError('At most 2 concurrent load tests on your plan');
    expect(formRefusal(ctx, limit, START_LABELS)).toBe(limit);
    const away = new DependencyUnavailableError('blobs', new Error('ECONNREFUSED'));
    expect(() => formRefusal(ctx, away, START_LABELS)).toThrow(away);
    const bug = new TypeError('boom');
    expect(() => formRefusal(ctx, bug, START_LABELS)).toThrow(bug);
  });

  it("answers a refusal with its headers, a 429's Retry-After as the API sends it", () => {
    const set: Array<Record<string, string>> = [];
    const busy = new RateLimitedError('At most 2 load tests start at once: retry after 10 s', 10);
    expect(formRefusal({ set: (h) => set.push(h) }, busy, START_LABELS)).toBe(busy);
    expect(set).toEqual([{ 'Retry-After': '10' }]);
  });
});
