// Values of flags, checked where they are given (a bad one is wrong usage: exit 2, naming the flag).
import { InvalidArgumentError } from 'commander';
import { UsageError } from '../errors.ts';

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
