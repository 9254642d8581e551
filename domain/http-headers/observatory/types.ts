// One test of the HTTP Observatory's method, as our grader runs it: the test and result identifiers
// of MDN's documentation (so a user compares line by line), the score modifier, and whether it passed.
export interface TestResult {
  /** The Observatory's test, e.g. `content-security-policy`. */
  test: string;
  /** The header or feature it is about, as our checks name it. */
  name: string;
  /** The Observatory's result identifier, e.g. `csp-implemented-with-unsafe-inline`. */
  result: string;
  modifier: number;
  /** The best modifier this test can give. */
  best: number;
  pass: boolean;
  description: string;
  details: string[];
  recommendation?: string;
}

/** What the grader looks at: the analysed response, and what the site answered besides. */
export interface ObservatoryInput {
  /** The analysed response came over HTTPS, and its certificate verified. */
  https: boolean;
  certValid: boolean;
  /** Lower-case header names; repeated headers joined with ", ". */
  headers: Readonly<Record<string, string>>;
  /** Every value of each repeated header, where it matters (CSP). */
  cspHeaders: readonly string[];
  setCookies: readonly string[];
  /** The body when the response is HTML (null otherwise, or unread). */
  html: string | null;
  /** The scanned URL (its host decides which scripts are same-site). */
  url: string;
  /** The URLs the HTTP session requested, first to last; null when plain HTTP got no answer. */
  httpChain: readonly string[] | null;
  /** The CORS preflight's answer (OPTIONS with an Origin), or null when it got none or a non-2xx. */
  preflight: { origin: string; headers: Readonly<Record<string, string>> } | null;
}

type Base = Pick<TestResult, 'test' | 'name' | 'best' | 'description'>;

/** The results of one test: its result identifier, modifier, pass, and what to do (when it says). */
export const resultsOf =
  (base: Base) =>
  (result: string, modifier: number, pass: boolean, recommendation?: string, details: string[] = []): TestResult => ({
    ...base,
    result,
    modifier,
    pass,
    details,
    ...(recommendation ? { recommendation } : {}),
  });
