// Shard snapshots kept as checked, until their row is written again: a running test's status is read
// several times a second and most of its rows are as the last read found them (each is rewritten once
// a second). A read checks only the rows that changed, and a status poll (liveShards) is not even sent
// the snapshots of the rows its last poll was handed: it parsed each poll's 20 snapshots to throw most of
// them away (docs/benchmarks.md: what the API's thread keeps past a scavenge).
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

/** What a test's last live read was handed, by `shard/attempt`: the row's version and read mode, its snapshot. */
type Handed = Map<string, { version: string; snapshot: ShardSnapshot }>;

/**
 * The last live read of 32 tests of at most 64 shard attempts each (a test with more is read whole at
 * each poll; a plan's largest test has 20 shards): at most 2,048 snapshots beyond checkedSnapshots' own.
 */
const lastHanded = new RecentMap<string, Handed>(32);
const MAX_HANDED_ROWS = 64;

const rowName = (r: { shard: number; attempt: number }) => `${r.shard}/${r.attempt}`;
/** A row's version with its read mode: a row read with its phases is another row than one read without. */
const handedVersion = (r: StoredShard) => `${r.version}:${r.phased === true}`;

/**
 * A live read of a test's shards: `versions` (JSON, `{"shard/attempt": "xmin:phased"}`) names the rows
 * its last read was handed, whose snapshots the read leaves out when a row is still at that version and
 * read the same way (marking it `known`); `rows` gives the read's rows, those snapshots in place.
 */
export function liveShards(testId: string): {
  versions: string;
  rows: (stored: readonly StoredShard[]) => Array<ShardSnapshotRow<ShardSnapshot>>;
} {
  // The read is resolved against what this one named, whatever another poll of the test hands meanwhile.
  const handed = lastHanded.get(testId);
  const versions: Record<string, string> = {};
  for (const [name, { version }] of handed ?? []) versions[name] = version;
  return {
    versions: JSON.stringify(versions),
    rows(stored) {
      const now: Handed = new Map();
      const rows = stored.map((r) => {
        const was = r.known ? handed?.get(rowName(r)) : undefined;
        if (r.known && was?.version !== handedVersion(r))
          throw new Error(`a live read left out shard ${rowName(r)}, which it did not name`);
        const row = was ? shardRow(r, was.snapshot) : toShardRow(testId, r);
        now.set(rowName(r), { version: handedVersion(r), snapshot: row.snapshot });
        return row;
      });
      lastHanded.set(testId, stored.length <= MAX_HANDED_ROWS ? now : new Map());
      return rows;
    },
  };
}
