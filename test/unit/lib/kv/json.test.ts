// JSON values in the key-value store read through their shape: a value of its shape is given back,
// one that is not JSON or not of the shape reads as absent with a warning that names what it was (and
// not its key, which may hold a secret), never a crash.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { getJson, MemoryKvStore } from '../../../../lib/kv/index.ts';

const session = z.object({ userId: z.number() });

describe('getJson', () => {
  const kv = new MemoryKvStore();
  const warnings: Error[] = [];
  const onWarning = (w: Error) => warnings.push(w);
  beforeEach(() => {
    warnings.length = 0;
    process.on('warning', onWarning);
  });
  afterEach(() => {
    process.off('warning', onWarning);
  });
  /** The warnings emitted so far, once emitted (process.emitWarning tells listeners on the next tick). */
  const told = async () => {
    await new Promise((resolve) => setImmediate(resolve));
    return warnings.map((w) => w.message);
  };

  it('gives a value of its shape back, and null for none, without a warning', async () => {
    await kv.set('session:good', JSON.stringify({ userId: 7 }));
    expect(await getJson(kv, 'session:good', session, 'dashboard session')).toEqual({ userId: 7 });
    expect(await getJson(kv, 'session:none', session, 'dashboard session')).toBeNull();
    expect(await told()).toEqual([]);
  });

  it('reads a value that is not JSON as absent, with a warning naming what it was, not its key', async () => {
    await kv.set('session:secret-token', '{"userId": 7');
    expect(await getJson(kv, 'session:secret-token', session, 'dashboard session')).toBeNull();
    const messages = await told();
    expect(messages).toEqual([expect.stringMatching(/^a stored dashboard session is not JSON: read as absent/)]);
    expect(messages.join()).not.toContain('secret-token');
  });

  it('reads a value of another shape as absent, with a warning saying what is wrong', async () => {
    await kv.set('session:old', JSON.stringify({ user: 'seven' }));
    expect(await getJson(kv, 'session:old', session, 'dashboard session')).toBeNull();
    expect(await told()).toEqual([
      expect.stringMatching(/^a stored dashboard session does not hold its shape, read as absent: .*userId/s),
    ]);
    expect(warnings[0]?.name).toBe('Warning');
  });
});
