// A scenario's requests: each step's placeholders filled with the values earlier steps captured, on
// the target's origin whatever a value names.
import { describe, expect, it } from 'vitest';
import { Scenario } from '../../../../domain/load/scenario.ts';
import type { RequestSpec } from '../../../../domain/load/http/request.ts';

const target = new URL('http://target.example:8080/start');
const step = (path: string) => ({ method: 'GET', path, headers: { authorization: 'Bearer {{token}}' }, capture: {} });
const scenario = (path: string) => new Scenario<RequestSpec>(target, [step(path)], (spec) => spec);

describe('a scenario step', () => {
  it("fills its path and headers with the user's values", () => {
    const sent = scenario('/orders/{{id}}?page={{page}}').request({
      step: 0,
      values: { id: '42', page: '2', token: 't\r\n' },
    });
    expect(sent.url.href).toBe('http://target.example:8080/orders/42?page=2');
    expect(sent.headers).toEqual({ authorization: 'Bearer t' });
  });

  it("keeps a value's path and query on the target's origin when the value names another origin", () => {
    for (const next of ['//other.example/x?y=1', 'https://other.example/x?y=1', 'http://target.example:9090/x?y=1']) {
      const sent = scenario('{{next}}').request({ step: 0, values: { next, token: '' } });
      expect(sent.url.href, next).toBe('http://target.example:8080/x?y=1');
    }
    // A path that starts with // (or a backslash) once on another origin still names no host.
    for (const [next, path] of [
      ['https://other.example//evil.example/x?y=1', '//evil.example/x?y=1'],
      ['http://other.example/\\evil.example/x', '//evil.example/x'],
    ]) {
      const sent = scenario('{{next}}').request({ step: 0, values: { next: next!, token: '' } });
      expect(sent.url.host, next).toBe('target.example:8080');
      expect(`${sent.url.pathname}${sent.url.search}`, next).toBe(path);
    }
    const same = scenario('{{next}}').request({
      step: 0,
      values: { next: 'http://target.example:8080/x?y=1', token: '' },
    });
    expect(same.url.href).toBe('http://target.example:8080/x?y=1');
  });
});
