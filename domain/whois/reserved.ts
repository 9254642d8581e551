// Names a registry will not sell, from documented rules only.
import fs from 'node:fs';
import { domainToASCII } from 'node:url';
import { SPECIAL_USE_TLDS, type RegistrableDomain } from './registrable.ts';

/**
 * The lists of Specification 5 of ICANN's base gTLD Registry Agreement (data/reserved-names, one label
 * per line). They bind generic TLDs: country-code TLDs (two letters) have their own policies, and the
 * legacy .com and .net agreements predate Specification 5, so neither is judged by these lists.
 * A registry that answers "registered" for such a name wins over the list (see lookup.ts).
 */
const SPEC5_FILES: Record<string, string> = {
  'S5.1.txt': 'Specification 5 §1: the label "example"',
  'S5.2.txt': 'Specification 5 §2: two-character labels',
  'S5.3.1.txt': 'Specification 5 §3.1: registry operations (www, whois, rdds, nic)',
  'S5.4.1.txt': 'Specification 5 §4: country and territory names',
  'S5.4.2.txt': 'Specification 5 §4: country and territory names',
  'S5.4.3.txt': 'Specification 5 §4: country and territory names',
  'S5.5-ioc.txt': 'Specification 5 §5: Olympic names (IOC)',
  'S5.5-red-cross1.txt': 'Specification 5 §5: Red Cross and Red Crescent names',
  'S5.5-red-cross2.txt': 'Specification 5 §5: Red Cross and Red Crescent names',
  'S5.5-red-cross-international.txt': 'Specification 5 §5: Red Cross and Red Crescent names',
  'S5.5-igos.txt': 'Specification 5 §5: intergovernmental organisations',
  'S5.5-igos-2.txt': 'Specification 5 §5: intergovernmental organisations',
};
const SPEC5_EXEMPT_TLDS = new Set(['com', 'net']);

let spec5: Map<string, string> | undefined;

function spec5Labels(): Map<string, string> {
  if (spec5) return spec5;
  spec5 = new Map();
  for (const [file, clause] of Object.entries(SPEC5_FILES)) {
    const text = fs.readFileSync(new URL(`./data/reserved-names/${file}`, import.meta.url), 'utf8');
    for (const line of text.split('\n')) {
      const label = line.replace(/#.*/, '').trim().toLowerCase();
      if (!label) continue;
      // §4 lists hold U-labels; a name is looked up by its A-label.
      const ascii = /^\p{ASCII}*$/u.test(label) ? label : domainToASCII(label);
      if (ascii && !spec5.has(ascii)) spec5.set(ascii, clause);
    }
  }
  return spec5;
}

/** Why `name` cannot be registered, or null. */
export function reservedReason(name: RegistrableDomain): string | null {
  // RFC 6761: special-use names, and example.com/.net/.org which IANA holds for documentation.
  if (SPECIAL_USE_TLDS.has(name.tld)) return `RFC 6761: .${name.tld} is a special-use top-level domain`;
  if (name.label === 'example' && ['com', 'net', 'org'].includes(name.suffix))
    return 'RFC 6761 §6.5: reserved for documentation';
  const isGeneric = name.tld.length > 2 && name.suffix === name.tld && !SPEC5_EXEMPT_TLDS.has(name.tld);
  return isGeneric ? (spec5Labels().get(name.label) ?? null) : null;
}

/** Whether a reason of reservedReason holds whatever a registry says (RFC 6761), so nobody need be asked. */
export function isAbsoluteReservation(reason: string): boolean {
  return reason.startsWith('RFC 6761');
}
