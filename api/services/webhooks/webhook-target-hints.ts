// What to do when the SSRF guard refuses a replay or forward target: the guard (lib/net/target-guard.ts)
// says why the address is refused; only here is it known that the user meant to reach a service of
// their own (a laptop, a private network), which the command line reaches from where it runs.
import { ForbiddenAddressError } from '../../../lib/net/target-guard.ts';

const OPERATOR = '; on a private instance, its operator can open the range with NETWORK_ALLOW';

/** The command-line ways to reach a machine of one's own. */
function hint(what: { replay: { webhookId: string; requestId: number } } | { forward: { webhookId: string | null } }) {
  if ('replay' in what) {
    const { webhookId, requestId } = what.replay;
    return (
      'the service sends only to public addresses: to replay to a machine of yours, send it from there with ' +
      `\`netops webhook replay ${webhookId} ${requestId} --to URL\` ` +
      `(or follow new captures with \`netops listen ${webhookId} --forward-to URL\`)`
    );
  }
  const id = what.forward.webhookId ?? '<webhook_id>';
  return (
    'the service forwards only to public addresses: to pass captures to a machine of yours, run ' +
    `\`netops listen ${id} --forward-to URL\` there ` +
    `(or replay one with \`netops webhook replay ${id} <request_id> --to URL\`)`
  );
}

/** A guard's refusal with what to do instead; any other error as it was. */
export function withTargetHint(err: unknown, what: Parameters<typeof hint>[0]): unknown {
  if (!(err instanceof ForbiddenAddressError)) return err;
  return new ForbiddenAddressError(`${err.message}. Instead: ${hint(what)}${OPERATOR}`, err.field);
}
