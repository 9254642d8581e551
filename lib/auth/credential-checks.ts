// Long-lived requests (live streams, waits for a capture, long MCP calls) re-check the credential that
// opened them while they live: a revoked API key, a disconnected app (its OAuth grant deleted), an ended
// dashboard session or a deleted user ends them within seconds, however it was revoked (the dashboard,
// the admin command in another process, a row deleted by hand), on every API process.
// - Every CREDENTIAL_CHECK_MS, one check per credential (its auth lookup), however many requests it holds
//   open: 1,000 streams of 20 keys cost 20 lookups. A credential found gone aborts every watch of it.
// - Before a request sends anything it read (a batch of captures, a wait's answer, an MCP message), it
//   confirms the credential with a check that started after the read: nothing stored after a revocation
//   reaches the request that the revoked credential opened.
// - A check that fails (the database or the store away) counts as live: an outage does not cut streams
//   (what they read fails by itself); the next check decides. So does a confirm's check that has not
//   answered within CONFIRM_WAIT_MS (a database that stopped answering): what the request sends is not
//   held up for the whole of a connection's or a statement's timeout.
import { UnauthorizedError } from '../errors.ts';

export const CREDENTIAL_CHECK_MS = 2000;
export const CONFIRM_WAIT_MS = 1000;

export interface CredentialWatch {
  /** Aborts once the credential is found gone; its reason is the UnauthorizedError to answer. */
  readonly signal: AbortSignal;
  /**
   * Checks the credential now (or joins a check that started after this call): true while it holds;
   * false once it is gone, which aborts `signal` first.
   */
  confirm(): Promise<boolean>;
  /** The request ended: stop following its credential. */
  stop(): void;
}

export interface Credential {
  /** Names the credential (`api-key:12`): the requests that present the same one share its checks. */
  readonly id: string;
  /** Follows the credential while a long-lived request lives; call `stop` when it ends. */
  watch(): CredentialWatch;
}

export interface Revoked {
  /** What a request cut by the revocation says (`The API key was revoked`). */
  message: string;
  /** The WWW-Authenticate challenge of a 401 that says it. */
  challenge?: string;
}

interface Followed {
  /** Each watch and the lookup it brought (any one of them answers for the credential). */
  watches: Map<AbortController, () => Promise<boolean>>;
  revoked: Revoked;
  /** A check asked for by confirm() that has not started yet: the confirms until it starts share it. */
  next?: Promise<boolean>;
  /** The checks under way (a periodic one is not started while one is). */
  pending: number;
}

export interface CredentialChecks {
  /** A credential named `id` whose `live` lookup answers whether it still holds. */
  credential(id: string, live: () => Promise<boolean>, revoked: Revoked): Credential;
  /** How many credentials are followed now. */
  readonly following: number;
}

export function credentialChecks(
  options: { everyMs?: number; confirmWaitMs?: number; onCheckFailed?: (err: unknown, id: string) => void } = {},
): CredentialChecks {
  const everyMs = options.everyMs ?? CREDENTIAL_CHECK_MS;
  const confirmWaitMs = options.confirmWaitMs ?? CONFIRM_WAIT_MS;
  const followed = new Map<string, Followed>();
  let timer: NodeJS.Timeout | undefined;

  const revoke = (id: string, f: Followed) => {
    if (followed.get(id) === f) followed.delete(id);
    if (followed.size === 0) stopTimer();
    const reason = new UnauthorizedError(f.revoked.message, f.revoked.challenge);
    const watches = [...f.watches.keys()];
    f.watches.clear();
    for (const controller of watches) controller.abort(reason);
  };

  function check(id: string, f: Followed): Promise<boolean> {
    const live = f.watches.values().next().value;
    if (!live) return Promise.resolve(false);
    f.pending += 1;
    return live()
      .then(
        (holds) => {
          if (!holds) revoke(id, f);
          return holds;
        },
        (err: unknown) => {
          options.onCheckFailed?.(err, id);
          return true;
        },
      )
      .finally(() => {
        f.pending -= 1;
      });
  }

  const tick = () => {
    for (const [id, f] of followed) if (f.pending === 0) void check(id, f);
  };
  const stopTimer = () => {
    clearInterval(timer);
    timer = undefined;
  };

  return {
    get following() {
      return followed.size;
    },
    credential(id, live, revoked) {
      return {
        id,
        watch(): CredentialWatch {
          const controller = new AbortController();
          let f = followed.get(id);
          if (!f) {
            f = { watches: new Map(), revoked, pending: 0 };
            followed.set(id, f);
          }
          f.watches.set(controller, live);
          if (!timer) {
            timer = setInterval(tick, everyMs);
            timer.unref();
          }
          const mine = f;
          return {
            signal: controller.signal,
            async confirm() {
              if (controller.signal.aborted) return false;
              // The check starts after this call (after what the caller read): the confirms of other
              // requests made before it starts share it.
              mine.next ??= new Promise<void>((resolve) => setImmediate(resolve)).then(() => {
                mine.next = undefined;
                return check(id, mine);
              });
              let timer: NodeJS.Timeout | undefined;
              const holds = await Promise.race([
                mine.next,
                new Promise<boolean>((resolve) => {
                  timer = setTimeout(() => resolve(true), confirmWaitMs);
                }),
              ]).finally(() => clearTimeout(timer));
              return holds && !controller.signal.aborted;
            },
            stop() {
              if (!mine.watches.delete(controller)) return;
              if (mine.watches.size === 0 && followed.get(id) === mine) followed.delete(id);
              if (followed.size === 0) stopTimer();
            },
          };
        },
      };
    },
  };
}
