// The data refresh command against a loopback stand-in for its public sources.
import fs from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { baseEnv, runScript, tempDir } from '../../support/processes.ts';

const ECB_XML = `<?xml version="1.0" encoding="UTF-8"?>
<gesmes:Envelope xmlns:gesmes="http://www.gesmes.org/xml/2002-08-01" \
xmlns="http://www.ecb.int/vocabulary/2002-08-01/eurofxref">
<Cube><Cube time='2026-11-20'>
<Cube currency='USD' rate='1.1500'/><Cube currency='JPY' rate='180.10'/><Cube currency='GBP' rate='0.8700'/>
<Cube currency='CNY' rate='8.1000'/><Cube currency='INR' rate='100.5'/><Cube currency='CAD' rate='1.6000'/>
<Cube currency='AUD' rate='1.7000'/><Cube currency='MXN' rate='21.00'/><Cube currency='BRL' rate='6.100'/>
</Cube></Cube></gesmes:Envelope>`;

describe('npm run refresh-data', () => {
  let server: http.Server;
  let base: string;
  const bodies: Record<string, string> = {
    '/rates.xml': ECB_XML,
    '/broken.xml': '<html>maintenance</html>',
  };
  beforeAll(async () => {
    server = http.createServer((req, res) => {
      const body = bodies[req.url ?? ''];
      res.writeHead(body ? 200 : 404).end(body ?? 'no');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  it('writes a checked file from the source and says what it did', async () => {
    const out = await tempDir('refresh');
    const result = await runScript('scripts/refresh-data.ts', ['--only', 'rates', '--out', out], {
      ...baseEnv(),
      REFRESH_RATES_URL: `${base}/rates.xml`,
    });
    expect(result.stdout).toMatch(/rates: updated exchange-rates\.json/);
    expect(result.code).toBe(0);
    const written = JSON.parse(await fs.readFile(`${out}/exchange-rates.json`, 'utf8'));
    expect(written).toMatchObject({
      date: '2026-11-20',
      base: 'EUR',
      rates: { EUR: 1, USD: 1.15, GBP: 0.87, JPY: 180.1 },
    });
  });

  it('keeps the old file when the source answers something else, and fails', async () => {
    const out = await tempDir('refresh');
    await fs.writeFile(`${out}/exchange-rates.json`, 'old');
    const result = await runScript('scripts/refresh-data.ts', ['--only', 'rates', '--out', out], {
      ...baseEnv(),
      REFRESH_RATES_URL: `${base}/broken.xml`,
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/rates: kept exchange-rates\.json: not the ECB daily reference rates/);
    expect(await fs.readFile(`${out}/exchange-rates.json`, 'utf8')).toBe('old');
  });

  it('refuses an unknown source name', async () => {
    const result = await runScript('scripts/refresh-data.ts', ['--only', 'prices'], baseEnv());
    expect(result.code).not.toBe(0);
    expect(result.stderr).toMatch(/unknown source prices: choose from rdap, rates, porkbun, dynadot, whois/);
  });
});
