import { describe, expect, it } from 'vitest';
import { decodeBody, ownersAnswerHeaders, queryObject } from '../../../api/capture.ts';

describe('capture formatting', () => {
  it('keeps UTF-8 text as text and an empty body as null', () => {
    expect(decodeBody(Buffer.from('héllo ✓'))).toEqual({ body: 'héllo ✓', encoding: 'utf8' });
    expect(decodeBody(Buffer.alloc(0))).toEqual({ body: null, encoding: 'utf8' });
  });

  it('keeps invalid UTF-8 and NUL bytes as base64', () => {
    const invalid = Buffer.from([0xc3, 0x28]);
    expect(decodeBody(invalid)).toEqual({ body: invalid.toString('base64'), encoding: 'base64' });
    const withNul = Buffer.from('a\u0000b');
    expect(decodeBody(withNul)).toEqual({ body: withNul.toString('base64'), encoding: 'base64' });
  });

  it('keeps as base64 a body that starts with a byte order mark (text readers drop it), only there', () => {
    for (const bom of [Buffer.from('\uFEFF{"a":1}'), Buffer.from([0xef, 0xbb, 0xbf])])
      expect(decodeBody(bom)).toEqual({ body: bom.toString('base64'), encoding: 'base64' });
    // Its first two bytes begin other characters too (U+FEC0), and a mark further in is text.
    for (const text of ['\uFEC0', 'a\uFEFF'])
      expect(decodeBody(Buffer.from(text))).toEqual({ body: text, encoding: 'utf8' });
  });

  it('turns repeated query names into arrays and keeps odd names as data', () => {
    const q = queryObject('a=1&a=2&b=&c=%E2%9C%93&__proto__=x');
    expect(JSON.stringify(q)).toBe('{"a":["1","2"],"b":"","c":"✓","__proto__":"x"}');
  });
});

describe("an owner's answer", () => {
  const base = { 'Access-Control-Allow-Origin': '*' };
  const originWide = {
    Location: 'https://example.com/next',
    'Content-Disposition': 'attachment; filename="a.txt"',
    'Strict-Transport-Security': 'max-age=0; includeSubDomains',
    NEL: '{"report_to":"x","max_age":86400,"success_fraction":1.0}',
    'Report-To': '{"group":"x","max_age":86400,"endpoints":[{"url":"https://collector.example/r"}]}',
    'Reporting-Endpoints': 'x="https://collector.example/r"',
    'Alt-Svc': 'h2="other.example:443"; ma=2592000',
    'WWW-Authenticate': 'Basic realm="sign in again"',
    'Set-Login': 'logged-out',
    'Origin-Agent-Cluster': '?0',
    'Accept-CH': 'Sec-CH-UA-Model',
    'Critical-CH': 'Sec-CH-UA-Model',
  };

  it("leaves out, on the service's origin, each header that acts on the whole origin; sends them on its own", () => {
    const shared = ownersAnswerHeaders({ ...originWide, 'X-Kept': '1' }, base, {
      ownOrigin: false,
      untypedBody: false,
    });
    expect(Object.keys(shared).sort()).toEqual(
      ['Access-Control-Allow-Origin', 'Content-Security-Policy', 'X-Content-Type-Options', 'X-Kept'].sort(),
    );
    const own = ownersAnswerHeaders(originWide, base, { ownOrigin: true, untypedBody: false });
    expect(own).toMatchObject(originWide);
  });

  it('never sends what an answer may not set, were it stored before it was refused, and keeps the sandbox', () => {
    const stored = {
      'content-security-policy': "script-src 'unsafe-inline'",
      'x-content-type-options': 'none',
      'Set-Cookie': 'a=1',
      'Clear-Site-Data': '"cookies"',
      'Service-Worker-Allowed': '/',
      'Access-Control-Allow-Credentials': 'true',
    };
    for (const ownOrigin of [false, true]) {
      const headers = ownersAnswerHeaders(stored, base, { ownOrigin, untypedBody: false });
      expect(headers).toEqual({
        'Access-Control-Allow-Origin': '*',
        'Content-Security-Policy': "sandbox; default-src 'none'",
        'X-Content-Type-Options': 'nosniff',
      });
    }
  });

  it("sends the owner's spelling of one of ours once, in place of ours, and types an untyped body as text", () => {
    const headers = ownersAnswerHeaders({ 'access-control-allow-origin': 'https://app.example' }, base, {
      ownOrigin: false,
      untypedBody: true,
    });
    expect(headers).toEqual({
      'Content-Type': 'text/plain; charset=utf-8',
      'access-control-allow-origin': 'https://app.example',
      'Content-Security-Policy': "sandbox; default-src 'none'",
      'X-Content-Type-Options': 'nosniff',
    });
    const typed = ownersAnswerHeaders({ 'content-type': 'text/html' }, base, { ownOrigin: false, untypedBody: true });
    expect(typed['content-type']).toBe('text/html');
    expect(typed['Content-Type']).toBeUndefined();
  });
});
