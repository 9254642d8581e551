import { describe, expect, it } from 'vitest';
import { heartbeatsOf, reportPhaseMs } from '../../../../domain/load/shard.ts';

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

describe('heartbeatsOf', () => {
  it(
    'beats every interval (less half a tick) after the last beat, the first interval cut short by the shard ' +
      'number',
    () => {
      const beatsAt = (shard: number) => {
        const beats = heartbeatsOf(shard, 5000, 1000, 0);
        return Array.from({ length: 12 }, (_, k) => 500 + k * 1000).filter((tick) => beats.due(tick));
      };
      expect(beatsAt(0)).toEqual([4500, 9500]);
      expect(beatsAt(3)).toEqual([1500, 6500, 11_500]);
      expect(beatsAt(5)).toEqual([4500, 9500]); // shard 5 of a 5-tick interval: as shard 0
      // A test's shards spread their beats over the interval.
      expect(new Set(Array.from({ length: 5 }, (_, shard) => beatsAt(shard)[0])).size).toBe(5);
    },
  );

  it('beats at every tick when the interval is one tick', () => {
    const beats = heartbeatsOf(7, 1000, 1000, 0);
    expect([500, 1500, 2500].map((t) => beats.due(t))).toEqual([true, true, true]);
  });
});
