// At most n holders at once, the rest served in the order they came; a waiter that gives up leaves the
// line without taking a turn from anyone; a turn given back twice counts once.
import { describe, expect, it } from 'vitest';
import { Turns } from '../../../../lib/concurrency/turns.ts';

const settled = () => new Promise((resolve) => setImmediate(resolve));

describe('Turns', () => {
  it('lets n hold at once and the others in, in order, as turns come back', async () => {
    const turns = new Turns(2);
    const order: string[] = [];
    const [a, b] = [await turns.take(), await turns.take()];
    const waiting = ['c', 'd', 'e'].map(async (name) => {
      const give = await turns.take();
      order.push(name);
      return give;
    });
    await settled();
    expect(order).toEqual([]);
    expect(turns.waiting).toBe(3);
    a();
    a(); // given back again: nothing more
    await settled();
    expect(order).toEqual(['c']);
    b();
    await settled();
    expect(order).toEqual(['c', 'd']);
    (await waiting[0]!)();
    await settled();
    expect(order).toEqual(['c', 'd', 'e']);
    for (const give of await Promise.all(waiting)) give();
    // All given back: two at once again, not more.
    await turns.take();
    await turns.take();
    let third = false;
    void turns.take().then(() => (third = true));
    await settled();
    expect(third).toBe(false);
  });

  it('drops a waiter whose signal aborts, and refuses one already aborted', async () => {
    const turns = new Turns(1);
    const first = await turns.take();
    const quitting = new AbortController();
    const quitter = turns.take(quitting.signal);
    let nextGot = false;
    const next = turns.take().then((give) => {
      nextGot = true;
      return give;
    });
    quitting.abort(new Error('cancelled'));
    await expect(quitter).rejects.toThrow('cancelled');
    expect(turns.waiting).toBe(1);
    first();
    await settled();
    expect(nextGot).toBe(true);
    (await next)();
    await expect(turns.take(AbortSignal.abort(new Error('gone')))).rejects.toThrow('gone');
    // A holder's signal aborting later does not give its turn back.
    const holding = new AbortController();
    await turns.take(holding.signal);
    holding.abort();
    let after = false;
    void turns.take().then(() => (after = true));
    await settled();
    expect(after).toBe(false);
  });

  it('needs at least one at once', () => {
    expect(() => new Turns(0)).toThrow(RangeError);
  });
});
