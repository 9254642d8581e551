// Variants of one operation measured in turn on one thread: a warm-up of each, then rounds in which
// every variant runs once, each round starting with the next one (none always runs after the same
// one); the median of each. Ours is the first; the others are printed as a multiple of its time.
import { median } from './load/machine.ts';

/** The median of `rounds` measures of each variant, in its order. */
export async function inTurn<V>(
  variants: readonly V[],
  rounds: number,
  measure: (variant: V) => number | Promise<number>,
): Promise<number[]> {
  const times = variants.map(() => [] as number[]);
  for (const variant of variants) await measure(variant);
  for (let r = 0; r < rounds; r++)
    for (let k = 0; k < variants.length; k++) {
      const i = (r + k) % variants.length;
      const variant = variants[i];
      if (variant !== undefined) times[i]?.push(await measure(variant));
    }
  return times.map(median);
}

/** A row a variant: its time, and beside the others' how many times ours theirs is. */
export function printBeside(names: readonly string[], medians: readonly number[], unit: string): void {
  const ours = medians[0] ?? NaN;
  for (const [i, name] of names.entries()) {
    const t = medians[i] ?? NaN;
    const ratio = i ? `   ${(t / ours).toFixed(2)}x netops's time` : '';
    console.log(`    ${name.padEnd(42)} ${t.toFixed(1).padStart(7)} ${unit}${ratio}`);
  }
}
