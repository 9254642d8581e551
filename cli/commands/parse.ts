// Values of flags, checked where they are given (a bad one is wrong usage: exit 2, naming the flag).
import { InvalidArgumentError } from 'commander';
import { parseDuration } from '../../lib/duration.ts';
import { UsageError } from '../errors.ts';

/** "30", "30s", "5m", "1h", "1m30s": seconds, read as the API reads a duration (lib/duration.ts). */
export function seconds(flag: string) {
  return (value: string): number => {
    const s = parseDuration(value);
    if (s === null) throw new UsageError(`${flag}: "${value}" is not a duration such as 30, 30s, 5m or 1m30s`);
    return s;
  };
}

export const positiveInt =
  (flag: string) =>
  (value: string): number => {
    const n = Number(value);
    if (!/^\d+$/.test(value.trim()) || !Number.isSafeInteger(n) || n < 1)
      throw new InvalidArgumentError(`${flag} must be a whole number above 0`);
    return n;
  };

/** 0 or more. */
export const wholeNumber =
  (flag: string) =>
  (value: string): number =>
    value.trim() === '0' ? 0 : positiveInt(flag)(value);

/** A number, 0 or more (a fraction too). */
export const number =
  (flag: string) =>
  (value: string): number => {
    const n = Number(value);
    if (!/^\d+(\.\d+)?$/.test(value.trim()) || !Number.isFinite(n))
      throw new InvalidArgumentError(`${flag} must be a number, 0 or more`);
    return n;
  };

/** "DURATION:TARGET", e.g. 30s:100. */
export function stage(value: string, all: Array<{ duration: number; target: number }> = []) {
  const at = value.lastIndexOf(':');
  const target = Number(value.slice(at + 1));
  if (at <= 0 || !/^\d+$/.test(value.slice(at + 1)))
    throw new UsageError(`--stage: "${value}" is not DURATION:TARGET, e.g. 30s:100`);
  return [...all, { duration: seconds('--stage')(value.slice(0, at)), target }];
}

/** "Name: value" flags as a header object. */
export function headerPairs(lines: string[], flag: string): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const at = line.indexOf(':');
    if (at <= 0) throw new UsageError(`${flag}: "${line}" is not "Name: value"`);
    headers[line.slice(0, at).trim()] = line.slice(at + 1).trim();
  }
  return headers;
}

/** The examples block of a command's --help. */
export function examples(...lines: string[]): string {
  return `\nExample${lines.length > 1 ? 's' : ''}:\n${lines.map((l) => `  $ ${l}`).join('\n')}`;
}

/** An ISO 8601 time as given, or how long ago (30s, 15m, 2h, 1h30m) as the ISO time it was then. */
export function timeOrAgo(value: string): string {
  const m = /^(?:(\d+)h)?(?:(\d+)m)?(?:(\d+)s)?$/.exec(value.trim());
  if (!m || !(m[1] || m[2] || m[3])) return value; // the API's schema judges it (named as the flag)
  const seconds = Number(m[1] ?? 0) * 3600 + Number(m[2] ?? 0) * 60 + Number(m[3] ?? 0);
  return new Date(Date.now() - seconds * 1000).toISOString();
}
