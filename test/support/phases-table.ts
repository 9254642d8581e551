// The phases table of a load test as its pages show it (the dashboard's page of the test and the
// report): a column per statistic after the phase's name, a row per phase in the order a request
// meets them. Written out, not taken from api/pages/load-report.ts: what a reader sees is the
// expectation the pages' tests hold them to.
export const PHASE_TABLE_COLUMNS = ['Phase', 'avg', 'p50', 'p95', 'p99', 'max'];
export const PHASE_TABLE_ROWS = ['DNS', 'Connect', 'TLS', 'Time to first byte', 'Transfer'];
