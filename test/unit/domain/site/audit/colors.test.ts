// Contrast, checked against known WCAG pairs.
import { describe, expect, it } from 'vitest';
import {
  contrastRatio,
  formatRatio,
  nearestPassing,
  parseColor,
  toHex,
} from '../../../../../domain/site/audit/colors.ts';

describe('contrast', () => {
  const ratio = (a: string, b: string) => contrastRatio(parseColor(a)!, parseColor(b)!);
  it('matches known WCAG pairs', () => {
    expect(formatRatio(ratio('#777', '#fff'))).toBe('4.48:1');
    expect(ratio('#777', '#fff')).toBeLessThan(4.5);
    expect(formatRatio(ratio('#767676', '#fff'))).toBe('4.54:1');
    expect(formatRatio(ratio('#000', '#fff'))).toBe('21.00:1');
    expect(formatRatio(ratio('#fff', '#fff'))).toBe('1.00:1');
    expect(formatRatio(ratio('#595959', '#fff'))).toBe('7.00:1');
    expect(formatRatio(ratio('rgb(0 0 255)', 'white'))).toBe('8.59:1');
    expect(formatRatio(ratio('hsl(0, 0%, 46.7%)', '#ffffff'))).toBe('4.48:1');
  });
  it('proposes the nearest colour that passes', () => {
    expect(toHex(nearestPassing(parseColor('#777')!, parseColor('#fff')!, 4.5))).toBe('#767676');
    const light = nearestPassing(parseColor('#666')!, parseColor('#333')!, 4.5);
    expect(contrastRatio(light, parseColor('#333')!)).toBeGreaterThanOrEqual(4.5);
  });
  it('reads the notations pages use, and not what it cannot', () => {
    expect(toHex(parseColor('#abc')!)).toBe('#aabbcc');
    expect(toHex(parseColor('rgba(255, 0, 0, 0.5)')!)).toBe('#ff000080');
    expect(parseColor('var(--brand)')).toBeNull();
    expect(parseColor('linear-gradient(red, blue)')).toBeNull();
  });
});
