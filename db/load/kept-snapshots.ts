// Shard snapshots kept as checked, until their row is written again: a running test's status is read
// several times a second and most of its rows are as the last read found them (each is rewritten once
// a second). A read checks only the rows that changed, and a status poll (liveShards) is not even sent
// the snapshots of the rows its last poll was handed: parsing 20 snapshots a poll to throw most of them
// away was an eighth of what the API's thread promoted to its old generation during a test
// (docs/benchmarks.md).
import type { ShardSnapshot } from '../../lib/load/snapshot.ts';
import type { ShardSnapshotRow } from '../../lib/jobs/load-test.ts';
import { RecentMap } from '../../lib/cache/recent-map.ts';
import { deepFreeze } from '../../lib/cache/deep-freeze.ts';
import { readJsonColumn, readNullableJsonColumn } from '../json-columns.ts';
import { shardPhasesColumn, shardSnapshotColumn } from './load-test-columns.ts';

/** A row of load_test_shards as read. */
export interface StoredShard {
  shard: number;
  attempt: number;
  /** The row's version (its xmin as text): every write of the row changes it. */
  version: string;
  /** Null in a live read when the row is at the version its last read was handed (liveShards). */
  snapshot: unknown;
  phases: unknown;
  final: boolean;
  /** load_test_sent's count of the attempt (absent or null: none). */
  sent?: number | null;
  counted_at?: number | null;
  /** In a live read: whether the read was sent the row's phases (its test's thresholds name one). */
  phased?: boolean;
  /** In a live read: the snapshot and phases were left out, the row being at the version given. */
  known?: boolean;
}

/**
 * Snapshots as checked, by test, shard attempt and whether read with phases. Readers share the
 * snapshot kept, frozen. 1,024 rows (a snapshot's histogram is a few KB): 50 tests of 20 shards, or
 * fewer read with and without their phases.
 */
const checkedSnapshots = new RecentMap<string, { version: string; snapshot: ShardSnapshot }>(1024);

const keyOf = (testId: string, r: StoredShard) =>
  `${testId}/${r.shard}/${r.attempt}/${r.phases == null ? 'totals' : 'phases'}`;

export function toShardRow(testId: string, r: StoredShard): ShardSnapshotRow<ShardSnapshot> {
  const key = keyOf(testId, r);
  let kept = checkedSnapshots.get(key);
  if (kept?.version !== r.version) {
    kept = { version: r.version, snapshot: checkedSnapshot(r) };
    checkedSnapshots.set(key, kept);
  }
  return shardRow(r, kept.snapshot);
}

function shardRow(r: StoredShard, snapshot: ShardSnapshot): ShardSnapshotRow<ShardSnapshot> {
  return {
    shard: r.shard,
    attempt: r.attempt,
    snapshot,
    final: r.final,
    ...(r.sent != null && r.counted_at != null
      ? { sent: { sent: Number(r.sent), countedAt: Number(r.counted_at) } }
      : {}),
  };
}

/** A row's snapshot (with its phases when read) checked against its columns' shapes, frozen. */
function checkedSnapshot(r: StoredShard): ShardSnapshot {
  const phases = readNullableJsonColumn('load_test_shards.phases', shardPhasesColumn, r.phases);
  return deepFreeze({
    ...readJsonColumn('load_test_shards.snapshot', shardSnapshotColumn, r.snapshot),
    ...(phases && { phases }),
  });
}

/** What a test's last live read was handed, by `shard/attempt`: the row's version, read how, kept where. */
type Handed = Map<string, { version: string; phased: boolean; key: string }>;

/** The last live read of 64 tests at most (a few dozen bytes a row; the snapshots stay in checkedSnapshots). */
const lastHanded = new RecentMap<string, Handed>(64);

const rowName = (r: { shard: number; attempt: number }) => `${r.shard}/${r.attempt}`;

/**
 * A live read of a test's shards: `versions` (JSON, `{"shard/attempt": version}`) names the rows whose
 * snapshots the read may leave out (marking them `known`), those its last read was handed; `rows` gives
 * the read's rows with the kept snapshots in place, or null when one of them is no longer kept (read
 * again without versions).
 */
export function liveShards(testId: string): {
  versions: string;
  rows: (stored: readonly StoredShard[]) => Array<ShardSnapshotRow<ShardSnapshot>> | null;
} {
  const handed = lastHanded.get(testId);
  const versions: Record<string, string> = {};
  for (const [name, { version }] of handed ?? []) versions[name] = version;
  return {
    versions: JSON.stringify(versions),
    rows(stored) {
      const rows: Array<ShardSnapshotRow<ShardSnapshot>> = [];
      const now: Handed = new Map();
      for (const r of stored) {
        let row: ShardSnapshotRow<ShardSnapshot>;
        let key: string;
        if (r.known) {
          const was = handed?.get(rowName(r));
          const kept = was && checkedSnapshots.get(was.key);
          if (!was || was.version !== r.version || was.phased !== r.phased || kept?.version !== r.version) return null;
          row = shardRow(r, kept.snapshot);
          key = was.key;
        } else {
          row = toShardRow(testId, r);
          key = keyOf(testId, r);
        }
        rows.push(row);
        now.set(rowName(r), { version: r.version, phased: r.phased ?? false, key });
      }
      lastHanded.set(testId, now);
      return rows;
    },
  };
}
