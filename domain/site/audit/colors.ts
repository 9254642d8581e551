// CSS colours for the audit: parsed from the notations pages use (hex, rgb(), hsl(), named), WCAG 2.x
// relative luminance and contrast ratio, and the nearest colour that reaches a contrast target.

export interface Rgba {
  r: number;
  g: number;
  b: number;
  a: number;
}

// The named colours pages use most; others are left unparsed (and counted as their name in budgets).
const NAMED: Record<string, string> = {
  black: '#000000',
  white: '#ffffff',
  red: '#ff0000',
  green: '#008000',
  blue: '#0000ff',
  yellow: '#ffff00',
  gray: '#808080',
  grey: '#808080',
  silver: '#c0c0c0',
  maroon: '#800000',
  navy: '#000080',
  purple: '#800080',
  teal: '#008080',
  olive: '#808000',
  orange: '#ffa500',
  lime: '#00ff00',
  aqua: '#00ffff',
  fuchsia: '#ff00ff',
  lightgray: '#d3d3d3',
  lightgrey: '#d3d3d3',
  darkgray: '#a9a9a9',
  darkgrey: '#a9a9a9',
  dimgray: '#696969',
  whitesmoke: '#f5f5f5',
  gainsboro: '#dcdcdc',
  pink: '#ffc0cb',
  brown: '#a52a2a',
  gold: '#ffd700',
  transparent: '#00000000',
};

/** The colour of a CSS value, or null when it is not a plain colour (var(), gradients, currentColor...). */
export function parseColor(raw: string): Rgba | null {
  const v = raw.trim().toLowerCase();
  const named = NAMED[v];
  if (named) return parseColor(named);
  let m = /^#([0-9a-f]{3,4}|[0-9a-f]{6}|[0-9a-f]{8})$/.exec(v);
  if (m) {
    let hex = m[1]!;
    if (hex.length <= 4) hex = [...hex].map((c) => c + c).join('');
    const n = (i: number) => parseInt(hex.slice(i, i + 2), 16);
    return { r: n(0), g: n(2), b: n(4), a: hex.length === 8 ? n(6) / 255 : 1 };
  }
  m = /^rgba?\(\s*([^)]*)\)$/.exec(v);
  if (m) {
    const parts = m[1]!.split(/[\s,/]+/).filter(Boolean);
    if (parts.length < 3) return null;
    const channel = (p: string) => (p.endsWith('%') ? (parseFloat(p) * 255) / 100 : parseFloat(p));
    const [r, g, b] = parts.slice(0, 3).map(channel);
    const a = parts[3] === undefined ? 1 : parts[3].endsWith('%') ? parseFloat(parts[3]) / 100 : parseFloat(parts[3]);
    if ([r, g, b, a].some((x) => !Number.isFinite(x))) return null;
    return { r: clamp(r!, 255), g: clamp(g!, 255), b: clamp(b!, 255), a: clamp(a, 1) };
  }
  m = /^hsla?\(\s*([^)]*)\)$/.exec(v);
  if (m) {
    const parts = m[1]!.split(/[\s,/]+/).filter(Boolean);
    if (parts.length < 3) return null;
    const h = ((parseFloat(parts[0]!) % 360) + 360) % 360;
    const s = parseFloat(parts[1]!) / 100;
    const l = parseFloat(parts[2]!) / 100;
    const a = parts[3] === undefined ? 1 : parts[3].endsWith('%') ? parseFloat(parts[3]) / 100 : parseFloat(parts[3]);
    if ([h, s, l, a].some((x) => !Number.isFinite(x))) return null;
    const k = (n: number) => (n + h / 30) % 12;
    const f = (n: number) => l - s * Math.min(l, 1 - l) * Math.max(-1, Math.min(k(n) - 3, 9 - k(n), 1));
    return { r: Math.round(f(0) * 255), g: Math.round(f(8) * 255), b: Math.round(f(4) * 255), a: clamp(a, 1) };
  }
  return null;
}

function clamp(x: number, max: number): number {
  return Math.max(0, Math.min(max, x));
}

export function toHex(c: Rgba): string {
  const h = (x: number) => Math.round(x).toString(16).padStart(2, '0');
  return `#${h(c.r)}${h(c.g)}${h(c.b)}${c.a < 1 ? h(c.a * 255) : ''}`;
}

/** WCAG 2.x relative luminance of an opaque colour. */
export function luminance(c: Rgba): number {
  const lin = (x: number) => {
    const s = x / 255;
    return s <= 0.04045 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * lin(c.r) + 0.7152 * lin(c.g) + 0.0722 * lin(c.b);
}

/** `fg` over `bg` (alpha composited), as WCAG's ratio (1..21). */
export function contrastRatio(fg: Rgba, bg: Rgba): number {
  const over =
    fg.a < 1
      ? {
          r: fg.r * fg.a + bg.r * (1 - fg.a),
          g: fg.g * fg.a + bg.g * (1 - fg.a),
          b: fg.b * fg.a + bg.b * (1 - fg.a),
          a: 1,
        }
      : fg;
  const [l1, l2] = [luminance(over), luminance(bg)].sort((a, b) => b - a) as [number, number];
  return (l1 + 0.05) / (l2 + 0.05);
}

/**
 * The colour nearest to `fg` (same hue, moved toward black or white, whichever reaches it first)
 * whose contrast on `bg` is at least `target`.
 */
export function nearestPassing(fg: Rgba, bg: Rgba, target: number): Rgba {
  const towards = (end: number) => {
    for (let step = 1; step <= 255; step++) {
      const t = step / 255;
      const c = { r: fg.r + (end - fg.r) * t, g: fg.g + (end - fg.g) * t, b: fg.b + (end - fg.b) * t, a: 1 };
      const rounded = { r: Math.round(c.r), g: Math.round(c.g), b: Math.round(c.b), a: 1 };
      if (contrastRatio(rounded, bg) >= target) return { colour: rounded, step };
    }
    return null;
  };
  const options = [towards(0), towards(255)]
    .filter((o): o is { colour: Rgba; step: number } => o !== null)
    .sort((a, b) => a.step - b.step);
  return options[0]?.colour ?? (luminance(bg) > 0.5 ? { r: 0, g: 0, b: 0, a: 1 } : { r: 255, g: 255, b: 255, a: 1 });
}

/** Ratio to two decimals (#777 on #fff is 4.48:1), never rounded up onto a threshold it misses. */
export function formatRatio(ratio: number): string {
  let shown = Math.round(ratio * 100) / 100;
  for (const threshold of [3, 4.5, 7])
    if (ratio < threshold && shown >= threshold) shown = Math.floor(ratio * 100) / 100;
  return `${shown.toFixed(2)}:1`;
}
