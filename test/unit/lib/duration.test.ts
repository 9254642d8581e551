// One reading of durations for every door: seconds as a number, or hours, minutes and seconds as people
// write them; what is not one is null (each door says so in its own words).
import { describe, expect, it } from 'vitest';
import { parseDuration } from '../../../lib/duration.ts';

describe('parseDuration', () => {
  it.each([
    [90, 90],
    [0, 0],
    ['90', 90],
    ['90s', 90],
    ['10m', 600],
    ['1h', 3600],
    ['1h30m', 5400],
    ['1h 30m', 5400],
    ['1m30s', 90],
    ['1m30', 90],
    ['1.5s', 1.5],
    [' 10M ', 600],
    ['2h0m5s', 7205],
  ])('reads %j as %d seconds', (given, seconds) => {
    expect(parseDuration(given)).toBe(seconds);
  });

  it.each([['ten'], [''], ['  '], ['-5s'], [-1], [Number.NaN], ['500ms'], ['1h30'], ['10 m'], [null], [true], [{}]])(
    'refuses %j',
    (given) => {
      expect(parseDuration(given)).toBeNull();
    },
  );
});
