// What a shard's generator (generator.ts) counts of its requests: sent and in flight, answered by
// status, failed by kind, latencies (HDR histogram, µs) and their phases, requests per second, answers
// by protocol, bytes on the sockets, each second's figures; and the snapshot made of them.
// A connection error (the attempt failed before its request was written: refused, reset or timed out
// while connecting, TLS, DNS, the SSRF guard) is counted apart: by kind in `errors` and in
// `connectionErrors`, never in the requests, their latencies or their seconds' sent and answered,
// so that `total` is what the target got and the percentiles are those of the requests it got.
import { performance } from 'node:perf_hooks';
import type { ShardSnapshot } from '../../../lib/load/snapshot.ts';
import { AppError } from '../../../lib/errors.ts';
import type { LoadConnection } from '../http/connection.ts';
import { encodeHistogram, newHistogram } from './histogram.ts';
import type { Http2Counts } from '../http/http2.ts';
import { PerSecondCounts } from './per-second.ts';
import { PhaseHistograms } from '../phases.ts';
import { SocketBytes } from '../http/socket-bytes.ts';

export class ShardTally {
  readonly stats = {
    total: 0,
    successful: 0,
    failed: 0,
    connectionErrors: 0,
    latencySumUs: 0,
    inFlight: 0,
    dropped: 0,
    firstSentAt: null as number | null,
  };
  readonly bytes = new SocketBytes();
  private readonly histogram = newHistogram();
  private readonly phases = new PhaseHistograms();
  private readonly statusCodes: Record<string, number> = {};
  private readonly errors: Record<string, number> = {};
  private readonly perSecond = new PerSecondCounts();
  /** Answers by the protocol that gave them (http/1.1, h2). */
  private readonly protocols: Record<string, number> = {};
  /** HTTP/2: the connections opened, and the lowest stream limit a server set (its connections count here). */
  readonly http2: Http2Counts | null;

  /** Requests sent, counted where the shard's owner reads them at any moment (threads.ts: sentSoFar); mod 2^32. */
  private readonly sentCount: Uint32Array | null;

  constructor(http2: boolean, sentCount?: Uint32Array) {
    this.http2 = http2 ? { connections: 0, serverMaxStreams: null } : null;
    this.sentCount = sentCount ?? null;
  }

  /** A request sent in `second` of the test. */
  sent(second: number) {
    if (this.sentCount) Atomics.add(this.sentCount, 0, 1);
    this.perSecond.countSent(second);
    this.stats.inFlight += 1;
    this.stats.firstSentAt ??= Date.now();
  }

  /**
   * The answer (or error) to a request of `second`, scheduled at `scheduledAt`, on `connection`: its
   * latency in µs (0 for a connection error: the request was never sent).
   */
  answered(
    second: number,
    scheduledAt: number,
    status: number,
    error: Error | null,
    connection: LoadConnection<unknown>,
  ) {
    const s = this.stats;
    s.inFlight -= 1;
    if (error) {
      // A socket error's code (ECONNREFUSED, ...), else the error's name (ForbiddenAddressError, ...).
      const kind = (error instanceof AppError ? undefined : (error as NodeJS.ErrnoException).code) ?? error.name;
      this.errors[kind] = (this.errors[kind] ?? 0) + 1;
      if (!connection.reached) {
        s.connectionErrors += 1;
        this.perSecond.countConnectionError(second);
        return 0;
      }
    }
    const latencyUs = Math.max(1, Math.round((performance.now() - scheduledAt) * 1000));
    s.total += 1;
    s.latencySumUs += latencyUs;
    this.histogram.recordValue(latencyUs);
    if (error) {
      this.perSecond.countAnswer(second, latencyUs, true);
      s.failed += 1;
    } else {
      if (status < 400) s.successful += 1;
      else s.failed += 1;
      this.statusCodes[status] = (this.statusCodes[status] ?? 0) + 1;
      this.phases.record(connection.phases);
      this.perSecond.countAnswer(second, latencyUs, status >= 400, status, connection.phases);
      this.protocols[connection.protocol] = (this.protocols[connection.protocol] ?? 0) + 1;
    }
    return latencyUs;
  }

  /**
   * The running totals, with the seconds' figures counted since the previous snapshot (handed out
   * once: per-second.ts); the phases' histograms only `withPhases` (five encodes: shard.ts, PHASES_EVERY).
   */
  snapshot(withPhases = true): ShardSnapshot {
    return {
      ...this.stats,
      ...this.bytes.totals(),
      histogram: encodeHistogram(this.histogram),
      statusCodes: { ...this.statusCodes },
      errors: { ...this.errors },
      takenAt: Date.now(),
      ...(withPhases ? { phases: this.phases.snapshot() } : {}),
      protocols: { ...this.protocols },
      ...(this.http2 ? { http2: { ...this.http2 } } : {}),
      sending: this.perSecond.sent(),
      newSeconds: this.perSecond.drain(),
    };
  }
}
