// The service's own credentials out of a capture: its cookies in every form they take (prefixed,
// signed), its API keys and the access tokens its OAuth server signs; everything else a sender sent
// stays data.
import { describe, expect, it } from 'vitest';
import {
  isServiceCookie,
  stripServiceCredentials,
  withoutServiceCookies,
} from '../../../../lib/auth/service-credentials.ts';
import { headerObject } from '../../../../lib/net/header-object.ts';

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

  it("judges each value of a header sent twice, keeping the sender's other values as sent", () => {
    const issuer = 'https://tools.example';
    const token = jwt({ iss: issuer, sub: '1' });
    // Node joins a repeated header's values with ", " (lib/net/header-object.ts): each is judged on its own.
    const twice = headerObject(['Authorization', 'Bearer ntk_AAAA', 'authorization', 'Bearer ntk_BBBB']);
    Object.assign(twice, headerObject(['X-Api-Key', '', 'x-api-key', 'ntk_AAAA']));
    expect(twice).toEqual({ authorization: 'Bearer ntk_AAAA, Bearer ntk_BBBB', 'x-api-key': ', ntk_AAAA' });
    stripServiceCredentials(twice, issuer);
    expect(twice).toEqual({});
    const mixed: Record<string, string> = {
      authorization: `Basic dXNlcjpwYXNz, Bearer ${token}`,
      'x-api-key': 'sk_partner, ntk_AAAA',
    };
    stripServiceCredentials(mixed, issuer);
    expect(mixed).toEqual({ authorization: 'Basic dXNlcjpwYXNz', 'x-api-key': 'sk_partner' });
    // Nothing of the service's: the header stays to the letter, commas and spaces as sent.
    const digest = 'Digest username="u",realm="r", nonce="n"';
    const theirs: Record<string, string> = { authorization: digest, 'x-api-key': 'a,b' };
    stripServiceCredentials(theirs, issuer);
    expect(theirs).toEqual({ authorization: digest, 'x-api-key': 'a,b' });
  });
});
