// The operating-system and browser handlers of issue 60, each opened at once by a redirect before: the
// redirect URIs the OAuth suites (unit and integration) expect refused.
export const DANGEROUS = [
  'ms-msdt:/id PCWDiagnostic /skip force',
  'ms-settings:privacy',
  'view-source:https://x',
  'filesystem:https://x/temporary/a.html',
  'search-ms:query=x',
  'shell:startup',
];
