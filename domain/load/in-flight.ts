// What each connection's request in flight is counted with when its answer comes (a connection carries
// one request at a time): one record and one completion a connection, reused by each of its requests,
// where a closure a request had been a large share of what a load thread allocated (its GC's work).
import type { Completion, Job, LoadConnection } from './http/connection.ts';
import type { ShardTally } from './metrics/tally.ts';

/** After an answer: whether it failed, and whether the target got the request (no: a connection error). */
export type Then = (failed: boolean, reached: boolean) => void;

interface InFlight {
  second: number;
  scheduledAt: number;
  after: Then;
  job: Job<unknown> | undefined;
  readonly done: Completion;
}

export class InFlightRequests {
  private readonly tally: ShardTally;
  private readonly records = new Map<LoadConnection<unknown>, InFlight>();

  constructor(tally: ShardTally) {
    this.tally = tally;
  }

  /**
   * The completion of `connection`'s next request: its answer is counted in `second`, its latency from
   * `scheduledAt` (and told to `job`), then `after` runs.
   */
  completion(
    connection: LoadConnection<unknown>,
    second: number,
    scheduledAt: number,
    after: Then,
    job: Job<unknown> | undefined,
  ): Completion {
    let record = this.records.get(connection);
    if (!record) {
      const made: InFlight = {
        second,
        scheduledAt,
        after,
        job,
        done: (status, error) => {
          // Read before `after`, which may send this connection's next request and so reuse the record.
          const { second, scheduledAt, after, job } = made;
          const latencyUs = this.tally.answered(second, scheduledAt, status, error, connection);
          job?.answered(latencyUs, status, error, connection.body, connection.reached);
          after(error !== null, connection.reached);
        },
      };
      record = made;
      this.records.set(connection, made);
    }
    record.second = second;
    record.scheduledAt = scheduledAt;
    record.after = after;
    record.job = job;
    return record.done;
  }
}
