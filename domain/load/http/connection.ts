// What the generator (generator.ts) asks of a user's connection, whatever its protocol: HTTP/1.1 on
// its own socket (http1.ts), or an HTTP/2 stream on a connection several users share (http2.ts).
// R is the protocol's prebuilt request (request.ts): built once per test or per scenario step.
import type { PhaseTimes } from '../phases.ts';

/** Called once per request, with the answer's status or the error. */
export type Completion = (status: number, error: Error | null) => void;

/** A scenario's step: another request on the same origin, with or without keeping its answer's body. */
export interface Step<R> {
  request: R;
  method: string;
  keepBody: boolean;
}

/**
 * A step as the generator sends it, and what follows its answer (a scenario's captures, a replay's
 * counts); `reached` false: a connection error, the request never sent (counted apart: tally.ts).
 */
export interface Job<R> extends Step<R> {
  answered(latencyUs: number, status: number, error: Error | null, body: Buffer | null, reached: boolean): void;
}

export interface LoadConnection<R> {
  /** A request is in flight. */
  readonly busy: boolean;
  /** performance.now() when the request in flight was sent (for the timeout sweep). */
  readonly sentAt: number;
  /**
   * The phases of the last request answered, µs (phases.ts): DNS, connect and TLS only when it waited for a connection
   * to open.
   */
  readonly phases: PhaseTimes;
  /** The protocol of the last answer, as ALPN names it: http/1.1, http/1.0 or h2. */
  readonly protocol: string;
  /**
   * Whether the last request was written on an open connection (the target got it). False when it
   * failed before: a connection error (refused, reset or timed out while connecting, a TLS or DNS
   * failure, the SSRF guard's refusal, a server that does not speak the protocol).
   */
  readonly reached: boolean;
  /** The body of the last answer, when the send asked to keep it. */
  readonly body: Buffer | null;
  /** Sends the test's request, or `step`'s; `done` is called once. */
  send(done: Completion, step?: Step<R>): void;
  /**
   * Opens the connection before its first request, when the protocol can (a timed replay's start must not wait for it).
   */
  warm?(): void;
  /** Gives up on the request in flight (timeout or stop). */
  abort(error: Error): void;
  close(): void;
}

/** The most of an answer's body kept for a scenario's captures. */
export const MAX_BODY_BYTES = 64 * 1024;

/** The start of an answer's body, kept for a scenario's captures. */
export class KeptBody {
  private on = false;
  private parts: Buffer[] = [];
  private bytes = 0;

  /** Starts keeping the next answer's body (or not). */
  reset(keep: boolean) {
    this.on = keep;
    if (keep) {
      this.parts = [];
      this.bytes = 0;
    }
  }

  get keeping(): boolean {
    return this.on;
  }

  add(chunk: Buffer) {
    if (!this.on || this.bytes >= MAX_BODY_BYTES) return;
    const part = chunk.subarray(0, MAX_BODY_BYTES - this.bytes);
    this.parts.push(Buffer.from(part));
    this.bytes += part.length;
  }

  get body(): Buffer | null {
    return this.on ? Buffer.concat(this.parts) : null;
  }
}

/** An error with a code: the kind the results count it under. */
export const errorOf = (message: string, code: string): Error => Object.assign(new Error(message), { code });
