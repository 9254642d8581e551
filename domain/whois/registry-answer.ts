import { emptyParsedData, type ParsedData, type RegistryVerdict } from './parse.ts';

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

/** The answer of a registry that could not be asked or did not answer usably, and why. */
export function failedAnswer(
  server: string,
  reason: string,
  verdict: 'error' | 'rate_limited' = 'error',
): RegistryAnswer {
  return { verdict, server, raw: '', parsed: emptyParsedData(), premium: false, reason };
}
