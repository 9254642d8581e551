// Contrast of text (WCAG 2.x: 4.5:1 normal, 3:1 large text) from declared colours: the same rule, or
// inherited through the selectors that match an element and its ancestors. What the source cannot
// decide (text over images, gradients, translucent or variable colours) is returned for review.
import { isText, type Element } from 'domhandler';
import { contrastRatio, formatRatio, nearestPassing, parseColor, toHex, type Rgba } from './colors.ts';
import { describe, expandShorthand, toPx, type StyleIndex } from './styles.ts';
import { excerpt, type AuditInput, type Finding, type Review } from './model.ts';

export const CONTRAST_NORMAL = 4.5;
export const CONTRAST_LARGE = 3;
const WHITE: Rgba = { r: 255, g: 255, b: 255, a: 1 };
const BLACK: Rgba = { r: 0, g: 0, b: 0, a: 1 };

const MEDIA = new Set(['img', 'picture', 'video', 'canvas', 'svg']);

export function contrast(input: AuditInput): { findings: Finding[]; needsReview: Review[] } {
  const seen = new Set<string>();
  const out: Finding[] = [];
  const needsReview: Review[] = [];
  const undecided = (selector: string, reason: string, evidence: string) => {
    const key = `${selector}|${reason}`;
    if (seen.has(key)) return;
    seen.add(key);
    needsReview.push({ rule: 'contrast', category: 'accessibility', selector, reason, evidence: excerpt(evidence) });
  };
  const report = (selector: string, fg: Rgba, bg: Rgba, large: boolean, evidence: string) => {
    const ratio = contrastRatio(fg, bg);
    const threshold = large ? CONTRAST_LARGE : CONTRAST_NORMAL;
    if (ratio >= threshold) return;
    const key = `${selector}|${toHex(fg)}|${toHex(bg)}`;
    if (seen.has(key)) return;
    seen.add(key);
    const fixed = toHex(nearestPassing(fg, bg, threshold));
    out.push({
      rule: 'contrast',
      category: 'accessibility',
      severity: ratio < 3 ? 'high' : 'medium',
      selector,
      property: 'color',
      measured: `${formatRatio(ratio)} (${toHex(fg)} on ${toHex(bg)})`,
      threshold: `${threshold}:1${large ? ' (large text)' : ''}`,
      fix: `color: ${fixed} (${formatRatio(contrastRatio(nearestPassing(fg, bg, threshold), bg))} on ${toHex(bg)})`,
      evidence: excerpt(evidence),
    });
  };

  // Pairs declared in one rule (states included: a hover colour must be readable too).
  for (const rule of input.styles.rules) {
    const props = new Map(rule.declarations.flatMap((d) => expandShorthand(d)));
    const color = props.get('color');
    const background = props.get('background-color');
    const image = props.get('background-image');
    if (!color || (!background && !hasImage(image))) continue;
    const fg = parseColor(color);
    const bg = parseColor(background ?? '');
    const evidenceOf =
      `${rule.selector} { color: ${color}${background ? `; background-color: ${background}` : ''}` +
      `${hasImage(image) ? `; background-image: ${image}` : ''} }`;
    if (bg?.a === 0 && !hasImage(image)) continue; // transparent: the element's own backdrop decides (the walk below)
    const why = hasImage(image)
      ? 'text over a background image or gradient'
      : !fg || !bg
        ? 'a colour the source does not resolve (a variable or function)'
        : bg.a < 1
          ? 'a translucent background: what shows through is decided by the layout'
          : null;
    if (why) {
      undecided(rule.selector, why, evidenceOf);
      continue;
    }
    if (!fg || !bg) continue;
    const size = toPx(props.get('font-size'));
    const bold = Number(normaliseWeight(props.get('font-weight') ?? '400')) >= 700;
    report(
      rule.selector,
      fg,
      bg,
      isLarge(size ?? 16, bold),
      `${rule.selector} { color: ${props.get('color')}; background-color: ${props.get('background-color')} }`,
    );
  }

  // Text on elements, with colour and background inherited from the rules that match the ancestors.
  for (const el of input.elements) {
    const text = ownText(el);
    if (!text || ['script', 'style', 'title', 'head', 'noscript', 'option'].includes(el.name)) continue;
    const color = input.styles.get(el, 'color');
    const over = mediaBeneath(input.styles, el);
    if (over) {
      const position = input.styles.own(over.positioned).get('position')!;
      const where = position.from === 'style attribute' ? describe(over.positioned) : position.from;
      undecided(
        where,
        `text positioned over ${over.media}: its contrast depends on the picture`,
        `<${el.name}> "${text}" in ${describe(over.positioned)} (position: ${position.value} from ${position.from})`,
      );
      continue;
    }
    const background = visibleBackground(input.styles, el);
    if (background && 'unknown' in background) {
      undecided(
        background.from,
        background.unknown,
        `<${el.name}> "${text}" on ${background.value} from ${background.from}`,
      );
      continue;
    }
    if (!color && !background) continue; // browser defaults only: black on white
    const fg = color ? parseColor(color.value) : BLACK;
    const bg = background?.colour ?? WHITE;
    if (!fg) {
      undecided(
        color!.from,
        'a colour the source does not resolve (a variable or function)',
        `<${el.name}> "${text}" color ${color!.value} from ${color!.from}`,
      );
      continue;
    }
    const size = fontSizePx(input.styles, el);
    const bold =
      Number(
        normaliseWeight(
          input.styles.get(el, 'font-weight')?.value ?? (/^h[1-6]$|^(b|strong|th)$/.test(el.name) ? '700' : '400'),
        ),
      ) >= 700;
    const selector = color && color.from !== 'style attribute' ? color.from : describe(el);
    report(
      selector,
      fg,
      bg,
      isLarge(size, bold),
      `<${el.name}> "${text}" color ${color?.value ?? 'default'} from ${color?.from ?? 'the browser'}, ` +
        `background ${background ? `${background.value} from ${background.from}` : 'default white'}`,
    );
  }
  return { findings: out, needsReview };
}

