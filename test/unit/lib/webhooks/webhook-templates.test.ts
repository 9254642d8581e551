// Placeholders: the names a rule's body may use, refused when unknown, and a filled body's bound;
// a body nested past MAX_JSON_DEPTH is no JSON to them.
import { describe, expect, it } from 'vitest';
import { MAX_JSON_DEPTH } from '../../../../lib/webhooks/json-pointer.ts';
import { MAX_RESPONSE_BODY_BYTES } from '../../../../contract/webhooks/webhook-settings.ts';
import {
  compileTemplate,
  MAX_FILLED_BODY,
  RuleRequest,
  templateProblem,
} from '../../../../lib/webhooks/webhook-templates.ts';

const request = (text: string | null) => new RuleRequest({ method: 'PUT', path: '/', search: '', headers: {}, text });

describe('webhook templates', () => {
  it('knows its placeholders and names what it does not know', () => {
    expect(
      templateProblem(
        '{{request.method}} {{ request.path }} {{request.query.a}} {{request.header.X}} {{request.body}} ' +
          '{{request.body./a/0}} {{uuid}} {{now}}',
      ),
    ).toBeNull();
    expect(templateProblem('{{request.ip}}')).toMatch(/\{\{request\.ip\}\} is not a placeholder \(there are /);
    expect(templateProblem('{{request.body.a}}')).toMatch(/pointer must be a JSON Pointer/);
    expect(templateProblem('{{request.body.}}')).toMatch(/must not be empty/);
    expect(templateProblem('no {placeholders} here {{')).toBeNull();
  });

  it('reads a body of the largest size whatever it holds: no placeholder search that backtracks', () => {
    // A run of spaces after {{ took the old expression time cubic in its length (days for this one).
    const body = `{{${' '.repeat(MAX_RESPONSE_BODY_BYTES - 2)}`;
    expect(templateProblem(body)).toBeNull();
    expect(compileTemplate(body, true).fill(request(null))).toBe(body);
    expect(templateProblem(`{{${' '.repeat(1000)}request.method${' '.repeat(1000)}}}`)).toBeNull();
    expect(compileTemplate('{{\t request.method \n}}!', false).fill(request(null))).toBe('PUT!');
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

  it('fills a value as far as the bound, however often it is named, and JSON-escapes only that far', () => {
    // A value whose JSON is longer than the bound, named 2,000 times.
    const body = JSON.stringify({ a: Array.from({ length: 200_000 }, (_, i) => `v${i}`) });
    const filled = compileTemplate('{{request.body./a}}'.repeat(2_000), true).fill(request(body));
    expect(filled).toBe(JSON.stringify(JSON.parse(body).a).slice(0, MAX_FILLED_BODY));
    // A string of control characters, six characters each once escaped: the first 1 Mi characters of that.
    const escaped = compileTemplate('{{request.body./s}}', true).fill(
      request(JSON.stringify({ s: '\u0001'.repeat(500_000) })),
    );
    expect(escaped).toBe('\\u0001'.repeat(MAX_FILLED_BODY / 6 + 1).slice(0, MAX_FILLED_BODY));
  });

  it('takes a body nested deeper than MAX_JSON_DEPTH as no JSON', () => {
    const nested = (depth: number) => `${'['.repeat(depth)}1${']'.repeat(depth)}`;
    const t = compileTemplate('<{{request.body./0}}>', false);
    expect(t.fill(request(nested(MAX_JSON_DEPTH)))).toBe(`<${nested(MAX_JSON_DEPTH - 1)}>`);
    expect(t.fill(request(nested(MAX_JSON_DEPTH + 1)))).toBe('<>');
    // The whole text is still the body's.
    expect(compileTemplate('{{request.body}}', false).fill(request(nested(MAX_JSON_DEPTH + 1)))).toBe(
      nested(MAX_JSON_DEPTH + 1),
    );
  });
});
