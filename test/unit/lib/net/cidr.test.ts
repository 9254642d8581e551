import { describe, expect, it } from 'vitest';
import { parseCidr } from '../../../../lib/net/cidr.ts';

describe('parseCidr', () => {
  it('reads an address and a prefix that fits its family', () => {
    expect(parseCidr('10.0.0.0/8')).toEqual({ address: '10.0.0.0', prefix: 8, family: 4 });
    expect(parseCidr('::1/128')).toEqual({ address: '::1', prefix: 128, family: 6 });
  });

  it.each(['10.0.0.0/33', '::/129', '10.0.0.0', '10.0.0.0/8/8', 'example.com/8', '10.0.0.0/-1', '10.0.0.0/08a', '/8'])(
    'refuses %s',
    (value) => {
      expect(parseCidr(value)).toBeNull();
    },
  );
});
