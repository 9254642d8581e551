// The credentials of long-lived requests are checked once per credential, however many requests hold
// it; a revocation found aborts every watch of it with the 401 to answer; a confirm starts its own check
// after the call (never one already under way), which the confirms made before it starts share; a
// check that fails, or a confirm's that does not answer in time, counts as live; and nothing is checked
// once nothing is followed.
import { afterEach, describe, expect, it } from 'vitest';
import { credentialChecks } from '../../../../lib/auth/credential-checks.ts';
import { UnauthorizedError } from '../../../../lib/errors.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const revoked = { message: 'The API key was revoked', challenge: 'Bearer realm="api/v1"' };

/** A credential's lookup that counts its calls, answers `holds` (or throws) and may be held open. */
function lookup() {
  const state = {
    holds: true,
    fails: false,
    calls: 0,
    gate: null as Promise<void> | null,
    live: async () => {
      state.calls++;
      const answer = state.holds; // what the lookup read, answered after `gate`
      if (state.gate) await state.gate;
      if (state.fails) throw new Error('database away');
      return answer;
    },
  };
  return state;
}

const stops: Array<() => void> = [];
afterEach(() => {
  for (const stop of stops.splice(0)) stop();
});

describe('credentialChecks', () => {
  it(
    'checks each credential once a round however many ' + 'requests hold it, and aborts them all when it is gone',
    async () => {
      const checks = credentialChecks({ everyMs: 30 });
      const key = lookup();
      const other = lookup();
      const watches = Array.from({ length: 5 }, () => checks.credential('api-key:1', key.live, revoked).watch());
      const unrelated = checks.credential('api-key:2', other.live, revoked).watch();
      stops.push(...watches.map((w) => w.stop), unrelated.stop);
      expect(checks.following).toBe(2);

      await sleep(100);
      expect(key.calls).toBeGreaterThanOrEqual(2);
      expect(key.calls).toBeLessThanOrEqual(4); // a round each, not one per watch
      expect(watches.some((w) => w.signal.aborted)).toBe(false);

      key.holds = false;
      await sleep(60);
      for (const w of watches) {
        expect(w.signal.aborted).toBe(true);
        expect(w.signal.reason).toBeInstanceOf(UnauthorizedError);
        expect((w.signal.reason as UnauthorizedError).message).toBe('The API key was revoked');
        expect((w.signal.reason as UnauthorizedError).headers['WWW-Authenticate']).toBe('Bearer realm="api/v1"');
        expect(await w.confirm()).toBe(false);
      }
      expect(unrelated.signal.aborted).toBe(false);
      expect(checks.following).toBe(1);
    },
  );

  it('confirms with a check that starts after the call, shared by the confirms made before it starts', async () => {
    const checks = credentialChecks({ everyMs: 60_000 });
    const key = lookup();
    const a = checks.credential('api-key:1', key.live, revoked).watch();
    const b = checks.credential('api-key:1', key.live, revoked).watch();
    stops.push(a.stop, b.stop);

    // Two confirms in the same turn: one lookup.
    expect(await Promise.all([a.confirm(), b.confirm()])).toEqual([true, true]);
    expect(key.calls).toBe(1);

    // A check under way when the key is revoked may answer "live": a confirm made after does not join it.
    let open = () => {};
    key.gate = new Promise((r) => (open = r));
    const early = a.confirm();
    await sleep(10);
    expect(key.calls).toBe(2);
    key.holds = false; // revoked while that check was under way (it has answered nothing yet)
    key.gate = null;
    const late = b.confirm();
    open();
    await early;
    expect(await late).toBe(false);
    expect(key.calls).toBe(3);
    expect(a.signal.aborted && b.signal.aborted).toBe(true);
  });

  it('counts a check that fails as live, and reports it', async () => {
    const failures: string[] = [];
    const checks = credentialChecks({ everyMs: 20, onCheckFailed: (_err, id) => failures.push(id) });
    const key = lookup();
    key.fails = true;
    const w = checks.credential('session:x', key.live, revoked).watch();
    stops.push(w.stop);
    await sleep(70);
    expect(w.signal.aborted).toBe(false);
    expect(await w.confirm()).toBe(true);
    expect(failures.length).toBeGreaterThanOrEqual(2);
    expect(new Set(failures)).toEqual(new Set(['session:x']));
  });

  it(
    'does not hold a confirm longer than its bound when the ' + 'lookup does not answer; the late answer still counts',
    async () => {
      const checks = credentialChecks({ everyMs: 60_000, confirmWaitMs: 50 });
      const key = lookup();
      let open = () => {};
      key.gate = new Promise((r) => (open = r));
      key.holds = false;
      const w = checks.credential('api-key:1', key.live, revoked).watch();
      stops.push(w.stop);
      const began = Date.now();
      expect(await w.confirm()).toBe(true); // the database stopped answering: counted as live
      expect(Date.now() - began).toBeLessThan(500);
      expect(w.signal.aborted).toBe(false);
      open();
      await sleep(10);
      expect(w.signal.aborted).toBe(true);
    },
  );

  it('stops checking a credential once the requests that held it ended', async () => {
    const checks = credentialChecks({ everyMs: 20 });
    const key = lookup();
    const w = checks.credential('oauth-grant:g', key.live, revoked).watch();
    await sleep(50);
    w.stop();
    w.stop(); // twice is once
    expect(checks.following).toBe(0);
    const calls = key.calls;
    await sleep(60);
    expect(key.calls).toBe(calls);
    // Watched again: followed again.
    const again = checks.credential('oauth-grant:g', key.live, revoked).watch();
    stops.push(again.stop);
    await sleep(50);
    expect(key.calls).toBeGreaterThan(calls);
  });
});
