import { describe, expect, it } from 'vitest';
import { startDnsServer } from '../../../fixtures/dns-server.ts';

describe('IP info reverse lookups', () => {
  it('asks DNS for the PTR of public addresses only', async () => {
    const { createIpInfo } = await import('../../../../domain/ip-info/lookup.ts');
    const server = await startDnsServer();
    try {
      const ipInfo = createIpInfo({ dnsServers: [server.address], reverseTimeoutMs: 500 });
      expect((await ipInfo('1.1.1.1')).reverse_dns).toBe('one.one.one.one');
      await ipInfo('10.1.2.3');
      await ipInfo('192.168.0.1');
      expect(server.queries.filter((q) => q.type === 'PTR').map((q) => q.name)).toEqual(['1.1.1.1.in-addr.arpa']);
    } finally {
      await server.close();
    }
  });
});
