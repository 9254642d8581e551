// Kysely's view of the tables. Nullable columns are `T | null`; ids the database assigns are Generated.
// bigint columns arrive as strings from `pg` and as numbers from PGlite: read them through Number().
// JSON columns are written as JSON text and read as their shapes, checked by db/json-columns.ts.
import type { ShardSnapshot } from '../lib/load/snapshot.ts';
import type { ColumnType, Generated, JSONColumnType } from 'kysely';
import type { FinalResults, LoadTestConfig, LoadTestStatus, ReplayRequest } from '../lib/jobs/load-test.ts';
import type { Plan } from '../lib/plans.ts';
import type { ResponseRule } from '../lib/webhooks/webhook-rules.ts';

/** Written by the database when omitted; read back as a Date. */
type CreatedAt = ColumnType<Date, Date | string | undefined, Date | string>;
type Timestamp = ColumnType<Date, Date | string, Date | string>;
type BigId = string | number;

export type { Plan, ResponseRule };

export interface UsersTable {
  id: Generated<BigId>;
  email: string;
  plan: Plan;
  /** scrypt hash (lib/auth/passwords.ts); null for users who only use API keys. */
  password_hash: ColumnType<string | null, string | null | undefined, string | null>;
  created_at: CreatedAt;
}

export interface ApiKeysTable {
  id: Generated<BigId>;
  user_id: string | number;
  /** SHA-256 of the key, hex. The key itself is never stored. */
  key_hash: string;
  /** The first characters of the key, so a user can tell keys apart. */
  prefix: string;
  name: string | null;
  created_at: CreatedAt;
  revoked_at: Timestamp | null;
}

export interface WebhooksTable {
  id: Generated<BigId>;
  /** The public, unguessable id in the capture URL. */
  webhook_id: string;
  user_id: string | number;
  created_at: CreatedAt;
  /** What captures are answered with (WebhookResponse), or null for the default JSON. */
  response: JSONColumnType<WebhookResponse | null, string | null, string | null>;
  /** The ordered response rules (the first whose match holds answers), or null for none. */
  rules: JSONColumnType<ResponseRule[] | null, string | null, string | null>;
  /** The JSON Schema (draft 2020-12) its captures' bodies are checked against, or null for none. */
  json_schema: JSONColumnType<JsonSchema | null, string | null, string | null>;
  /** How captures' signatures are checked (the secret sealed), or null. */
  signature: JSONColumnType<WebhookSignature | null, string | null, string | null>;
  /** Where captures are passed on (checked by the SSRF guard when set and at each delivery), or null. */
  forward_url: string | null;
  /** How many captures, and for how long, this webhook keeps; null: its owner's plan's defaults. */
  retention: JSONColumnType<WebhookRetention | null, string | null, string | null>;
  /** No delivery of this webhook's captures at or below this id is pending (capture-deliveries.ts). */
  delivery_floor: ColumnType<string | number, never, string | number>;
}

/** A JSON Schema object as its owner gave it. */
export type JsonSchema = Record<string, unknown>;

/** What a webhook keeps: its newest `max_requests` captures, none older than `max_age_days`. */
export interface WebhookRetention {
  max_requests: number;
  max_age_days: number;
}

/** One try at passing a capture on. */
export interface DeliveryAttempt {
  attempt: number;
  at: string;
  /** The receiver's status, null when it did not answer (`error` says why). */
  response_status: number | null;
  duration_ms: number;
  error: string | null;
}

/** A capture's delivery to its webhook's forward URL: `pending` until a 2xx (`success`) or the last try (`failed`). */
export interface CaptureDelivery {
  status: 'pending' | 'success' | 'failed';
  attempts: number;
  response_status: number | null;
  duration_ms: number | null;
  /** While pending after a failed attempt: when the next one is due (ISO time). */
  next_attempt_at: string | null;
  /** Every attempt, oldest first. */
  history: DeliveryAttempt[];
}

/** A webhook's signature check: the scheme, the header (hmac-sha256), the sealed secret. */
export interface WebhookSignature {
  scheme: string;
  header: string;
  sealed_secret: string;
}

/** A webhook's answer to its senders, set by its owner. */
export interface WebhookResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
  delay_ms: number;
}

/** A capture's query parsed: each name's value, or its values in order when repeated. */
export type QueryParams = Record<string, string | string[]>;

