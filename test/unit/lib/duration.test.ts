// One reading of durations for every door: seconds as a number, or hours, minutes and seconds as people
// write them; what is not one is null (each door says so in its own words).
import { describe, expect, it } from 'vitest';
import { parseDuration, spellDuration } from '../../../lib/duration.ts';

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

describe('parseDuration bounds', () => {
  it('reads at most 32 characters, so a long run of spaces costs nothing', () => {
    expect(parseDuration(`1h${' '.repeat(40_000)}x`)).toBeNull();
    expect(parseDuration(`1h${' '.repeat(25)}30m`)).toBe(5400);
    expect(parseDuration(`1h${' '.repeat(31)}30m`)).toBeNull();
  });
});

describe('spellDuration', () => {
  it('spells whole seconds as the fields take them, and parseDuration reads each back', () => {
    const seconds = [0, 1, 59, 60, 90, 300, 3_600, 3_661, 5_400, 86_400];
    expect(seconds.map(spellDuration)).toEqual([
      '0s',
      '1s',
      '59s',
      '1m',
      '1m30s',
      '5m',
      '1h',
      '1h1m1s',
      '1h30m',
      '24h',
    ]);
    for (const s of seconds) expect(parseDuration(spellDuration(s))).toBe(s);
  });
});
