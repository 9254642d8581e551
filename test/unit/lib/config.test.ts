import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../../lib/config.ts';
import { baseEnv, runScript } from '../../support/processes.ts';

describe('configuration', () => {
  it('has the documented defaults', () => {
    const c = loadConfig({});
    expect(c.port).toBe(3000);
    expect(c.host).toBe('127.0.0.1');
    expect(c.baseUrl).toBe('http://127.0.0.1:3000');
    expect(c.dataDir.endsWith('.data')).toBe(true);
    expect(c.temporal).toEqual({
      address: undefined,
      namespace: 'default',
      cli: 'temporal',
      devPort: 7233,
      uiPort: 8233,
    });
    expect(c.role).toBe('all');
    expect(c.databaseUrl).toBeUndefined();
    expect(c.redisUrl).toBeUndefined();
    expect(c.s3).toBeUndefined();
    expect(c.networkAllow).toEqual([]);
    expect(c.lookupTimeoutMs).toBe(5000);
    expect(c.loadWorkerWaitSeconds).toBe(60);
  });

  it('waits 1 to 3600 seconds for a load worker', () => {
    expect(loadConfig({ LOAD_WORKER_WAIT_SECONDS: '1' }).loadWorkerWaitSeconds).toBe(1);
    expect(loadConfig({ LOAD_WORKER_WAIT_SECONDS: '3600' }).loadWorkerWaitSeconds).toBe(3600);
    for (const refused of ['0', '3601', 'soon'])
      expect(() => loadConfig({ LOAD_WORKER_WAIT_SECONDS: refused }), refused).toThrow(
        /^Invalid configuration: LOAD_WORKER_WAIT_SECONDS /,
      );
  });

  it('reads every variable of the table', () => {
    const c = loadConfig({
      PORT: '8080',
      HOST: '0.0.0.0',
      BASE_URL: 'https://tools.example.com/',
      DATA_DIR: '/tmp/x',
      TEMPORAL_ADDRESS: 'temporal:7233',
      TEMPORAL_NAMESPACE: 'netops',
      TEMPORAL_CLI: '/opt/temporal',
      TEMPORAL_DEV_PORT: '7300',
      TEMPORAL_UI_PORT: '8300',
      DATABASE_URL: 'postgres://u:p@db:5432/netops',
      REDIS_URL: 'redis://cache:6379/0',
      S3_ENDPOINT: 'http://minio:9000',
      S3_ACCESS_KEY: 'a',
      S3_SECRET_KEY: 'b',
      S3_BUCKET: 'netops',
      ROLE: 'worker:network',
      DNS_SERVERS: '127.0.0.1:5353, [::1]:5353',
      WHOIS_SERVER: '127.0.0.1:4343',
      RDAP_BASE_URL: 'http://127.0.0.1:8081/rdap',
      NETWORK_ALLOW: '127.0.0.0/8,::1/128',
      LOOKUP_TIMEOUT_MS: '1500',
      PAYLOAD_KEY: Buffer.alloc(32, 7).toString('base64'),
    });
    expect(c.baseUrl).toBe('https://tools.example.com');
    expect(c.temporal).toEqual({
      address: 'temporal:7233',
      namespace: 'netops',
      cli: '/opt/temporal',
      devPort: 7300,
      uiPort: 8300,
    });
    expect(c.s3).toEqual({ endpoint: 'http://minio:9000', accessKey: 'a', secretKey: 'b', bucket: 'netops' });
    expect(c.role).toBe('worker:network');
    expect(c.dnsServers).toEqual(['127.0.0.1:5353', '[::1]:5353']);
    expect(c.networkAllow).toEqual(['127.0.0.0/8', '::1/128']);
    expect(c.lookupTimeoutMs).toBe(1500);
    expect(c.whoisServer).toBe('127.0.0.1:4343');
    expect(c.rdapBaseUrl).toBe('http://127.0.0.1:8081/rdap');
  });

  it('reads the registry pace: one rate for every server, and overrides by server', () => {
    expect(loadConfig({}).registryRate).toEqual({ default: 5, byServer: {} });
    expect(
      loadConfig({ REGISTRY_RATE: '2.5', REGISTRY_RATES: 'WHOIS.Example.net=1, rdap.example.org:8443=0.5' })
        .registryRate,
    ).toEqual({ default: 2.5, byServer: { 'whois.example.net': 1, 'rdap.example.org:8443': 0.5 } });
    expect(() => loadConfig({ REGISTRY_RATE: '0' })).toThrow(
      /^Invalid configuration: REGISTRY_RATE must be from 0.01 to 1000/,
    );
    expect(() => loadConfig({ REGISTRY_RATES: 'whois.example.net' })).toThrow(
      /^Invalid configuration: REGISTRY_RATES.*must be host=queries per second/,
    );
  });

  it('takes an operator token of 24 characters or more', () => {
    expect(loadConfig({ OPERATOR_TOKEN: 'x'.repeat(24) }).operatorToken).toBe('x'.repeat(24));
    expect(loadConfig({}).operatorToken).toBeUndefined();
  });

  it('treats empty variables as unset', () => {
    expect(loadConfig({ PORT: '', DATABASE_URL: '' }).port).toBe(3000);
  });

  it.each([
    [{ PORT: 'abc' }, /^Invalid configuration: PORT .*"abc"/],
    [{ PORT: '65536' }, /^Invalid configuration: PORT must be from 0 to 65535/],
    [{ PORT: '3.5' }, /^Invalid configuration: PORT must be a whole number/],
    [{ BASE_URL: 'ftp://x' }, /^Invalid configuration: BASE_URL must be an http\(s\) URL/],
    [{ TEMPORAL_ADDRESS: 'temporal' }, /^Invalid configuration: TEMPORAL_ADDRESS must be host:port/],
    [{ DATABASE_URL: 'mysql://x' }, /^Invalid configuration: DATABASE_URL must be a postgres:\/\/ URL/],
    [{ REDIS_URL: 'http://x' }, /^Invalid configuration: REDIS_URL must be a redis:\/\/ URL/],
    [{ S3_ENDPOINT: 'http://minio:9000' }, /^Invalid configuration: S3_ACCESS_KEY is required when S3_ENDPOINT is set/],
    [{ ROLE: 'worker:gpu' }, /^Invalid configuration: ROLE must be one of all, api, /],
    [{ DNS_SERVERS: '1.1.1.1' }, /^Invalid configuration: DNS_SERVERS .*must be ip:port/],
    [{ DNS_SERVERS: 'resolver.local:53' }, /^Invalid configuration: DNS_SERVERS .*must be ip:port/],
    [{ NETWORK_ALLOW: '10.0.0.0/33' }, /^Invalid configuration: NETWORK_ALLOW .*CIDR/],
    [{ LOOKUP_TIMEOUT_MS: '99' }, /^Invalid configuration: LOOKUP_TIMEOUT_MS must be from 100 to 60000/],
    [{ LOOKUP_TIMEOUT_MS: 'soon' }, /^Invalid configuration: LOOKUP_TIMEOUT_MS must be a number of milliseconds/],
    [{ PAYLOAD_KEY: 'c2hvcnQ=' }, /^Invalid configuration: PAYLOAD_KEY must be 32 bytes in base64/],
    [
      { TEMPORAL_ADDRESS: 'temporal:7233' },
      /^Invalid configuration: PAYLOAD_KEY is required when TEMPORAL_ADDRESS is set/,
    ],
    [{ OPERATOR_TOKEN: 'x'.repeat(23) }, /^Invalid configuration: OPERATOR_TOKEN must be at least 24 characters/],
  ])('refuses %j with one line naming the variable', (env, message) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    try {
      loadConfig(env);
    } catch (err) {
      expect((err as Error).message).toMatch(message);
      expect((err as Error).message).not.toContain('\n');
    }
  });

  it('stops the process at start with exactly one line on stderr', async () => {
    const result = await runScript('workers/all.ts', [], { ...baseEnv(), PORT: 'eighty' });
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr.trim().split('\n')).toEqual([
      'Invalid configuration: PORT must be a port number (got "eighty")',
    ]);
  });
});
