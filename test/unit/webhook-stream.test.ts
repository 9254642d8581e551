// The live stream of captures sends a capture that committed after a later one (out of order), once.
import { describe, expect, it } from 'vitest';
import { webhookViews } from '../../api/webhook-views.ts';

describe('requestsStream', () => {
  it('sends late commits with lower ids, and never the same capture twice', async () => {
    const stored: Array<{ id: number }> = [];
    const views = webhookViews({} as never, 'https://x.test');
    const fake = { requests: async (_u: number, _w: string, afterId: number) => {
      const requests = stored.filter((r) => r.id > afterId).sort((a, b) => b.id - a.id);
      return { total: requests.length, requests };
    } };
    const tick = views.requestsStream.call(fake as never, 1, 'hook');
    const ids = async () => ((await tick()).events[0]?.data as { data: { requests: Array<{ id: number }> } } | undefined)?.data.requests.map((r) => r.id) ?? [];

    expect(await ids()).toEqual([]); // the first event, empty
    stored.push({ id: 102 }); // batch B commits first
    expect(await ids()).toEqual([102]);
    stored.push({ id: 101 }, { id: 103 }); // batch A's row, committed later, and a new one
    expect(await ids()).toEqual([103, 101]);
    expect(await ids()).toEqual([]); // nothing new: no event
  });
});
