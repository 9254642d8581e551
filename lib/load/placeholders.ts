// `{{name}}` placeholders in a scenario's steps (domain/load/scenario.ts fills them with what an
// earlier step captured; the API's schema checks each is captured before it is used).
export const PLACEHOLDER = /\{\{([A-Za-z_][A-Za-z0-9_]{0,31})\}\}/g;

/** The names of the placeholders in a text. */
export const placeholdersOf = (text: string): string[] => [...text.matchAll(PLACEHOLDER)].map((m) => m[1]!);
