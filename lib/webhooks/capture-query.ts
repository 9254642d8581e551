// A capture's query string: as the sender sent it (query_string, kept since migration
// 2026-11-28-021), or, for a capture stored before (or read from a service of the release before),
// rebuilt from its parsed pairs (query_params): then spaces read `+`, percent-encodings are the URL
// encoder's and a repeated name's values come together where the name first came.

/** A capture's query, in either spelling: `queryString` as sent (undefined: not known), `queryParams` parsed. */
export interface CaptureQuery {
  queryString?: string | null;
  queryParams: string | null;
}

/** The query without its `?`, as sent where known, else rebuilt from its pairs; null: the capture had none. */
export function sentQuery(c: CaptureQuery): string | null {
  return c.queryString ?? rebuiltQuery(c.queryParams);
}

/** The query rebuilt from its pairs as the API gives them (a JSON object; repeated names as lists). */
export function rebuiltQuery(queryParams: string | null): string | null {
  if (!queryParams) return null;
  const pairs = Object.entries(JSON.parse(queryParams) as Record<string, string | string[]>).flatMap(([k, v]) =>
    (Array.isArray(v) ? v : [v]).map((x) => [k, String(x)]),
  );
  return new URLSearchParams(pairs).toString();
}

/** A query's `name=value` pairs in their order, spelled as sent (not decoded); empty ones (`&&`) left out. */
export function queryPairs(query: string): Array<{ name: string; value: string }> {
  return query
    .split('&')
    .filter((pair) => pair !== '')
    .map((pair) => {
      const eq = pair.indexOf('=');
      return eq === -1 ? { name: pair, value: '' } : { name: pair.slice(0, eq), value: pair.slice(eq + 1) };
    });
}
