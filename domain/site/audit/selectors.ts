// Selectors, read statically (styles.ts): a selector list split into its selectors, each selector's
// specificity, and its compounds matched against an element right to left through its ancestors.
import type { Element } from 'domhandler';

export interface Compound {
  tag: string | null;
  id: string | null;
  classes: string[];
  attributes: string[];
  /** How it relates to the compound on its right: ' ' (descendant) or '>' (child). */
  combinator: ' ' | '>';
}

export function splitSelectorList(prelude: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let current = '';
  for (const ch of prelude) {
    if (ch === '(' || ch === '[') depth++;
    if (ch === ')' || ch === ']') depth--;
    if (ch === ',' && depth === 0) {
      if (current.trim()) out.push(current.trim().replace(/\s+/g, ' '));
      current = '';
    } else {
      current += ch;
    }
  }
  if (current.trim()) out.push(current.trim().replace(/\s+/g, ' '));
  return out;
}

const STATE_PSEUDO = new RegExp(
  [
    ':(hover|focus|focus-visible|focus-within|active|visited|target|checked|disabled|enabled|invalid|valid|',
    'placeholder-shown|autofill)\\b|::?(before|after|placeholder|selection|marker|first-line|first-letter|',
    'backdrop|-webkit-[a-z-]+|-moz-[a-z-]+)\\b',
  ].join(''),
);

/** The selector as compounds, right-most last; null when element matching would be a guess. */
export function compile(selector: string): Compound[] | null {
  if (STATE_PSEUDO.test(selector) || /[+~]/.test(selector.replace(/\[[^\]]*\]/g, '').replace(/\([^)]*\)/g, '')))
    return null;
  const tokens = selector
    .replace(/\s*>\s*/g, ' > ')
    .split(' ')
    .filter(Boolean);
  const compounds: Compound[] = [];
  let combinator: ' ' | '>' = ' ';
  for (const token of tokens) {
    if (token === '>') {
      combinator = '>';
      continue;
    }
    const c = compileCompound(token, combinator);
    if (!c) return null;
    compounds.push(c);
    combinator = ' ';
  }
  return compounds.length ? compounds : null;
}

function compileCompound(token: string, combinator: ' ' | '>'): Compound | null {
  // Negations and selector lists inside a compound are not matched statically (a guess would be wrong
  // both ways); :root is the html element; structural pseudo-classes are treated as matching.
  if (/:(not|is|where|has|matches)\(/.test(token)) return null;
  const stripped = token
    .replace(/:root\b/g, 'html')
    .replace(
      /:(first-child|last-child|nth-child\([^)]*\)|nth-of-type\([^)]*\)|first-of-type|last-of-type|only-child)/g,
      '',
    );
  if (stripped.includes(':')) return null;
  // An attribute selector with a value ([type=checkbox]) narrows what it names: not matched statically.
  if (/\[[^\]]*[=~|^$*]/.test(stripped)) return null;
  const attributes = [...stripped.matchAll(/\[([^\]]+)\]/g)].map((m) => m[1]!.trim().toLowerCase());
  const bare = stripped.replace(/\[[^\]]*\]/g, '');
  const m = /^([a-zA-Z][a-zA-Z0-9-]*|\*)?((?:[.#][a-zA-Z0-9_-]+)*)$/.exec(bare);
  if (!m) return null;
  const parts = m[2]!.match(/[.#][a-zA-Z0-9_-]+/g) ?? [];
  return {
    tag: m[1] && m[1] !== '*' ? m[1].toLowerCase() : null,
    id: parts.find((p) => p.startsWith('#'))?.slice(1) ?? null,
    classes: parts.filter((p) => p.startsWith('.')).map((p) => p.slice(1)),
    attributes,
    combinator,
  };
}

export function specificityOf(selector: string): number {
  const s = selector
    .replace(/\[[^\]]*\]/g, '[]')
    .replace(/:where\([^)]*\)/g, '')
    .replace(/::?(before|after|placeholder|selection|marker)/g, '');
  const ids = (s.match(/#[a-zA-Z0-9_-]+/g) ?? []).length;
  const classes = (s.match(/\.[a-zA-Z0-9_-]+|\[[^\]]*\]|:[a-z-]+/g) ?? []).length;
  const tags = (
    s.replace(/[.#][a-zA-Z0-9_-]+|\[[^\]]*\]|:[a-z-]+(\([^)]*\))?/g, ' ').match(/(^|[\s>])[a-zA-Z][a-zA-Z0-9-]*/g) ?? []
  ).length;
  return ids * 10_000 + classes * 100 + tags;
}

function matchesCompound(el: Element, c: Compound): boolean {
  if (c.tag && el.name.toLowerCase() !== c.tag) return false;
  if (c.id && el.attribs.id !== c.id) return false;
  if (c.classes.length) {
    const own = new Set((el.attribs.class ?? '').split(/\s+/));
    if (!c.classes.every((k) => own.has(k))) return false;
  }
  return c.attributes.every((a) => a in el.attribs);
}

export function parentElement(el: Element): Element | null {
  const p = el.parent;
  return p && (p as Element).type === 'tag' ? (p as Element) : p && (p as Element).name ? (p as Element) : null;
}

/** True when the rule's selector names this element (right to left through its ancestors). */
export function matches(rule: { compounds: Compound[] | null }, el: Element): boolean {
  const cs = rule.compounds;
  if (!cs) return false;
  let i = cs.length - 1;
  if (!matchesCompound(el, cs[i]!)) return false;
  let current: Element | null = el;
  while (i > 0) {
    const combinator = cs[i]!.combinator;
    i--;
    if (combinator === '>') {
      current = current ? parentElement(current) : null;
      if (!current || !matchesCompound(current, cs[i]!)) return false;
    } else {
      current = current ? parentElement(current) : null;
      while (current && !matchesCompound(current, cs[i]!)) current = parentElement(current);
      if (!current) return false;
    }
  }
  return true;
}
