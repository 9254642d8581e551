// The live stream of captures sends a capture that committed after a later one (out of order), once.
import { describe, expect, it } from 'vitest';
import { webhookService } from '../../api/services/webhooks.ts';

describe('requestsStream', () => {
  it('sends late commits with lower ids, and never the same capture twice', async () => {
    const stored: Array<{ id: number }> = [];
    const views = webhookService({} as never, 'https://x.test');
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

  it('resumes after a Last-Event-ID: nothing at or below it, late commits above it still sent, event ids the highest sent', async () => {
    const stored: Array<{ id: number }> = [{ id: 100 }, { id: 101 }];
    const views = webhookService({} as never, 'https://x.test');
    const fake = { requests: async (_u: number, _w: string, afterId: number) => ({ total: 0, requests: stored.filter((r) => r.id > afterId).sort((a, b) => b.id - a.id) }) };
    const tick = views.requestsStream.call(fake as never, 1, 'hook', 101);
    const next = async () => {
      const e = (await tick()).events[0] as { id?: string; data: { data: { requests: Array<{ id: number }> } } } | undefined;
      return e && { id: e.id, ids: e.data.data.requests.map((r) => r.id) };
    };
    expect(await next()).toEqual({ id: '101', ids: [] }); // the first event: nothing after 101 yet
    stored.push({ id: 104 });
    expect(await next()).toEqual({ id: '104', ids: [104] });
    stored.push({ id: 99 }, { id: 103 }); // 99 is at or below the resume point: never sent; 103 committed late
    expect(await next()).toEqual({ id: '104', ids: [103] });
    expect(await next()).toBeUndefined();
  });
});