export interface CapturedRequestsTable {
  id: Generated<BigId>;
  webhook_ref: string | number;
  method: string;
  path: string;
  headers: JSONColumnType<Record<string, string>>;
  body: string | null;
  body_encoding: 'utf8' | 'base64';
  body_size: number;
  /** The query's pairs (a repeated name gives a list); written as JSON text. */
  query_params: JSONColumnType<QueryParams | null, string | null, string | null>;
  ip_address: string;
  user_agent: string;
  created_at: CreatedAt;
  /** The index of the webhook's response rule that answered it; null when none did. */
  matched_rule: ColumnType<number | null, never, never>;
  /** Its query as sent, without the `?` (null: none, or stored by a process of the release before it was kept). */
  query_string: ColumnType<string | null, never, never>;
  /** The status it was answered with; null for captures stored before it was recorded. */
  answered_status: ColumnType<number | null, never, never>;
  /** Its delivery to the webhook's forward URL; null when the webhook did not forward it. */
  delivery: JSONColumnType<CaptureDelivery | null, string | null, string | null>;
  /** Its body's verdict against the webhook's JSON Schema (the one of `hash`); null: not checked yet. */
  schema_check: JSONColumnType<StoredSchemaCheck | null, string | null, string | null>;
}

/**
 * A body's verdict against a JSON Schema, kept with the hash of the schema it was checked against:
 * `valid` null when it could not be (the check ran past its budget), `error` saying why.
 */
export interface StoredSchemaCheck {
  hash: string;
  valid: boolean | null;
  errors: Array<{ path: string; message: string }>;
  error?: string;
}

// Defined with the load test job (lib/jobs/, below db/ in the layers); the column stores it.
export type { LoadTestStatus };

export interface LoadTestsTable {
  /** The public test_id. */
  id: string;
  user_id: string | number;
  status: LoadTestStatus;
  config: JSONColumnType<LoadTestConfig>;
  stop_requested: ColumnType<boolean, boolean | undefined, boolean>;
  failure_reason: string | null;
  results: JSONColumnType<FinalResults | null, string | null, string | null>;
  /** Each metrics output's state (LoadOutputState, null for those that send nothing); null without outputs. */
  outputs: ColumnType<unknown, string | null | undefined, string | null>;
  /** The addresses its target resolved to at its start, where verification compares them (null: not kept). */
  target_addresses: ColumnType<string[] | null, readonly string[] | null | undefined, never>;
  created_at: CreatedAt;
  started_at: Timestamp | null;
  completed_at: Timestamp | null;
}

export interface LoadTestShardsTable {
  test_id: string;
  shard: number;
  attempt: number;
  /** Without its phases, which are in `phases` (null: none stored yet). */
  snapshot: JSONColumnType<ShardSnapshot>;
  phases: JSONColumnType<NonNullable<ShardSnapshot['phases']> | null, string | null, string | null>;
  final: ColumnType<boolean, boolean | undefined, boolean>;
  updated_at: CreatedAt;
}

/** What each shard attempt had sent, counted a few times a second (db/load/load-test-shards.ts: shardSentCounts). */
export interface LoadTestSentTable {
  test_id: string;
  shard: number;
  attempt: number;
  sent: number;
  /** Epoch ms. */
  counted_at: number;
}

/** Each shard report's seconds (SecondFigures[] as JSON text): appended, never rewritten. */
export interface LoadTestSecondsTable {
  test_id: string;
  shard: number;
  attempt: number;
  /** The report's number within its attempt: a report stored twice (a retried write) is kept once. */
  seq: number;
  /** The latest second it holds (a live series reads only the rows that reach its next second). */
  last_second: number;
  seconds: string;
}

/** A replaying test's sequence while it runs (written as JSON text). */
export interface LoadTestReplaysTable {
  test_id: string;
  requests: JSONColumnType<ReplayRequest[], string, string>;
}

/** An OAuth record as oidc-provider stores it: its own open shape, with the fields the store indexes. */
export type OauthPayload = Record<string, unknown> & {
  grantId?: string;
  userCode?: string;
  uid?: string;
  accountId?: string;
  consumed?: number;
};

/** One record of the OAuth authorization server: a client, grant, code, token, session, ... by kind. */
export interface OauthRecordsTable {
  kind: string;
  id: string;
  payload: JSONColumnType<OauthPayload>;
  grant_id: string | null;
  user_code: string | null;
  uid: string | null;
  account_id: string | null;
  expires_at: Timestamp | null;
  consumed_at: Timestamp | null;
}

export interface ServerSecretsTable {
  name: string;
  value: string;
  created_at: Generated<Timestamp>;
}

export interface OauthGrantUseTable {
  grant_id: string;
  first_used_at: Timestamp;
  last_used_at: Timestamp;
}

export interface Database {
  users: UsersTable;
  api_keys: ApiKeysTable;
  webhooks: WebhooksTable;
  captured_requests: CapturedRequestsTable;
  load_tests: LoadTestsTable;
  load_test_shards: LoadTestShardsTable;
  load_test_seconds: LoadTestSecondsTable;
  load_test_sent: LoadTestSentTable;
  load_test_replays: LoadTestReplaysTable;
  oauth_records: OauthRecordsTable;
  server_secrets: ServerSecretsTable;
  oauth_grant_use: OauthGrantUseTable;
}
