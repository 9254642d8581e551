import type { ParsedData, RegistryVerdict } from './parse.ts';

/** One registry's answer (RDAP or WHOIS) about one name. */
export interface RegistryAnswer {
  verdict: RegistryVerdict | 'error';
  /** The server that answered: an RDAP base host or a WHOIS host[:port]. */
  server: string;
  /** The answer as received: WHOIS text, or the RDAP JSON as text. */
  raw: string;
  parsed: ParsedData;
  /** The registry called the (unregistered) name premium. */
  premium: boolean;
  /** Why the verdict is `error` (or `rate_limited`). */
  reason?: string;
}
