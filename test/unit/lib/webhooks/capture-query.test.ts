// A capture's query: as sent where it was kept, else rebuilt from its parsed pairs; its pairs as sent.
import { describe, expect, it } from 'vitest';
import { queryPairs, rebuiltQuery, sentQuery } from '../../../../lib/webhooks/capture-query.ts';

const PARSED = JSON.stringify({ q: ' space', empty: '', b: ['2', '1'], a: '1' });

describe("a capture's query", () => {
  it('is the query as sent when kept, a bare ? included; else rebuilt from its pairs; null without one', () => {
    expect(sentQuery({ queryString: 'q=%20space&empty=&b=2&a=1&b=1', queryParams: PARSED })).toBe(
      'q=%20space&empty=&b=2&a=1&b=1',
    );
    expect(sentQuery({ queryString: '', queryParams: null })).toBe('');
    expect(sentQuery({ queryString: null, queryParams: null })).toBeNull();
    // Stored before it was kept (null), or from a service that does not say (undefined): rebuilt.
    expect(sentQuery({ queryString: null, queryParams: PARSED })).toBe('q=+space&empty=&b=2&b=1&a=1');
    expect(sentQuery({ queryParams: PARSED })).toBe('q=+space&empty=&b=2&b=1&a=1');
    expect(rebuiltQuery(null)).toBeNull();
  });

  it('has its pairs in their order, spelled as sent', () => {
    expect(queryPairs('q=%20space&empty=&flag&&b=2&a=1&b=1&eq=a=b')).toEqual([
      { name: 'q', value: '%20space' },
      { name: 'empty', value: '' },
      { name: 'flag', value: '' },
      { name: 'b', value: '2' },
      { name: 'a', value: '1' },
      { name: 'b', value: '1' },
      { name: 'eq', value: 'a=b' },
    ]);
    expect(queryPairs('')).toEqual([]);
  });
});
