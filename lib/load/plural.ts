// Counts as the load tools write them ("1 connection", "2 connections", "1,024 requests"): one code
// for the CLI's summary, the verdict's words, the report, the dashboard and the charts' units, so
// none of them prints "1 users".

/** The word for `n` of a thing: `one` for exactly 1, `many` for any other count (0 included). */
export const noun = (n: number, one: string, many = `${one}s`) => (n === 1 ? one : many);

/** "1 connection", "2 connections", "1,024 requests". */
export const plural = (n: number, one: string, many = `${one}s`) =>
  `${n.toLocaleString('en-US')} ${noun(n, one, many)}`;
