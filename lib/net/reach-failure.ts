// The one mapping of a failure to reach a user-chosen target to an error, for every endpoint and tool
// (REST, MCP, the workers' activities): docs/api.md, "When a target cannot be reached".
//
// | what happened                                                  | status | code               |
// |----------------------------------------------------------------|--------|--------------------|
// | the host of the URL the caller gave does not exist (NXDOMAIN)  | 400    | invalid_input      |
// | it resolves to an address the guard refuses                    | 400    | target_not_allowed |
// | the resolver failed or did not answer (EAI_AGAIN, SERVFAIL)     | 502    | upstream_failed    |
// | refused, reset, closed, TLS failed, a redirect to a host that  | 502    | upstream_failed    |
// | does not exist, an unusable answer                             |        |                    |
// | no answer within the time limit                                | 504    | timeout            |
import { AppError, InvalidInputError, UpstreamError } from '../errors.ts';

/** getaddrinfo's answers that say the name does not exist (not that the resolver failed). */
const NO_SUCH_NAME = new Set(['ENOTFOUND', 'EAI_NONAME', 'ENODATA']);
const TLS_ERRORS = /CERT|SELF_SIGNED|UNABLE_TO_VERIFY|ERR_TLS|ERR_SSL|HOSTNAME/;

export interface ReachAttempt {
  /** What was being reached, as the message names it. */
  url: string;
  host: string;
  /** The request field that named the target, when it is the caller's input (not a redirect's). */
  field?: string;
  /** Set when the time limit ended the attempt. */
  timeoutMs?: number;
}

export function reachFailure(err: unknown, attempt: ReachAttempt): AppError {
  if (err instanceof AppError) return err; // the guard's own refusal, or a failure already mapped
  if (attempt.timeoutMs !== undefined)
    return new UpstreamError(`${attempt.url} did not answer within ${attempt.timeoutMs} ms`, true);
  const code = (err as NodeJS.ErrnoException).code ?? '';
  if (NO_SUCH_NAME.has(code)) {
    return attempt.field
      ? new InvalidInputError(`${attempt.field}: ${attempt.host} does not resolve to an address`, attempt.field)
      : new UpstreamError(`${attempt.url}: ${attempt.host} does not resolve to an address`);
  }
  if (code === 'EAI_AGAIN')
    return new UpstreamError(
      `${attempt.host} could not be resolved (the resolver failed or did not answer: ${code}): try again later`,
    );
  if (TLS_ERRORS.test(code))
    return new UpstreamError(`${attempt.url}: TLS failed (${code}): ${(err as Error).message}`);
  return new UpstreamError(`${attempt.url} could not be reached: ${code || (err as Error).message}`);
}
