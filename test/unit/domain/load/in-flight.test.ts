import { describe, expect, it } from 'vitest';
import type { LoadConnection } from '../../../../domain/load/http/connection.ts';
import { InFlightRequests } from '../../../../domain/load/in-flight.ts';
import type { ShardTally } from '../../../../domain/load/metrics/tally.ts';

describe('InFlightRequests', () => {
  it("counts each answer with its own request's second and time, one record per connection reused", () => {
    const counted: Array<[number, number, number]> = [];
    const tally = {
      answered: (second: number, scheduledAt: number, status: number) => {
        counted.push([second, scheduledAt, status]);
        return 7;
      },
    } as unknown as ShardTally;
    const connection = { body: null, reached: true } as unknown as LoadConnection<unknown>;
    const other = { body: null, reached: false } as unknown as LoadConnection<unknown>;
    const requests = new InFlightRequests(tally);
    const told: Array<[number, number | null]> = [];
    const job = { answered: (latencyUs: number) => told.push([latencyUs, null]) } as never;
    const afters: Array<[string, boolean, boolean]> = [];

    // The first request's answer sends the next on the same connection from its `after`: the record is
    // reused, and the first answer was counted with its own figures before that.
    let done = requests.completion(
      connection,
      3,
      3000.5,
      (failed, reached) => {
        afters.push(['first', failed, reached]);
        done = requests.completion(connection, 4, 4100.25, (f, r) => afters.push(['second', f, r]), undefined);
      },
      job,
    );
    const first = done;
    first(200, null);
    expect(done).toBe(first);
    done(503, null);
    requests.completion(other, 5, 5000, (f, r) => afters.push(['other', f, r]), undefined)(0, new Error('refused'));

    expect(counted).toEqual([
      [3, 3000.5, 200],
      [4, 4100.25, 503],
      [5, 5000, 0],
    ]);
    expect(told).toEqual([[7, null]]);
    expect(afters).toEqual([
      ['first', false, true],
      ['second', false, true],
      ['other', true, false],
    ]);
  });
});