/**
 * Text laid over a picture: the element or an ancestor is positioned out of the flow (absolute or
 * fixed) inside a parent that also holds an image, video, canvas or svg outside it (a hero caption).
 */
function mediaBeneath(styles: StyleIndex, el: Element): { positioned: Element; media: string } | null {
  for (let current: Element | null = el; current?.name; current = current.parent as Element | null) {
    // A caption with its own opaque background is decided on that background.
    const own = parseColor(styles.own(current).get('background-color')?.value ?? '');
    if (own && own.a === 1) return null;
    const position = styles.own(current).get('position')?.value.trim().toLowerCase();
    if (position !== 'absolute' && position !== 'fixed') continue;
    const parent = current.parent as Element | null;
    const media = parent?.children?.flatMap((c) =>
      c === current || c.type !== 'tag' ? [] : findMedia(c as Element),
    )[0];
    return media ? { positioned: current, media: media === 'img' ? 'an image' : `a ${media}` } : null;
  }
  return null;
}

function findMedia(el: Element): string[] {
  if (MEDIA.has(el.name)) return [el.name];
  return (el.children ?? []).flatMap((c) => (c.type === 'tag' ? findMedia(c as Element) : []));
}

function isLarge(px: number, bold: boolean): boolean {
  // 18pt = 24px; 14pt bold = 18.67px.
  return px >= 24 || (bold && px >= 18.66);
}

/** The browsers' own sizes of headings, relative to the parent's font size. */
const HEADING_EM: Record<string, number> = { h1: 2, h2: 1.5, h3: 1.17, h4: 1, h5: 0.83, h6: 0.67 };

/**
 * The element's font size: its own declaration (em relative to the parent), else a heading's size in
 * the browsers' stylesheet (which beats inheriting the body's), else the parent's; 16px at the root.
 */
function fontSizePx(styles: StyleIndex, el: Element | null): number {
  if (!el?.name) return 16;
  const parent = () => fontSizePx(styles, el.parent as Element | null);
  const own = styles.own(el).get('font-size')?.value;
  if (own !== undefined) {
    const percent = /^(\d*\.?\d+)%$/.exec(own.trim());
    if (percent) return (parseFloat(percent[1]!) / 100) * parent();
    return toPx(own, /rem$/.test(own.trim()) ? 16 : parent()) ?? parent();
  }
  const heading = HEADING_EM[el.name];
  return heading ? heading * parent() : parent();
}

function hasImage(value: string | undefined): boolean {
  return value !== undefined && value.trim().toLowerCase() !== 'none';
}

/**
 * The colour the element's text sits on: the nearest opaque background colour of it or an ancestor;
 * null when none is declared (the browser's white); `unknown` with the reason when the CSS cannot
 * tell (a background image or gradient, a variable, a translucent colour).
 */
function visibleBackground(
  styles: StyleIndex,
  el: Element,
): { colour: Rgba; value: string; from: string } | { unknown: string; value: string; from: string } | null {
  for (let current: Element | null = el; current?.name; current = current.parent as Element | null) {
    const image = styles.own(current).get('background-image');
    if (image && hasImage(image.value))
      return { unknown: 'text over a background image or gradient', value: image.value, from: image.from };
    const d = styles.own(current).get('background-color');
    if (!d) continue;
    const colour = parseColor(d.value);
    if (!colour)
      return {
        unknown: 'a background colour the source does not resolve (a variable or function)',
        value: d.value,
        from: d.from,
      };
    if (colour.a === 0) continue;
    if (colour.a < 1)
      return {
        unknown: 'a translucent background: what shows through is decided by the layout',
        value: d.value,
        from: d.from,
      };
    return { colour, value: d.value, from: d.from };
  }
  return null;
}

function normaliseWeight(v: string): string {
  const w = v.trim().toLowerCase();
  return w === 'bold' || w === 'bolder' ? '700' : w === 'normal' || w === 'lighter' ? '400' : w;
}

function ownText(el: Element): string {
  return el.children
    .filter(isText)
    .map((c) => c.data)
    .join(' ')
    .replace(/\s+/g, ' ')
    .trim();
}
