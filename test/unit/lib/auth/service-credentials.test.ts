// The service's own credentials out of a capture: its cookies in every form they take (prefixed,
// signed), its API keys and the access tokens its OAuth server signs; everything else a sender sent
// stays data.
import { describe, expect, it } from 'vitest';
import {
  isServiceCookie,
  stripServiceCredentials,
  withoutServiceCookies,
} from '../../../../lib/auth/service-credentials.ts';

const jwt = (claims: object) =>
  ['{"alg":"RS256"}', JSON.stringify(claims), 'sig'].map((p) => Buffer.from(p).toString('base64url')).join('.');

describe("the service's credentials", () => {
  it("knows the service's cookies by name, prefixed and signed, and no other", () => {
    for (const name of [
      'netops_session',
      '__Secure-netops_session',
      'netops_csrf',
      '__Host-netops_csrf',
      '_session',
      '_session.sig',
      '_session.legacy',
      '_interaction',
      '_interaction.sig',
      '_interaction_resume',
      ' _interaction_resume.sig',
    ])
      expect(isServiceCookie(name), name).toBe(true);
    for (const name of ['session', 'netops_sessionx', 'my_session', '__stripe_mid', 'sid', '_ga'])
      expect(isServiceCookie(name), name).toBe(false);
  });

  it("keeps a sender's other cookies as sent, in order", () => {
    expect(withoutServiceCookies('theme=dark; netops_session=abc; _session=s; _session.sig=t; cart=42')).toBe(
      'theme=dark; cart=42',
    );
    expect(withoutServiceCookies('netops_session=abc;netops_csrf=x')).toBeNull();
    expect(withoutServiceCookies('flag; a=b=c')).toBe('flag; a=b=c');
  });

  it('removes its API keys and its access tokens, and leaves other credentials a sender sent', () => {
    const issuer = 'https://tools.example';
    const headers: Record<string, string> = {
      cookie: '_interaction=1; sid=2',
      'x-api-key': 'ntk_abcdefghijklmnopqrstuvwxyz012345',
      authorization: `Bearer ${jwt({ iss: issuer, sub: '1' })}`,
      'x-other': 'ntk_kept-as-data',
    };
    stripServiceCredentials(headers, issuer);
    expect(headers).toEqual({ cookie: 'sid=2', 'x-other': 'ntk_kept-as-data' });

    const theirs: Record<string, string> = {
      'x-api-key': 'sk_live_partner',
      authorization: `Bearer ${jwt({ iss: 'https://partner.example' })}`,
    };
    stripServiceCredentials(theirs, issuer);
    expect(theirs).toEqual({
      'x-api-key': 'sk_live_partner',
      authorization: `Bearer ${jwt({ iss: 'https://partner.example' })}`,
    });
    const key: Record<string, string> = { authorization: 'bearer ntk_abc', cookie: 'netops_session=1' };
    stripServiceCredentials(key, issuer);
    expect(key).toEqual({});
  });
});
