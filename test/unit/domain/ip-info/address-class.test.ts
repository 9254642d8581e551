import { describe, expect, it } from 'vitest';
import { classifyAddress } from '../../../../domain/ip-info/address-class.ts';

describe('ip-info building blocks', () => {
  it('classifies addresses', () => {
    expect(classifyAddress('8.8.8.8')).toEqual({ version: 4, addressClass: 'public' });
    expect(classifyAddress('192.168.1.1')).toEqual({ version: 4, addressClass: 'private' });
    expect(classifyAddress('127.0.0.1')).toEqual({ version: 4, addressClass: 'loopback' });
    expect(classifyAddress('169.254.1.1')).toEqual({ version: 4, addressClass: 'link-local' });
    expect(classifyAddress('100.64.0.1')).toEqual({ version: 4, addressClass: 'shared' });
    expect(classifyAddress('239.1.1.1')).toEqual({ version: 4, addressClass: 'multicast' });
    expect(classifyAddress('::1')).toEqual({ version: 6, addressClass: 'loopback' });
    expect(classifyAddress('fd00::1')).toEqual({ version: 6, addressClass: 'private' });
    expect(classifyAddress('2001:db8::1')).toEqual({ version: 6, addressClass: 'documentation' });
    expect(classifyAddress('2606:4700:4700::1111')).toEqual({ version: 6, addressClass: 'public' });
  });
});
