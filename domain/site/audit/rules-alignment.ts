// Family 2: alignment bugs visible in the source: mixed text-align among siblings, spacing values off
// the page's own scale, negative margins compensating for padding, fixed widths wider than a phone,
// absolute positioning with magic offsets, and inconsistent radius or gap within one component group.
import type { Element } from 'domhandler';
import { describe, expandShorthand, toPx, type Rule } from './styles.ts';
import { excerpt, type AuditInput, type Finding } from './model.ts';

/** A phone held upright: fixed widths above this scroll sideways on one. */
export const NARROW_VIEWPORT_PX = 375;
const SPACING_PROPS = /^(margin|padding)(-(top|right|bottom|left))?$|^(row-|column-)?gap$/;

export function alignmentFindings(input: AuditInput): Finding[] {
  return [
    ...mixedTextAlign(input),
    ...offScale(input.styles.rules),
    ...negativeMargins(input.styles.rules),
    ...fixedWidths(input.styles.rules),
    ...magicOffsets(input.styles.rules),
    ...componentConsistency(input.styles.rules),
  ];
}

function mixedTextAlign(input: AuditInput): Finding[] {
  const out: Finding[] = [];
  for (const parent of input.elements) {
    const kids = parent.children.filter((c): c is Element => c.type === 'tag');
    if (kids.length < 2) continue;
    const declared = kids.map((k) => ({ el: k, d: input.styles.own(k).get('text-align') })).filter((x) => x.d);
    const values = new Set(declared.map((x) => normaliseAlign(x.d!.value)));
    if (declared.length < 2 || values.size < 2) continue;
    out.push({
      rule: 'mixed-text-align',
      category: 'alignment',
      severity: 'medium',
      selector: describe(parent),
      property: 'text-align',
      measured: `siblings aligned ${[...values].sort().join(' and ')}`,
      threshold: 'one text-align among siblings',
      fix:
        `text-align: ${mostCommon(declared.map((x) => normaliseAlign(x.d!.value)))} on every child of ` +
        `${describe(parent)} (or set it once on ${describe(parent)})`,
      evidence: excerpt(
        declared.map((x) => `${describe(x.el)} { text-align: ${x.d!.value} } (${x.d!.from})`).join('; '),
      ),
    });
  }
  return out;
}

function normaliseAlign(v: string): string {
  const a = v.trim().toLowerCase();
  return a === 'start' ? 'left' : a === 'end' ? 'right' : a;
}

function mostCommon(values: string[]): string {
  const counts = new Map<string, number>();
  for (const v of values) counts.set(v, (counts.get(v) ?? 0) + 1);
  return [...counts].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))[0]![0];
}

interface SpacingUse {
  px: number;
  raw: string;
  selector: string;
  property: string;
}

function spacingUses(rules: Rule[]): SpacingUse[] {
  const out: SpacingUse[] = [];
  for (const rule of rules) {
    for (const d of rule.declarations) {
      for (const [property, value] of expandShorthand(d)) {
        if (!SPACING_PROPS.test(property)) continue;
        for (const token of value.split(/\s+/)) {
          const px = toPx(token);
          if (px !== null && px !== 0) out.push({ px: Math.abs(px), raw: token, selector: rule.selector, property });
        }
      }
    }
  }
  return out;
}

/**
 * The page's spacing scale: the largest of 8 and 4 that at least 75% of its spacing values (6 or more) are multiples
 * of.
 */
export function spacingScale(values: number[]): { base: number; share: number } | null {
  const candidates = values.filter((v) => v > 2);
  if (candidates.length < 6) return null;
  for (const base of [8, 4]) {
    const share = candidates.filter((v) => v % base === 0).length / candidates.length;
    if (share >= 0.75) return { base, share };
  }
  return null;
}

function offScale(rules: Rule[]): Finding[] {
  const uses = spacingUses(rules);
  const scale = spacingScale(uses.map((u) => u.px));
  if (!scale) return [];
  const share = Math.round(scale.share * 100);
  const off = uses.filter((u) => u.px > 2 && u.px % scale.base !== 0);
  const byValue = new Map<number, SpacingUse[]>();
  for (const u of off) byValue.set(u.px, [...(byValue.get(u.px) ?? []), u]);
  return [...byValue].map(([px, list]) => {
    const lower = Math.floor(px / scale.base) * scale.base;
    const nearest = px - lower <= scale.base / 2 && lower > 0 ? lower : lower + scale.base;
    return {
      rule: 'off-scale-spacing',
      category: 'alignment' as const,
      severity: 'low' as const,
      selector: [...new Set(list.map((u) => u.selector))].slice(0, 3).join(', '),
      property: list[0]!.property,
      measured: `${px}px`,
      threshold: `multiples of ${scale.base}px (the page's scale: ${share}% of its spacing values)`,
      fix: `${list[0]!.property}: ${nearest}px`,
      evidence: excerpt(
        list
          .slice(0, 3)
          .map((u) => `${u.selector} { ${u.property}: ${u.raw} }`)
          .join('; '),
      ),
    };
  });
}

