import type { Client } from '@temporalio/client';
import type { PayloadCodec } from '@temporalio/common';
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.ts';
import type { BlobStore } from '../lib/blob/index.ts';
import type { Config } from '../lib/config.ts';
import type { KvStore } from '../lib/kv/index.ts';
import type { Logger } from '../lib/log.ts';

/** What the API needs from the platform; built once at start, handed to every router. */
export interface ApiDeps {
  config: Config;
  logger: Logger;
  db: Kysely<Database>;
  /** Statements `db` can run at the same time (DatabaseHandle.parallelism). */
  dbParallelism: number;
  kv: KvStore;
  blobs: BlobStore;
  temporal: Client;
  /** The payload codec the workers use: /codec/decode serves it to operators. */
  codec: PayloadCodec;
  /** The Temporal UI (embedded mode), allowed to call /codec/decode from the browser. */
  temporalUiUrl: string | undefined;
}
