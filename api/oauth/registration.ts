// Dynamic client registration (RFC 7591) of the authorization server (api/oauth/provider.ts): its limits,
// the checks of a client's metadata against them, and the throttle of registrations per client address.
import type { IncomingMessage } from 'node:http';
import type Provider from 'oidc-provider';
import { errors } from 'oidc-provider';
import type { KvStore } from '../../lib/kv/index.ts';
import { addressKey } from '../../lib/net/client-ip.ts';
import { isNativeRedirect, redirectFault } from './redirect-uris.ts';

/**
 * Dynamic client registration (RFC 7591, `POST /oauth/register`), documented in docs/mcp.md:
 * - `perAddress` registrations per client address (an IPv6 address counts as its /64) per `windowSeconds`
 *   (a fixed hour of the key-value store, aligned to the clock): 20 an hour. A client registers once per
 *   install, but some (the MCP Inspector, clients that keep no state) register on every connection, and
 *   several people may share one address; 20 an hour serves them while a loop that registered 200 clients
 *   in 1.6 s now gets 20. Every POST counts, refused ones too. Past it: `429`, `Retry-After`, and
 *   `{"error":"temporarily_unavailable","error_description":"..."}`.
 * - Sizes of the metadata (Client ID Metadata Documents are held to the same): `client_name` at most
 *   200 characters; at most 10 `redirect_uris`; any URI (redirect URIs, `client_uri`, `logo_uri`, ...,
 *   a metadata document's `client_id`) at most 1000 characters; any other string 200; any other list 10
 *   entries; `jwks` 8 KiB of JSON. Past them: `400` `invalid_redirect_uri` (redirect URIs) or
 *   `invalid_client_metadata`, the description naming the field. No string may hold a control
 *   character or one that turns the direction of text (U+202E, U+2066-2069, ...): the pages show them.
 * - A client with no grant is deleted `OAUTH_TTL.unusedClient` (24 h, api/oauth/provider.ts) after it registered.
 */
export const CLIENT_REGISTRATION_LIMITS = {
  perAddress: 20,
  windowSeconds: 3600,
  clientNameChars: 200,
  redirectUris: 10,
  uriChars: 1000,
  stringChars: 200,
  listEntries: 10,
  jwksChars: 8 * 1024,
} as const;

/** The redirect rules of api/oauth/redirect-uris.ts as configured, and which client is being built. */
export interface RedirectPolicy {
  /** OAUTH_REDIRECT_SCHEMES, lower case. */
  extraSchemes?: ReadonlySet<string>;
  /**
   * A client read back from the store, registered under earlier rules: a redirect URI the rules now refuse is
   * dropped from it rather than the client refused (its other redirects and its tokens keep working). An
   * authorization request for the dropped URI is then refused on an error page, never redirected to it; a
   * client left with none cannot be used at all.
   */
  stored?: boolean;
}

/**
 * The check of a client's metadata, run with its `redirect_uris` (oidc-provider's `extraClientMetadata`
 * validator) for every client built: registration, a metadata document, and a client read back from the store.
 */
export function checkClientMetadata(
  redirectUris: unknown,
  metadata: Record<string, unknown>,
  policy: RedirectPolicy = {},
): void {
  let uris = redirectUris;
  if (policy.stored && Array.isArray(uris)) {
    uris = uris.filter((uri) => redirectFault(String(uri), policy.extraSchemes) === null);
    metadata.redirect_uris = uris;
  }
  // A client stored before unseen characters were refused keeps working: the pages isolate its name.
  const unseen = policy.stored ? () => {} : refuseUnseen;
  checkRedirectUris(uris, policy.extraSchemes, unseen);
  checkMetadataSizes(metadata, unseen);
  // A client that returns to its own scheme or to a loopback port is a native app (RFC 8252),
  // whatever application_type it sent (Cursor sends "web" or nothing): oidc-provider then
  // accepts its scheme and any loopback port at authorization. PKCE binds the code to it.
  if (Array.isArray(uris) && uris.some((uri) => isNativeRedirect(String(uri)))) metadata.application_type = 'native';
}

