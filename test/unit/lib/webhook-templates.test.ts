// Placeholders: the names a rule's body may use, refused when unknown, and a filled body's bound.
import { describe, expect, it } from 'vitest';
import { compileTemplate, MAX_FILLED_BODY, RuleRequest, templateProblem } from '../../../lib/webhook-templates.ts';

const request = (text: string | null) => new RuleRequest({ method: 'PUT', path: '/', search: '', headers: {}, text });

describe('webhook templates', () => {
  it('knows its placeholders and names what it does not know', () => {
    expect(
      templateProblem(
        '{{request.method}} {{ request.path }} {{request.query.a}} {{request.header.X}} {{request.body}} {{request.body./a/0}} {{uuid}} {{now}}',
      ),
    ).toBeNull();
    expect(templateProblem('{{request.ip}}')).toMatch(/\{\{request\.ip\}\} is not a placeholder \(there are /);
    expect(templateProblem('{{request.body.a}}')).toMatch(/pointer must be a JSON Pointer/);
    expect(templateProblem('{{request.body.}}')).toMatch(/must not be empty/);
    expect(templateProblem('no {placeholders} here {{')).toBeNull();
  });

  it('writes a value that is not a string as JSON, and nothing for what the request lacks', () => {
    const t = compileTemplate('{{request.body./a}}-{{request.body./b}}-{{request.body./c}}', false);
    expect(t.fill(request('{"a":[1,{"x":true}],"b":null}'))).toBe('[1,{"x":true}]-null-');
    expect(t.fill(request('not json'))).toBe('--');
  });

  it('cuts a filled body at its bound', () => {
    const t = compileTemplate('{{request.body}}{{request.body}}{{request.body}}', false);
    const filled = t.fill(request('x'.repeat(MAX_FILLED_BODY / 2 + 10)));
    expect(filled.length).toBe(MAX_FILLED_BODY);
  });
});
