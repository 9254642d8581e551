import { describe, expect, it } from 'vitest';
import { parseSetCookie } from '../../../../domain/http-headers/cookies.ts';

describe('HTTP header analysis', () => {
  it('reads cookie attributes and prefix rules', () => {
    expect(parseSetCookie('id=1; Secure; HttpOnly; SameSite=strict', true)).toMatchObject({
      secure: true,
      httponly: true,
      samesite: 'Strict',
      score: 10,
      issues: [],
    });
    expect(parseSetCookie('x=1; SameSite=None; HttpOnly', true).issues).toContain(
      'SameSite=None without Secure: browsers reject this cookie',
    );
    expect(
      parseSetCookie('__Host-x=1; Secure; HttpOnly; SameSite=Lax; Domain=example.com; Path=/', true).issues,
    ).toContain('__Host- prefix requires Path=/ and no Domain');
  });
});
