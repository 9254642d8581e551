// Errors nobody handled: an 'error' event without a listener, a rejection nobody awaited. Each is
// logged with its stack and the process goes on serving (one request's bug must not end every other
// request of the process), unless the error was marked fatal: the process's state can no longer be
// trusted (the embedded database's thread died: db/connect.ts), and it exits 1 for its supervisor to
// start it again.
import type { Logger } from './log.ts';

const FATAL = Symbol('netops.fatal');

/** Marks `err` as one after which the process must not go on. */
export function markFatal<E extends Error>(err: E): E {
  (err as E & { [FATAL]?: true })[FATAL] = true;
  return err;
}

export function isFatal(err: unknown): boolean {
  return typeof err === 'object' && err !== null && (err as { [FATAL]?: true })[FATAL] === true;
}

export function installUnhandledPolicy(
  logger: Logger,
  exit: (code: number) => void = (code) => process.exit(code),
): void {
  const seen = (err: unknown, origin: string) => {
    if (isFatal(err)) {
      logger.fatal({ err, origin }, 'fatal error: the process stops');
      exit(1);
      return;
    }
    logger.error({ err, origin }, 'an error nobody handled: logged, the process goes on');
  };
  process.on('uncaughtException', (err, origin) => seen(err, origin));
  process.on('unhandledRejection', (reason) => seen(reason, 'unhandledRejection'));
}
