// Family 3: baseline accessibility from the source. Contrast from declared colours (same rule, or
// inherited through the selectors that match an element and its ancestors; WCAG 2.x, 4.5:1 normal and
// 3:1 large text), touch targets under 24×24 CSS px (WCAG 2.5.8) from declared sizes and padding,
// images without alt, unlabelled inputs, missing lang and title, skipped heading levels.
import type { Element } from 'domhandler';
import { textContent } from 'domutils';
import { describe, toPx } from './styles.ts';
import { excerpt, type AuditInput, type Finding, type Review } from './model.ts';
import { contrast } from './rules-contrast.ts';

export const TARGET_MIN_PX = 24;

/** Findings, and the contrast the source cannot decide (for a person to look at, never a finding). */
export function accessibilityFindings(input: AuditInput): { findings: Finding[]; needsReview: Review[] } {
  const { findings, needsReview } = contrast(input);
  return {
    findings: [
      ...findings,
      ...targets(input),
      ...images(input),
      ...labels(input),
      ...documentBasics(input),
      ...headings(input),
    ],
    needsReview,
  };
}

const TARGETS = new Set(['a', 'button', 'input', 'select', 'textarea', 'summary']);

function targets(input: AuditInput): Finding[] {
  const out: Finding[] = [];
  const seen = new Set<string>();
  for (const el of input.elements) {
    const interactive = TARGETS.has(el.name) || el.attribs.role === 'button' || el.attribs.role === 'link';
    if (
      !interactive ||
      (el.name === 'input' && /^(hidden)$/i.test(el.attribs.type ?? '')) ||
      (el.name === 'a' && el.attribs.href === undefined)
    )
      continue;
    const own = input.styles.own(el);
    const size = (axis: 'width' | 'height') => {
      const declared = toPx(own.get(axis)?.value) ?? toPx(own.get(`min-${axis}`)?.value);
      if (declared === null) return null;
      const [a, b] = axis === 'width' ? ['left', 'right'] : ['top', 'bottom'];
      const borderBox =
        /border-box/.test(input.styles.get(el, 'box-sizing')?.value ?? '') ||
        own.get('box-sizing')?.value === 'border-box';
      const padding = (toPx(own.get(`padding-${a}`)?.value) ?? 0) + (toPx(own.get(`padding-${b}`)?.value) ?? 0);
      return borderBox ? declared : declared + padding;
    };
    const w = size('width');
    const h = size('height');
    if (w === null || h === null || (w >= TARGET_MIN_PX && h >= TARGET_MIN_PX)) continue;
    const from = own.get('width')?.from ?? own.get('min-width')?.from ?? describe(el);
    const selector = from === 'style attribute' ? describe(el) : from;
    if (seen.has(selector)) continue;
    seen.add(selector);
    const needW = Math.max(0, TARGET_MIN_PX - w);
    const needH = Math.max(0, TARGET_MIN_PX - h);
    out.push({
      rule: 'target-size',
      category: 'accessibility',
      severity: 'medium',
      selector,
      property: 'width',
      measured: `${round(w)}×${round(h)} px`,
      threshold: `${TARGET_MIN_PX}×${TARGET_MIN_PX} px`,
      fix:
        `min-width: ${TARGET_MIN_PX}px; min-height: ${TARGET_MIN_PX}px (or padding: ` +
        `${Math.ceil(needH / 2)}px ${Math.ceil(needW / 2)}px around the ${round(w)}×${round(h)} box)`,
      evidence: excerpt(
        `<${el.name}${el.attribs.class ? ` class="${el.attribs.class}"` : ''}` +
          `${el.attribs['aria-label'] ? ` aria-label="${el.attribs['aria-label']}"` : ''}> ${textContent(el)}`,
      ),
    });
  }
  return out;
}

function round(n: number): number {
  return Math.round(n * 10) / 10;
}

