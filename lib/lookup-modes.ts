// How much a registration lookup asks: the whois endpoint's and the bulk check's `mode`. A module of
// its own, with no imports, so workflow code and the command line can both take it.
export const LOOKUP_MODES = ['full', 'fast', 'availability_only'] as const;
export type LookupMode = (typeof LOOKUP_MODES)[number];
