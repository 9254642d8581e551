// A /mcp request lives as long as its call does (a wait for a capture, a load test answered when it
// ends, with progress meanwhile): it follows its access token's grant while it lives. Every message the
// server sends on it is confirmed first (lib/auth/credential-checks.ts), so nothing read after the app was
// disconnected goes out; once the grant is found gone, each call of the request is answered with a
// JSON-RPC error saying so, and the request ends (the next one gets 401 invalid_token).
import type { JSONRPCMessage, Transport } from '@modelcontextprotocol/server';
import type { CredentialWatch } from '../../lib/auth/credential-checks.ts';

/** How long the answers to a request cut by a revocation may take to be written before its connection is closed. */
const ANSWER_GRACE_MS = 1000;
/** The JSON-RPC error code of a call cut short (the 1.x SDK's `ConnectionClosed`; v2 keeps it local only). */
const CONNECTION_CLOSED = -32000;

export function endOnRevocation(o: {
  transport: Transport;
  credential: CredentialWatch;
  /** The ids of the JSON-RPC requests in the request's body. */
  requestIds: Array<string | number>;
  /** Ends the request's server and transport (as when the client leaves). */
  end: () => void;
  res: { writableFinished: boolean; destroy(): void };
}): void {
  const { transport, credential } = o;
  const send = transport.send.bind(transport);
  // Messages go in the order the server sent them, each once the grant is confirmed.
  let queue: Promise<unknown> = Promise.resolve();
  let cut = false;
  transport.send = (message, options) => {
    const sent = queue.then(async () => {
      if (cut || !(await credential.confirm())) return; // revoked: the answers below go instead
      await send(message, options);
    });
    queue = sent.catch(() => {});
    return sent;
  };
  credential.signal.addEventListener(
    'abort',
    () => {
      cut = true;
      const message = `${(credential.signal.reason as Error).message}: this call ended`;
      const answers = o.requestIds.map((id) =>
        // A call already answered has no connection left: its error goes nowhere.
        send({ jsonrpc: '2.0', id, error: { code: CONNECTION_CLOSED, message } } as JSONRPCMessage),
      );
      void Promise.allSettled(answers).then(() => {
        o.end();
        setTimeout(() => {
          if (!o.res.writableFinished) o.res.destroy();
        }, ANSWER_GRACE_MS).unref();
      });
    },
    { once: true },
  );
}