function images(input: AuditInput): Finding[] {
  const missing = input.elements.filter(
    (e) =>
      e.name === 'img' &&
      !('alt' in e.attribs) &&
      e.attribs['aria-hidden'] !== 'true' &&
      e.attribs.role !== 'presentation',
  );
  if (!missing.length) return [];
  const first = missing[0]!;
  return [
    {
      rule: 'img-missing-alt',
      category: 'accessibility',
      severity: 'high',
      selector: first.attribs.src ? `img[src="${excerpt(first.attribs.src, 80)}"]` : describe(first),
      property: null,
      measured: `${missing.length} image(s) without alt`,
      threshold: 'every img has alt (alt="" for decorative images)',
      fix: 'Add alt="what the image shows" (or alt="" if it is decoration)',
      evidence: excerpt(missing.map((e) => `<img src="${e.attribs.src ?? ''}">`).join(' ')),
    },
  ];
}

function labels(input: AuditInput): Finding[] {
  const labelFor = new Set(
    input.elements.filter((e) => e.name === 'label' && e.attribs.for).map((e) => e.attribs.for!),
  );
  const out: Finding[] = [];
  for (const el of input.elements) {
    if (!['input', 'select', 'textarea'].includes(el.name)) continue;
    if (el.name === 'input' && /^(hidden|submit|button|reset|image)$/i.test(el.attribs.type ?? '')) continue;
    const labelled =
      (el.attribs.id && labelFor.has(el.attribs.id)) ||
      el.attribs['aria-label']?.trim() ||
      el.attribs['aria-labelledby'] ||
      el.attribs.title?.trim() ||
      insideLabel(el);
    if (labelled) continue;
    const name = el.attribs.name ? `[name="${el.attribs.name}"]` : el.attribs.id ? `#${el.attribs.id}` : '';
    out.push({
      rule: 'input-missing-label',
      category: 'accessibility',
      severity: 'high',
      selector: `${el.name}${name}`,
      property: null,
      measured: 'no label',
      threshold: 'a <label for>, a wrapping <label>, or aria-label',
      fix:
        `Add <label for="${el.attribs.id ?? el.attribs.name ?? 'field'}">…</label>` +
        `${el.attribs.id ? '' : ` and id="${el.attribs.name ?? 'field'}" on the ${el.name}`}`,
      evidence: excerpt(
        `<${el.name}${Object.entries(el.attribs)
          .map(([k, v]) => ` ${k}="${v}"`)
          .join('')}>`,
      ),
    });
  }
  return out;
}

function insideLabel(el: Element): boolean {
  for (let p = el.parent as Element | null; p?.name; p = p.parent as Element | null)
    if (p.name === 'label') return true;
  return false;
}

function documentBasics(input: AuditInput): Finding[] {
  const out: Finding[] = [];
  const html = input.elements.find((e) => e.name === 'html');
  if (!html?.attribs.lang?.trim()) {
    out.push({
      rule: 'missing-lang',
      category: 'accessibility',
      severity: 'medium',
      selector: 'html',
      property: null,
      measured: 'no lang attribute',
      threshold: 'lang on <html>',
      fix: '<html lang="en"> (the language of the page)',
      evidence: html
        ? excerpt(
            `<html${Object.entries(html.attribs)
              .map(([k, v]) => ` ${k}="${v}"`)
              .join('')}>`,
          )
        : '(no <html> element)',
    });
  }
  const title = input.elements.find((e) => e.name === 'title');
  if (!title || !textContent(title).trim()) {
    out.push({
      rule: 'missing-title',
      category: 'accessibility',
      severity: 'high',
      selector: 'title',
      property: null,
      measured: title ? 'empty <title>' : 'no <title>',
      threshold: 'a non-empty <title>',
      fix: '<title>What this page is · Site name</title>',
      evidence: title ? '<title></title>' : '(no <title> in <head>)',
    });
  }
  return out;
}

function headings(input: AuditInput): Finding[] {
  const out: Finding[] = [];
  let previous = 0;
  for (const el of input.elements) {
    const m = /^h([1-6])$/.exec(el.name);
    if (!m) continue;
    const level = Number(m[1]);
    if (previous && level > previous + 1) {
      out.push({
        rule: 'skipped-heading-level',
        category: 'accessibility',
        severity: 'low',
        selector: el.name,
        property: null,
        measured: `h${previous} followed by h${level}`,
        threshold: `h${previous + 1} at most`,
        fix: `Make it an <h${previous + 1}> (style it with CSS if it must look smaller)`,
        evidence: excerpt(`<h${level}>${textContent(el)}</h${level}>`),
      });
    }
    previous = level;
  }
  return out;
}