/** Registrations per address (`POST` to `path`), before oidc-provider's own routing (its documented pre-middleware). */
export function throttleRegistrations(
  provider: Provider,
  deps: { kv: KvStore; clientIp: (req: IncomingMessage) => string; path: string },
): void {
  const { kv, clientIp, path } = deps;
  provider.use(async (ctx, next) => {
    if (ctx.method !== 'POST' || ctx.path.replace(/\/+$/, '') !== path) return next();
    const { windowSeconds, perAddress } = CLIENT_REGISTRATION_LIMITS;
    const quota = await kv.consume([
      { key: `oauth:register:addr:${addressKey(clientIp(ctx.req))}`, limit: perAddress, windowSeconds },
    ]);
    if (quota.allowed) return next();
    const wait = quota.windows[0]!.resetSeconds;
    ctx.status = 429;
    ctx.set('Retry-After', String(wait));
    ctx.set('Cache-Control', 'no-store');
    ctx.body = {
      error: 'temporarily_unavailable',
      error_description:
        `too many client registrations from this address (at most ${perAddress} an hour): ` +
        `try again in ${Math.ceil(wait / 60)} minute${wait > 60 ? 's' : ''}`,
    };
  });
}

/**
 * Redirect URIs by the rules of api/oauth/redirect-uris.ts (RFC 8252 for native apps): https; http on a
 * loopback address; a reverse-domain scheme, a known MCP client's callback or an operator's scheme. At most
 * `redirectUris` of them, each at most `uriChars` long.
 */
function checkRedirectUris(
  value: unknown,
  extraSchemes: ReadonlySet<string> | undefined,
  refuseUnseen: (field: string, text: string) => void,
): void {
  if (!Array.isArray(value)) return; // not a list: the library's own checks refuse it
  const { redirectUris, uriChars } = CLIENT_REGISTRATION_LIMITS;
  if (value.length > redirectUris)
    refuse(`redirect_uris: at most ${redirectUris} URIs (this list has ${value.length})`);
  for (const uri of value as unknown[]) {
    const text = String(uri);
    if (text.length > uriChars)
      refuse(`redirect_uris: each URI at most ${uriChars} characters (one has ${text.length})`);
    refuseUnseen('redirect_uris', text);
    const fault = redirectFault(text, extraSchemes);
    if (fault) refuse(`redirect_uris: ${JSON.stringify(text).slice(0, 200)} ${fault}`);
  }
}

/**
 * Control characters and those that turn the direction of text (U+202E and its kin): shown on the
 * sign-in and consent pages, a name or URI holding one could reorder the words around it ("[Unverified]",
 * the warning that the name is the client's own choice).
 */
const UNSEEN = /[\p{Cc}\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/u;

function refuseUnseen(field: string, text: string): void {
  const at = text.search(UNSEEN);
  if (at !== -1) {
    const code = text.codePointAt(at)!.toString(16).toUpperCase().padStart(4, '0');
    refuse(`${field}: must not hold control or text-direction characters (U+${code} at ${at})`);
  }
}

/** Every other field of the metadata within CLIENT_REGISTRATION_LIMITS (redirect URIs are checked above). */
function checkMetadataSizes(
  metadata: Record<string, unknown>,
  refuseUnseen: (field: string, text: string) => void,
): void {
  const { clientNameChars, uriChars, stringChars, listEntries, jwksChars } = CLIENT_REGISTRATION_LIMITS;
  const maxChars = (field: string) =>
    field === 'client_name'
      ? clientNameChars
      : field === 'client_id' || field.endsWith('_uri') || field.endsWith('_uris')
        ? uriChars
        : stringChars;
  for (const [field, value] of Object.entries(metadata)) {
    if (field === 'redirect_uris' || value === undefined || value === null) continue;
    if (typeof value === 'string') {
      if (value.length > maxChars(field))
        refuse(`${field}: at most ${maxChars(field)} characters (this one has ${value.length})`);
      refuseUnseen(field, value);
    } else if (Array.isArray(value)) {
      if (value.length > listEntries)
        refuse(`${field}: at most ${listEntries} entries (this list has ${value.length})`);
      for (const entry of value) {
        const length = typeof entry === 'string' ? entry.length : (JSON.stringify(entry) ?? '').length;
        if (length > maxChars(field))
          refuse(`${field}: each entry at most ${maxChars(field)} characters (one has ${length})`);
        if (typeof entry === 'string') refuseUnseen(field, entry);
      }
    } else if (typeof value === 'object') {
      const length = JSON.stringify(value).length;
      if (length > jwksChars) refuse(`${field}: at most ${jwksChars} characters of JSON (this one has ${length})`);
    }
  }
}

/**
 * RFC 7591 errors: `invalid_redirect_uri` when the description starts with `redirect_uris`, else
 * `invalid_client_metadata`.
 */
function refuse(description: string): never {
  throw new errors.InvalidClientMetadata(description);
}
