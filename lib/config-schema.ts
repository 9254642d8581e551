// The environment variables config.ts reads, with their types, bounds, defaults and the rules between them.
// Names are a contract with deployment tooling (ARCHITECTURE.md, "Configuration"): do not rename them.
import { MAX_WORKER_WAIT_SECONDS } from './jobs/load-test.ts';
import { isIP } from 'node:net';
import { z } from 'zod';
import { parseCidr } from './net/cidr.ts';

export const ROLES = ['all', 'api', 'worker:workflows', 'worker:network', 'worker:load', 'worker:media'] as const;
export type Role = (typeof ROLES)[number];

const port = (fallback: number) =>
  z.coerce
    .number({ error: 'must be a port number' })
    .int('must be a whole number')
    .min(0, 'must be from 0 to 65535')
    .max(65535, 'must be from 0 to 65535')
    .default(fallback);

const hostPort = z.string().refine((v) => parseHostPort(v) !== null, 'must be host:port');

// Resolvers are addresses: Node's resolver takes no names for them.
const ipPort = z.string().refine((v) => {
  const hp = parseHostPort(v);
  return hp !== null && isIP(hp.host) !== 0;
}, 'must be ip:port');

const httpUrl = z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' });

const cidr = z.string().refine((v) => parseCidr(v) !== null, 'must be a CIDR such as 127.0.0.0/8');

const commaList = (item: z.ZodType<string, string>) =>
  z
    .string()
    .transform((v) =>
      v
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean),
    )
    .pipe(z.array(item));

/** `host[:port]=rate` of REGISTRY_RATES, host lower-cased; null when malformed. */
function registryRate(v: string): [string, number] | null {
  const m = /^([a-z0-9.-]+(?::\d{1,5})?)=(\d+(?:\.\d+)?)$/i.exec(v);
  const rate = m ? Number(m[2]) : NaN;
  return m && rate >= 0.01 && rate <= 1000 ? [m[1]!.toLowerCase(), rate] : null;
}

/**
 * Schemes no OAuth redirect URI may use, whoever allows them (api/oauth/redirect-uris.ts and
 * OAUTH_REDIRECT_SCHEMES alike): they run script or show local data in the browser (javascript, data,
 * view-source, filesystem, ...), hand the URL to an operating-system handler that is no app's sign-in
 * (ms-msdt ran code in CVE-2022-30190; search-ms and shell open Explorer; mailto, tel, ...), or are no page
 * to return to (about, ws, wss). Windows' `ms-*`, `microsoft-*`/`.` and `windows-*`/`.`
 * handlers and Apple's `com.apple.*`/`x-apple*` are refused as families (they look like reverse-domain names).
 */
const REFUSED_REDIRECT_SCHEMES = new Set(
  [
    'javascript vbscript data blob file filesystem view-source about ws wss jar resource chrome chrome-extension',
    'moz-extension search-ms search shell hcp its mk res intent itms-services x-apple.systempreferences',
    'mailto tel sms callto smb ftp ldap telnet',
  ].flatMap((line) => line.split(' ')),
);
export function isRefusedRedirectScheme(scheme: string): boolean {
  const s = scheme.toLowerCase();
  return REFUSED_REDIRECT_SCHEMES.has(s) || /^(ms-|microsoft[-.]|windows[-.]|com\.apple\.|x-apple)/.test(s);
}

/** A scheme of OAUTH_REDIRECT_SCHEMES, lower-cased, a trailing colon dropped. */
const redirectScheme = z
  .string()
  .transform((v) => v.toLowerCase().replace(/:$/, ''))
  .superRefine((v, ctx) => {
    const fault = !/^[a-z][a-z0-9+.-]*$/.test(v)
      ? `must list URI schemes such as com.example.app: ${JSON.stringify(v)} is not one`
      : v === 'http' || v === 'https'
        ? `must not list ${v}: https is always accepted, http only on a loopback address`
        : isRefusedRedirectScheme(v)
          ? `must not list ${v}: it runs code, shows local data or opens a system handler, never an app's sign-in`
          : null;
    if (fault) ctx.addIssue({ code: 'custom', message: fault });
  });

