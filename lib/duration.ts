// Durations as people write them, one reading for every door (the REST body, MCP's arguments, the
// dashboard's form, the CLI's flags): seconds as a number (90, or "90"), or hours, minutes and
// seconds in that order, each part optional ("90s", "10m", "1h30m", "1m30", "1.5s", "1h 30m").

const PART = String.raw`(\d+(?:\.\d+)?)`;
// A space only inside the part it comes before: two quantifiers over spaces side by side took time
// quadratic in a run of them (3.4 s for 40 KB).
const DURATION = new RegExp(String.raw`^(?:${PART}h)?(?:\s*${PART}m(?!s))?(?:\s*${PART}(s?))?$`, 'i');
/** The longest duration read ("1h 30m 15.25s" is 13 characters). */
const MAX_DURATION_LENGTH = 32;

/** What a duration looks like, for messages. */
export const DURATION_EXAMPLES = '90, "90s", "10m" or "1h30m"';

/** The seconds `given` says (a number of seconds, or a string as above), or null when it says none. */
export function parseDuration(given: unknown): number | null {
  if (typeof given === 'number') return Number.isFinite(given) && given >= 0 ? given : null;
  if (typeof given !== 'string') return null;
  const text = given.trim();
  if (text.length > MAX_DURATION_LENGTH) return null;
  const m = DURATION.exec(text);
  if (!text || !m || !(m[1] || m[2] || m[3])) return null;
  // "1h30" could be minutes or seconds: a bare number right after hours is refused.
  if (m[1] && !m[2] && m[3] && !m[4]) return null;
  const seconds = Number(m[1] ?? 0) * 3600 + Number(m[2] ?? 0) * 60 + Number(m[3] ?? 0);
  // Parts in hundredths at most: 0.1 + 0.2 is 0.3 here, as a person reads it.
  return Math.round(seconds * 1000) / 1000;
}

/** Whole seconds as `parseDuration` reads them back, largest unit first: 300 is "5m", 5400 "1h30m". */
export const spellDuration = (seconds: number) =>
  (
    [
      [Math.floor(seconds / 3600), 'h'],
      [Math.floor((seconds % 3600) / 60), 'm'],
      [seconds % 60, 's'],
    ] as const
  )
    .filter(([n]) => n > 0)
    .map(([n, unit]) => `${n}${unit}`)
    .join('') || '0s';
