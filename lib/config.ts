// The one place configuration is read: the environment, checked by config-schema.ts (whose names are a
// contract with deployment tooling), becomes the frozen Config every process is given.
import path from 'node:path';
import { availableParallelism } from 'node:os';
import { isIP } from 'node:net';
import { envSchema, type Role } from './config-schema.ts';

export class ConfigError extends Error {
  override name = 'ConfigError';
}

export type Config = Readonly<{
  port: number;
  host: string;
  baseUrl: string;
  /**
   * Where capture URLs are printed (`{captureBaseUrl}/webhook/<id>`): BASE_URL unless CAPTURE_BASE_URL
   * gives them an origin of their own, where the service's cookies are never sent.
   */
  captureBaseUrl: string;
  dataDir: string;
  temporal: Readonly<{
    address: string | undefined;
    namespace: string;
    cli: string;
    devPort: number;
    uiPort: number;
  }>;
  databaseUrl: string | undefined;
  redisUrl: string | undefined;
  s3: Readonly<{ endpoint: string; accessKey: string; secretKey: string; bucket: string }> | undefined;
  role: Role;
  dnsServers: readonly string[] | undefined;
  whoisServer: string | undefined;
  rdapBaseUrl: string | undefined;
  networkAllow: readonly string[];
  /** Time each registry step (RDAP, WHOIS chain, DNS evidence) of a domain lookup may take. */
  lookupTimeoutMs: number;
  /**
   * Queries per second to one registry server (RDAP host or WHOIS server) from all processes together, and overrides by
   * server.
   */
  registryRate: Readonly<{ default: number; byServer: Readonly<Record<string, number>> }>;
  /** CIDRs of reverse proxies whose X-Forwarded-For names the client. */
  trustedProxies: readonly string[];
  payloadKey: string | undefined;
  logLevel: string;
  /** Bearer token for /metrics and /codec/decode; unset = those answer loopback clients only. */
  operatorToken: string | undefined;
  /** Private-use schemes OAuth redirect URIs may use beyond the built-in rules (OAUTH_REDIRECT_SCHEMES). */
  oauthRedirectSchemes: readonly string[];
  /** How long a client may take to send a request's headers, and the whole request (slow senders are cut off). */
  headersTimeoutMs: number;
  requestTimeoutMs: number;
  /** Connections one client address may hold open at once (trusted proxies are not counted). */
  maxConnectionsPerClient: number;
  /** Threads a load worker runs its shards on (default: one per core). */
  loadThreads: number;
  /** How long a load test waits for a load worker to take it before it fails. */
  loadWorkerWaitSeconds: number;
  /** Video jobs: the largest upload, how long the upload link lives, how long a result waits for its download. */
  video: Readonly<{
    maxBytes: number;
    uploadTtlSeconds: number;
    downloadTtlSeconds: number;
    /** Video jobs' steps (a copy and ffprobe, or ffmpeg) a media worker runs at once; the rest wait their turn. */
    jobsPerWorker: number;
  }>;
  /**
   * Load tests larger than `small` (more users, an unbounded or higher rate, or longer) need a target
   * whose host the caller has proven to control, when `required` (the default without NETWORK_ALLOW:
   * a public instance); a proof is trusted for `ttlSeconds`.
   */
  targetVerification: Readonly<{
    required: boolean;
    ttlSeconds: number;
    small: Readonly<{ users: number; rps: number; seconds: number }>;
  }>;
}>;

/** Reads and validates the environment. Throws ConfigError with one line naming the variable. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  // An empty variable means "unset", as in a docker-compose file with `FOO=`.
  const raw = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const parsed = envSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const name = String(issue.path[0] ?? 'configuration');
    const got = raw[name] === undefined ? '' : ` (got ${JSON.stringify(raw[name])})`;
    throw new ConfigError(`Invalid configuration: ${name} ${issue.message}${got}`);
  }
  const c = parsed.data;
  const hostForUrl = c.HOST === '0.0.0.0' || c.HOST === '::' ? '127.0.0.1' : c.HOST;
  const baseUrl = (c.BASE_URL ?? `http://${isIP(hostForUrl) === 6 ? `[${hostForUrl}]` : hostForUrl}:${c.PORT}`).replace(
    /\/+$/,
    '',
  );
  return Object.freeze({
    port: c.PORT,
    host: c.HOST,
    baseUrl,
    captureBaseUrl: (c.CAPTURE_BASE_URL ?? baseUrl).replace(/\/+$/, ''),
    dataDir: path.resolve(c.DATA_DIR),
    temporal: Object.freeze({
      address: c.TEMPORAL_ADDRESS,
      namespace: c.TEMPORAL_NAMESPACE,
      cli: c.TEMPORAL_CLI,
      devPort: c.TEMPORAL_DEV_PORT,
      uiPort: c.TEMPORAL_UI_PORT,
    }),
    databaseUrl: c.DATABASE_URL,
    redisUrl: c.REDIS_URL,
    s3: c.S3_ENDPOINT
      ? Object.freeze({
          endpoint: c.S3_ENDPOINT,
          accessKey: c.S3_ACCESS_KEY!,
          secretKey: c.S3_SECRET_KEY!,
          bucket: c.S3_BUCKET!,
        })
      : undefined,
    role: c.ROLE,
    dnsServers: c.DNS_SERVERS,
    whoisServer: c.WHOIS_SERVER,
    rdapBaseUrl: c.RDAP_BASE_URL,
    networkAllow: c.NETWORK_ALLOW,
    lookupTimeoutMs: c.LOOKUP_TIMEOUT_MS,
    registryRate: Object.freeze({ default: c.REGISTRY_RATE, byServer: Object.freeze(c.REGISTRY_RATES) }),
    trustedProxies: c.TRUSTED_PROXIES,
    payloadKey: c.PAYLOAD_KEY,
    logLevel: c.LOG_LEVEL,
    operatorToken: c.OPERATOR_TOKEN,
    oauthRedirectSchemes: Object.freeze([...new Set(c.OAUTH_REDIRECT_SCHEMES)]),
    headersTimeoutMs: c.HEADERS_TIMEOUT_MS,
    requestTimeoutMs: c.REQUEST_TIMEOUT_MS,
    maxConnectionsPerClient: c.MAX_CONNECTIONS_PER_CLIENT,
    loadThreads: c.LOAD_THREADS ?? availableParallelism(),
    loadWorkerWaitSeconds: c.LOAD_WORKER_WAIT_SECONDS,
    video: Object.freeze({
      maxBytes: c.VIDEO_MAX_BYTES,
      uploadTtlSeconds: c.VIDEO_UPLOAD_TTL_SECONDS,
      downloadTtlSeconds: c.VIDEO_DOWNLOAD_TTL_SECONDS,
      // ffmpeg runs threads of its own on every core: half the cores' worth of jobs keeps the machine's
      // other work (and each job's pace) from being crowded out.
      jobsPerWorker: c.VIDEO_JOBS_PER_WORKER ?? Math.max(1, Math.floor(availableParallelism() / 2)),
    }),
    targetVerification: Object.freeze({
      required: (c.TARGET_VERIFICATION ?? (c.NETWORK_ALLOW.length ? 'off' : 'required')) === 'required',
      ttlSeconds: c.TARGET_VERIFICATION_TTL_SECONDS,
      small: Object.freeze({
        users: c.TARGET_VERIFICATION_USERS,
        rps: c.TARGET_VERIFICATION_RPS,
        seconds: c.TARGET_VERIFICATION_SECONDS,
      }),
    }),
  });
}
