// Work cut into slices lets the event loop run between them, and maps every item in order.
import { describe, expect, it } from 'vitest';
import { mapInSlices } from '../../../../lib/concurrency/slices.ts';

describe('mapInSlices', () => {
  it('maps every item in order, letting the event loop run after each slice', async () => {
    const order: Array<number | string> = [];
    setImmediate(() => order.push('event loop'));
    const out = await mapInSlices([1, 2, 3, 4, 5], 2, (x) => {
      order.push(x);
      return x * 10;
    });
    expect(out).toEqual([10, 20, 30, 40, 50]);
    expect(order).toEqual([1, 2, 'event loop', 3, 4, 5]);
  });

  it('maps nothing for no items', async () => {
    expect(await mapInSlices([], 3, (x: number) => x)).toEqual([]);
  });
});
