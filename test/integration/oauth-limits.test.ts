// Abuse limits of sign-in and client registration (issue 17), seen from several client addresses:
// every request here leaves from an address of its own on 127.0.0.0/8 (the socket's local address),
// which the service, trusting no proxy, takes as the client address. Addresses are random per run, so
// counts kept in Redis by an earlier run (the external target) never meet these.
import { randomUUID } from 'node:crypto';
import type http from 'node:http';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { CLIENT_REGISTRATION_LIMITS } from '../../api/oauth/registration.ts';
import { SIGN_IN_LIMITS } from '../../api/pages/sign-in.ts';
import { FormBrowser, type Page } from '../../scripts/oauth-forms.ts';
import { freshWindow, targets } from '../support/client.ts';
import { authorizeUrl, newUser, PASSWORD, requestFrom, someAddress } from '../support/mcp.ts';

/** Registers a client (RFC 7591) from `from`. */
async function register(
  target: { baseUrl: string },
  from: string,
  metadata: Record<string, unknown>,
): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: any }> {
  const reply = await requestFrom(from, `${target.baseUrl}/oauth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(metadata),
  });
  return { status: reply.status, headers: reply.headers, body: JSON.parse(reply.text || 'null') };
}

const clientMetadata = (overrides: Record<string, unknown> = {}) => ({
  client_name: 'Limits test',
  redirect_uris: ['http://127.0.0.1:8979/cb'],
  token_endpoint_auth_method: 'none',
  grant_types: ['authorization_code'],
  response_types: ['code'],
  ...overrides,
});

/** A browser at one client address: every request it sends leaves from `address`. */
class BrowserAt extends FormBrowser {
  readonly address: string;
  constructor(address: string) {
    super({
      send: async (url, init) => {
        const reply = await requestFrom(address, url, {
          method: init.method,
          headers: init.headers as Record<string, string>,
          body: init.body as string | undefined,
        });
        const headers = new Headers();
        for (const [name, value] of Object.entries(reply.headers))
          for (const v of [value ?? []].flat()) headers.append(name, v);
        const empty = reply.status === 204 || reply.status === 304;
        return new Response(empty ? null : reply.text, { status: reply.status, headers });
      },
    });
    this.address = address;
  }
}

for (const target of targets()) {
  describe(`sign-in and registration limits (${target.name})`, () => {
    const dashboardSignIn = async (browser: BrowserAt, email: string, password: string): Promise<Page> => {
      const form = (await browser.get(`${target.baseUrl}/dashboard/sign-in`)) as Page;
      return (await browser.submit(form, /\/dashboard\/sign-in/, { email, password })) as Page;
    };

    /** The OAuth sign-in page of a new authorization request of a client registered from the browser's address. */
    const oauthSignInPage = async (browser: BrowserAt): Promise<Page> => {
      const redirectUri = 'http://127.0.0.1:8979/cb';
      const reg = await register(
        target,
        browser.address,
        clientMetadata({ client_name: 'Limits test app', redirect_uris: [redirectUri] }),
      );
      expect(reg.status, JSON.stringify(reg.body)).toBe(201);
      const authorize = authorizeUrl(target.baseUrl, { clientId: reg.body.client_id, redirectUri, state: 's' });
      const page = (await browser.get(authorize)) as Page;
      expect(page.html).toContain('name="password"');
      return page;
    };

    let user: { email: string };
    beforeAll(async () => {
      user = await newUser(target);
    });
    // The limits count in fixed windows aligned to the clock (a quarter hour, an hour): a test that
    // straddled a window's end would see its counts start again halfway. Each starts well inside one.
    beforeEach(async () => {
      await freshWindow(30, [SIGN_IN_LIMITS.windowSeconds, CLIENT_REGISTRATION_LIMITS.windowSeconds]);
    });

    it(
      'ten wrong passwords for an email from one address lock out that address only: the right password ' +
        'signs in from another, on the dashboard and the OAuth page',
      async () => {
        const victim = await newUser(target);
        const attacker = new BrowserAt(someAddress());
        for (let attempt = 1; attempt <= SIGN_IN_LIMITS.failuresPerEmailAndAddress; attempt++) {
          const page = await dashboardSignIn(attacker, victim.email, `wrong password ${attempt}`);
          expect(page.status, `attempt ${attempt}`).toBe(401);
          expect(page.html).toContain('Wrong email or password');
        }
        // From the guessing address, even the right password is refused now (as before this change).
        const refused = await dashboardSignIn(attacker, victim.email, PASSWORD);
        expect(refused.status).toBe(429);
        expect(refused.html).toMatch(/Too many sign-in attempts: try again in \d+ minutes?/);

        // The owner, from elsewhere: the dashboard signs in...
        const owner = new BrowserAt(someAddress());
        const signedIn = await dashboardSignIn(owner, victim.email, PASSWORD);
        expect(signedIn.url).toBe(`${target.baseUrl}/dashboard/keys`);
        // ...and so does the OAuth sign-in page, up to the consent page.
        const elsewhere = new BrowserAt(someAddress());
        const consent = (await elsewhere.submit(await oauthSignInPage(elsewhere), /\/login$/, {
          email: victim.email,
          password: PASSWORD,
        })) as Page;
        expect(consent.status).toBe(200);
        expect(consent.html).toContain('Allow access?');
      },
    );

    it(
      'one address is stopped after 30 failures across many emails, on both sign-in pages; other addresses ' +
        'are not',
      async () => {
        const sprayer = new BrowserAt(someAddress());
        const form = (await sprayer.get(`${target.baseUrl}/dashboard/sign-in`)) as Page;
        for (let attempt = 1; attempt <= SIGN_IN_LIMITS.failuresPerAddress; attempt++) {
          // A real account every fifth time (6 in all), other emails once each: below the limit per
          // (email, address), so only the address limit can stop it.
          const page = (await sprayer.submit(form, /\/dashboard\/sign-in/, {
            email: attempt % 5 === 0 ? user.email : `spray-${randomUUID()}@example.test`,
            password: `guess ${attempt}`,
          })) as Page;
          expect(page.status, `attempt ${attempt}`).toBe(401);
        }
        // The next attempt from there is refused whatever the email and password, on the dashboard...
        const refused = (await sprayer.submit(form, /\/dashboard\/sign-in/, {
          email: `fresh-${randomUUID()}@example.test`,
          password: PASSWORD,
        })) as Page;
        expect(refused.status).toBe(429);
        expect(refused.html).toMatch(/Too many sign-in attempts: try again in \d+ minutes?/);
        // ...and on the OAuth sign-in page (the same limits), for a real account with its right password.
        const oauthRefused = (await sprayer.submit(await oauthSignInPage(sprayer), /\/login$/, {
          email: user.email,
          password: PASSWORD,
        })) as Page;
        expect(oauthRefused.status).toBe(429);
        expect(oauthRefused.html).toMatch(/Too many sign-in attempts: try again in \d+ minutes?/);
        expect(oauthRefused.html).toContain('name="password"'); // the sign-in form again, with the message

        // Another address signs the same user in.
        const signedIn = await dashboardSignIn(new BrowserAt(someAddress()), user.email, PASSWORD);
        expect(signedIn.url).toBe(`${target.baseUrl}/dashboard/keys`);
      },
    );

    it('successful sign-ins do not use up an address: many in a row from one address all succeed', async () => {
      const office = new BrowserAt(someAddress());
      for (let i = 0; i < SIGN_IN_LIMITS.failuresPerEmailAndAddress + 2; i++) {
        const page = await dashboardSignIn(office, user.email, PASSWORD);
        expect(page.url, `sign-in ${i + 1}`).toBe(`${target.baseUrl}/dashboard/keys`);
      }
      // Its failures are still limited as usual.
      for (let attempt = 1; attempt <= SIGN_IN_LIMITS.failuresPerEmailAndAddress; attempt++)
        expect((await dashboardSignIn(office, user.email, `wrong ${attempt}`)).status).toBe(401);
      expect((await dashboardSignIn(office, user.email, PASSWORD)).status).toBe(429);
    });

    it(
      `throttles client registration to ${CLIENT_REGISTRATION_LIMITS.perAddress} an hour per address, not ` +
        `other addresses`,
      async () => {
        const busy = someAddress();
        const results = [];
        for (let i = 0; i < CLIENT_REGISTRATION_LIMITS.perAddress; i++)
          results.push(await register(target, busy, clientMetadata({ client_name: `Registration ${i}` })));
        expect(results.map((r) => r.status)).toEqual(results.map(() => 201));
        const refused = await register(target, busy, clientMetadata());
        expect(refused.status).toBe(429);
        expect(refused.body.error).toBe('temporarily_unavailable');
        expect(refused.body.error_description).toMatch(/too many client registrations .*try again in \d+ minutes?/);
        expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
        expect(Number(refused.headers['retry-after'])).toBeLessThanOrEqual(CLIENT_REGISTRATION_LIMITS.windowSeconds);

        const other = await register(target, someAddress(), clientMetadata());
        expect(other.status, JSON.stringify(other.body)).toBe(201);
      },
    );

    it(
      'refuses oversized client metadata with the RFC 7591 ' + 'error naming the field, and accepts it at the limits',
      async () => {
        const { clientNameChars, redirectUris, uriChars, stringChars, listEntries } = CLIENT_REGISTRATION_LIMITS;
        // Each from an address of its own, so this test never meets the registration rate limit.
        const refusal = async (metadata: Record<string, unknown>) => {
          const reply = await register(target, someAddress(), clientMetadata(metadata));
          expect(reply.status, JSON.stringify(reply.body).slice(0, 300)).toBe(400);
          return reply.body as { error: string; error_description: string };
        };

        const longName = await refusal({ client_name: 'n'.repeat(40 * 1024) });
        expect(longName.error).toBe('invalid_client_metadata');
        expect(longName.error_description).toContain('client_name');
        expect(longName.error_description).toContain(String(clientNameChars));

        const manyUris = await refusal({
          redirect_uris: Array.from({ length: 50 }, (_, i) => `http://127.0.0.1:8979/cb/${i}`),
        });
        expect(manyUris.error).toBe('invalid_redirect_uri');
        expect(manyUris.error_description).toContain('redirect_uris');
        expect(manyUris.error_description).toContain(String(redirectUris));

        const longUri = await refusal({ redirect_uris: [`https://app.example/${'p'.repeat(uriChars)}`] });
        expect(longUri.error).toBe('invalid_redirect_uri');
        expect(longUri.error_description).toContain('redirect_uris');

        const longLogo = await refusal({ logo_uri: `https://app.example/${'l'.repeat(uriChars)}.png` });
        expect(longLogo.error).toBe('invalid_client_metadata');
        expect(longLogo.error_description).toContain('logo_uri');

        const manyContacts = await refusal({
          contacts: Array.from({ length: listEntries + 1 }, (_, i) => `c${i}@example.test`),
        });
        expect(manyContacts.error).toBe('invalid_client_metadata');
        expect(manyContacts.error_description).toContain('contacts');

        const longScope = await refusal({ scope: Array.from({ length: stringChars }, () => 'mcp:read').join(' ') });
        expect(longScope.error).toBe('invalid_client_metadata');
        expect(longScope.error_description).toContain('scope');

        // At the limits: accepted.
        const atLimits = await register(
          target,
          someAddress(),
          clientMetadata({
            client_name: 'n'.repeat(clientNameChars),
            redirect_uris: Array.from({ length: redirectUris }, (_, i) =>
              `https://app.example/${i}/${'p'.repeat(uriChars)}`.slice(0, uriChars),
            ),
          }),
        );
        expect(atLimits.status, JSON.stringify(atLimits.body).slice(0, 300)).toBe(201);
        expect(atLimits.body.client_name).toHaveLength(clientNameChars);
      },
    );
  });
}
