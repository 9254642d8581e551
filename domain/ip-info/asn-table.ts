// IP range -> autonomous system table from the @ip-location-db/asn package (RouteViews and DB-IP
// data, CC BY 4.0; see docs/domains.md "Data sources"). Loaded once, on first use, into sorted arrays.
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';

export interface AsnInfo {
  asn: number;
  organization: string;
}

interface Table<N> {
  starts: N[];
  ends: N[];
  asns: number[];
  orgs: string[];
}

const require = createRequire(import.meta.url);
const packageDir = path.dirname(require.resolve('@ip-location-db/asn/package.json'));

let loading: Promise<{ v4: Table<number>; v6: Table<bigint> }> | undefined;

function load() {
  loading ??= Promise.all([
    parse(path.join(packageDir, 'asn-ipv4-num.csv'), Number),
    parse(path.join(packageDir, 'asn-ipv6-num.csv'), BigInt),
  ]).then(([v4, v6]) => ({ v4, v6 }));
  return loading;
}

async function parse<N extends number | bigint>(file: string, toNumber: (s: string) => N): Promise<Table<N>> {
  const text = await readFile(file, 'utf8');
  const table: Table<N> = { starts: [], ends: [], asns: [], orgs: [] };
  for (const line of text.split('\n')) {
    if (!line) continue;
    const first = line.indexOf(',');
    const second = line.indexOf(',', first + 1);
    const third = line.indexOf(',', second + 1);
    let org = line.slice(third + 1);
    if (org.startsWith('"')) org = org.slice(1, -1).replaceAll('""', '"');
    table.starts.push(toNumber(line.slice(0, first)));
    table.ends.push(toNumber(line.slice(first + 1, second)));
    table.asns.push(Number(line.slice(second + 1, third)));
    table.orgs.push(org);
  }
  return table;
}

function find<N extends number | bigint>(table: Table<N>, ip: N): AsnInfo | null {
  let lo = 0;
  let hi = table.starts.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (table.starts[mid]! <= ip) lo = mid + 1;
    else hi = mid - 1;
  }
  if (hi < 0 || table.ends[hi]! < ip) return null;
  return { asn: table.asns[hi]!, organization: table.orgs[hi]! };
}

export async function lookupAsn(ip: string, version: 4 | 6): Promise<AsnInfo | null> {
  const { v4, v6 } = await load();
  return version === 4 ? find(v4, ipv4ToNumber(ip)) : find(v6, ipv6ToBigInt(ip));
}

export function ipv4ToNumber(ip: string): number {
  return ip.split('.').reduce((n, octet) => n * 256 + Number(octet), 0);
}

export function ipv6ToBigInt(ip: string): bigint {
  let text = ip.toLowerCase();
  // An embedded dotted IPv4 tail becomes two hex groups.
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted) {
    const n = ipv4ToNumber(dotted[1]!);
    text = `${text.slice(0, -dotted[1]!.length)}${(n >>> 16).toString(16)}:${(n & 0xffff).toString(16)}`;
  }
  const [head, tail] = text.split('::') as [string, string | undefined];
  const headGroups = head ? head.split(':') : [];
  const tailGroups = tail ? tail.split(':') : [];
  const groups =
    tail === undefined
      ? headGroups
      : [...headGroups, ...Array(8 - headGroups.length - tailGroups.length).fill('0'), ...tailGroups];
  return groups.reduce((n, g) => (n << 16n) + BigInt(parseInt(g || '0', 16)), 0n);
}
