import { describe, expect, it } from 'vitest';
import { reportPhaseMs } from '../../../../domain/load/shard.ts';

describe('reportPhaseMs', () => {
  it('spreads the shards of a test evenly over the report interval', () => {
    const phases = Array.from({ length: 4 }, (_, shard) => reportPhaseMs(shard, 4, 1000));
    expect(phases).toEqual([0, 250, 500, 750]);
  });

  it('gives every shard of a large test its own moment, all within the interval', () => {
    const phases = Array.from({ length: 1000 }, (_, shard) => reportPhaseMs(shard, 1000, 1000));
    expect(new Set(phases).size).toBe(1000);
    expect(Math.min(...phases)).toBe(0);
    expect(Math.max(...phases)).toBe(999);
  });

  it('reports at once for a lone shard, or when the shard count is not known', () => {
    expect(reportPhaseMs(0, 1, 1000)).toBe(0);
    expect(reportPhaseMs(3, undefined, 1000)).toBe(0);
  });
});