function negativeMargins(rules: Rule[]): Finding[] {
  const out: Finding[] = [];
  for (const rule of rules) {
    const props = new Map(rule.declarations.flatMap((d) => expandShorthand(d)));
    for (const side of ['top', 'right', 'bottom', 'left']) {
      const margin = toPx(props.get(`margin-${side}`));
      const padding = toPx(props.get(`padding-${side}`));
      if (margin === null || padding === null || margin >= 0 || Math.abs(margin) !== padding) continue;
      out.push({
        rule: 'negative-margin-compensation',
        category: 'alignment',
        severity: 'low',
        selector: rule.selector,
        property: `margin-${side}`,
        measured: `margin-${side}: ${margin}px with padding-${side}: ${padding}px`,
        threshold: 'no negative margin cancelling the same padding',
        fix: `margin-${side}: 0; padding-${side}: 0 (the two cancel out; align the parent instead)`,
        evidence: excerpt(
          `${rule.selector} { margin-${side}: ${props.get(`margin-${side}`)}; padding-${side}: ` +
            `${props.get(`padding-${side}`)} }`,
        ),
      });
    }
  }
  return out;
}

function fixedWidths(rules: Rule[]): Finding[] {
  const out: Finding[] = [];
  for (const rule of rules) {
    for (const d of rule.declarations) {
      if (d.property !== 'width' && d.property !== 'min-width') continue;
      const px = toPx(d.value);
      if (px === null || px <= NARROW_VIEWPORT_PX) continue;
      const capped = rule.declarations.some((x) => x.property === 'max-width' && /%|vw/.test(x.value));
      if (capped && d.property === 'width') continue;
      out.push({
        rule: 'fixed-width-overflow',
        category: 'alignment',
        severity: 'medium',
        selector: rule.selector,
        property: d.property,
        measured: `${d.property}: ${d.value}`,
        threshold: `at most ${NARROW_VIEWPORT_PX}px, or capped with max-width: 100%`,
        fix: `${d.property === 'width' ? `width: 100%; max-width: ${d.value}` : `min-width: 0; max-width: ${d.value}`}`,
        evidence: excerpt(`${rule.selector} { ${d.property}: ${d.value} }`),
      });
    }
  }
  return out;
}

function magicOffsets(rules: Rule[]): Finding[] {
  const out: Finding[] = [];
  const scale = spacingScale(spacingUses(rules).map((u) => u.px))?.base ?? 4;
  for (const rule of rules) {
    if (!rule.declarations.some((d) => d.property === 'position' && d.value === 'absolute')) continue;
    const odd = rule.declarations
      .filter((d) => ['top', 'right', 'bottom', 'left'].includes(d.property))
      .filter((d) => {
        const px = toPx(d.value);
        return px !== null && Math.abs(px) > 2 && Math.abs(px) % scale !== 0;
      });
    if (!odd.length) continue;
    out.push({
      rule: 'magic-absolute-offset',
      category: 'alignment',
      severity: 'low',
      selector: rule.selector,
      property: odd[0]!.property,
      measured: odd.map((d) => `${d.property}: ${d.value}`).join('; '),
      threshold: `offsets of 0, 50% or multiples of ${scale}px`,
      fix:
        `Position with flex or grid alignment, or use ` +
        `${odd.map((d) => `${d.property}: ${Math.round((toPx(d.value) ?? 0) / scale) * scale}px`).join('; ')}`,
      evidence: excerpt(
        `${rule.selector} { position: absolute; ${odd.map((d) => `${d.property}: ${d.value}`).join('; ')} }`,
      ),
    });
  }
  return out;
}

/** Class groups: `.card`, `.card-header`, `.card__footer` belong to the component `card`. */
function componentConsistency(rules: Rule[]): Finding[] {
  const groups = new Map<string, Map<string, Array<{ value: string; selector: string }>>>();
  for (const rule of rules) {
    const m = /^\.([a-zA-Z][a-zA-Z0-9]*)(?:[-_]{1,2}[a-zA-Z0-9-_]+)?$/.exec(rule.selector);
    if (!m) continue;
    for (const d of rule.declarations) {
      if (!['border-radius', 'gap'].includes(d.property)) continue;
      const byProp = groups.get(m[1]!) ?? new Map();
      byProp.set(d.property, [...(byProp.get(d.property) ?? []), { value: d.value.trim(), selector: rule.selector }]);
      groups.set(m[1]!, byProp);
    }
  }
  const out: Finding[] = [];
  for (const [component, byProp] of groups) {
    for (const [property, uses] of byProp) {
      const values = [...new Set(uses.map((u) => u.value))];
      if (values.length < 2) continue;
      out.push({
        rule: property === 'gap' ? 'inconsistent-gap' : 'inconsistent-radius',
        category: 'alignment',
        severity: 'low',
        selector: uses.map((u) => u.selector).join(', '),
        property,
        measured: `${values.length} values in .${component}: ${values.join(', ')}`,
        threshold: `one ${property} per component`,
        fix: `${property}: ${mostCommon(uses.map((u) => u.value))} on every part of .${component}`,
        evidence: excerpt(uses.map((u) => `${u.selector} { ${property}: ${u.value} }`).join('; ')),
      });
    }
  }
  return out;
}