const ms = (min: number, max: number, fallback: number) =>
  z.coerce
    .number({ error: 'must be a number of milliseconds' })
    .int('must be a whole number')
    .min(min, `must be from ${min} to ${max}`)
    .max(max, `must be from ${min} to ${max}`)
    .default(fallback);

const seconds = (min: number, max: number, fallback: number) =>
  z.coerce
    .number({ error: 'must be a number of seconds' })
    .int('must be a whole number')
    .min(min, `must be from ${min} to ${max}`)
    .max(max, `must be from ${min} to ${max}`)
    .default(fallback);

export const envSchema = z
  .object({
    PORT: port(3000),
    HOST: z.string().min(1).default('127.0.0.1'),
    BASE_URL: httpUrl.optional(),
    CAPTURE_BASE_URL: httpUrl
      .refine(
        (v) => URL.parse(v)?.pathname === '/' && !URL.parse(v)?.search,
        'must be an origin such as https://hooks.example.com (capture URLs are /webhook/<id> below it)',
      )
      .optional(),
    DATA_DIR: z.string().min(1).default('./.data'),
    TEMPORAL_ADDRESS: hostPort.optional(),
    TEMPORAL_NAMESPACE: z
      .string()
      .regex(/^[A-Za-z0-9._-]+$/, 'must be a namespace name')
      .default('default'),
    TEMPORAL_CLI: z.string().min(1).default('temporal'),
    TEMPORAL_DEV_PORT: port(7233),
    TEMPORAL_UI_PORT: port(8233),
    DATABASE_URL: z.url({ protocol: /^postgres(ql)?$/, error: 'must be a postgres:// URL' }).optional(),
    REDIS_URL: z.url({ protocol: /^rediss?$/, error: 'must be a redis:// URL' }).optional(),
    S3_ENDPOINT: httpUrl.optional(),
    S3_ACCESS_KEY: z.string().min(1).optional(),
    S3_SECRET_KEY: z.string().min(1).optional(),
    S3_BUCKET: z
      .string()
      .regex(/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/, 'must be a valid bucket name')
      .optional(),
    ROLE: z.enum(ROLES, { error: `must be one of ${ROLES.join(', ')}` }).default('all'),
    DNS_SERVERS: commaList(ipPort).optional(),
    WHOIS_SERVER: hostPort.optional(),
    RDAP_BASE_URL: httpUrl.optional(),
    NETWORK_ALLOW: commaList(cidr).default([]),
    LOOKUP_TIMEOUT_MS: z.coerce
      .number({ error: 'must be a number of milliseconds' })
      .int('must be a whole number')
      .min(100, 'must be from 100 to 60000')
      .max(60_000, 'must be from 100 to 60000')
      .default(5000),
    TRUSTED_PROXIES: commaList(cidr).default([]),
    REGISTRY_RATE: z.coerce
      .number({ error: 'must be a number of queries per second' })
      .min(0.01, 'must be from 0.01 to 1000')
      .max(1000, 'must be from 0.01 to 1000')
      .default(5),
    REGISTRY_RATES: commaList(
      z.string().refine((v) => registryRate(v) !== null, 'must be host=queries per second, e.g. whois.example.net=1'),
    )
      .transform((list) => Object.fromEntries(list.map((v) => registryRate(v)!)))
      .default({}),
    PAYLOAD_KEY: z
      .string()
      .refine((v) => Buffer.from(v, 'base64').length === 32, 'must be 32 bytes in base64')
      .optional(),
    LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
    OPERATOR_TOKEN: z.string().min(24, 'must be at least 24 characters (e.g. `openssl rand -base64 32`)').optional(),
    // Private-use redirect schemes OAuth clients may register beyond the built-in ones (api/oauth/redirect-uris.ts).
    OAUTH_REDIRECT_SCHEMES: commaList(redirectScheme).default([]),
    HEADERS_TIMEOUT_MS: ms(1000, 120_000, 10_000),
    REQUEST_TIMEOUT_MS: ms(1000, 600_000, 30_000),
    MAX_CONNECTIONS_PER_CLIENT: z.coerce
      .number({ error: 'must be a whole number' })
      .int('must be a whole number')
      .min(1, 'must be from 1 to 100000')
      .max(100_000, 'must be from 1 to 100000')
      .default(256),
    VIDEO_MAX_BYTES: z.coerce
      .number({ error: 'must be a number of bytes' })
      .int('must be a whole number')
      .min(1024, `must be from 1024 to ${300 * 1024 * 1024}`)
      .max(300 * 1024 * 1024, `must be from 1024 to ${300 * 1024 * 1024}`)
      .default(300 * 1024 * 1024),
    VIDEO_UPLOAD_TTL_SECONDS: seconds(5, 7 * 86_400, 3600),
    VIDEO_DOWNLOAD_TTL_SECONDS: seconds(5, 7 * 86_400, 86_400),
    VIDEO_JOBS_PER_WORKER: z.coerce
      .number({ error: 'must be a whole number' })
      .int('must be a whole number')
      .min(1, 'must be from 1 to 64')
      .max(64, 'must be from 1 to 64')
      .optional(),
    TARGET_VERIFICATION: z.enum(['required', 'off'], { error: 'must be required or off' }).optional(),
    TARGET_VERIFICATION_TTL_SECONDS: seconds(1, 3600, 3600),
    TARGET_VERIFICATION_USERS: z.coerce
      .number({ error: 'must be a whole number' })
      .int('must be a whole number')
      .min(0, 'must be from 0 to 10000')
      .max(10_000, 'must be from 0 to 10000')
      .default(50),
    TARGET_VERIFICATION_RPS: z.coerce
      .number({ error: 'must be a whole number' })
      .int('must be a whole number')
      .min(0, 'must be from 0 to 1000000')
      .max(1_000_000, 'must be from 0 to 1000000')
      .default(50),
    TARGET_VERIFICATION_SECONDS: seconds(0, 3600, 60),
    LOAD_WORKER_WAIT_SECONDS: seconds(1, MAX_WORKER_WAIT_SECONDS, 60),
    LOAD_THREADS: z.coerce
      .number({ error: 'must be a whole number' })
      .int('must be a whole number')
      .min(1, 'must be from 1 to 256')
      .max(256, 'must be from 1 to 256')
      .optional(),
  })
  .superRefine((c, ctx) => {
    if (c.HEADERS_TIMEOUT_MS > c.REQUEST_TIMEOUT_MS) {
      ctx.addIssue({
        code: 'custom',
        path: ['HEADERS_TIMEOUT_MS'],
        message: `must not exceed REQUEST_TIMEOUT_MS (${c.REQUEST_TIMEOUT_MS})`,
      });
    }
    if (c.TEMPORAL_ADDRESS && !c.PAYLOAD_KEY) {
      ctx.addIssue({
        code: 'custom',
        path: ['PAYLOAD_KEY'],
        message:
          'is required when TEMPORAL_ADDRESS is set: every process of the service must share it (32 bytes ' +
          'in base64, e.g. `openssl rand -base64 32`)',
      });
    }
    if (c.S3_ENDPOINT && !(c.S3_ACCESS_KEY && c.S3_SECRET_KEY && c.S3_BUCKET)) {
      for (const name of ['S3_ACCESS_KEY', 'S3_SECRET_KEY', 'S3_BUCKET'] as const) {
        if (!c[name]) ctx.addIssue({ code: 'custom', path: [name], message: 'is required when S3_ENDPOINT is set' });
      }
    }
  });

export function parseHostPort(value: string): { host: string; port: number } | null {
  const m = /^(?:\[([0-9a-fA-F:.]+)\]|([^:\s[\]]+)):(\d{1,5})$/.exec(value);
  if (!m) return null;
  const port = Number(m[3]);
  if (port < 1 || port > 65535) return null;
  return { host: (m[1] ?? m[2])!, port };
}
