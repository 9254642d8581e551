// The page's declared styles, read statically: CSS parsed with css-tree (stylesheets, <style> blocks,
// style attributes), and a small selector matcher so that a rule can be tied to the elements it names
// (compound selectors with descendant and child combinators; state pseudo-classes and pseudo-elements
// are left out of element matching). No browser, no layout, no full cascade: the declared value with
// the highest (importance, specificity, order) wins, and inheritable properties come from ancestors.
import * as csstree from 'css-tree';
import { parseColor } from './colors.ts';
import type { Element } from 'domhandler';

export interface Declaration {
  property: string;
  value: string;
  important: boolean;
}

export interface Rule {
  /** The selector as written (one rule per selector list entry). */
  selector: string;
  declarations: Declaration[];
  /** Where it came from: a stylesheet URL, `<style>` or `style attribute`. */
  source: string;
  order: number;
  specificity: number;
  /** Null when the selector targets a state or pseudo-element (or cannot be matched statically). */
  compounds: Compound[] | null;
}

interface Compound {
  tag: string | null;
  id: string | null;
  classes: string[];
  attributes: string[];
  /** How it relates to the compound on its right: ' ' (descendant) or '>' (child). */
  combinator: ' ' | '>';
}

export interface StyleSheetText {
  source: string;
  text: string;
}

/** Every rule of the given style texts, in order; `errors` counts what css-tree could not parse. */
export function parseRules(sheets: StyleSheetText[]): { rules: Rule[]; parseErrors: number } {
  const rules: Rule[] = [];
  let parseErrors = 0;
  let order = 0;
  for (const sheet of sheets) {
    const ast = csstree.parse(sheet.text, {
      parseValue: false,
      parseRulePrelude: false,
      parseAtrulePrelude: false,
      onParseError: () => parseErrors++,
    });
    csstree.walk(ast, {
      visit: 'Rule',
      enter(node) {
        const prelude = node.prelude.type === 'Raw' ? node.prelude.value : csstree.generate(node.prelude);
        const declarations = declarationsOf(node.block);
        if (declarations.length === 0) return;
        for (const selector of splitSelectorList(prelude)) {
          rules.push({
            selector,
            declarations,
            source: sheet.source,
            order: order++,
            specificity: specificityOf(selector),
            compounds: compile(selector),
          });
        }
      },
    });
  }
  return { rules, parseErrors };
}

/** The declarations of a `style` attribute. */
export function parseInlineStyle(text: string): Declaration[] {
  try {
    return declarationsOf(
      csstree.parse(text, { context: 'declarationList', parseValue: false }) as csstree.DeclarationList,
    );
  } catch {
    return [];
  }
}

function declarationsOf(block: csstree.Block | csstree.DeclarationList): Declaration[] {
  const out: Declaration[] = [];
  block.children.forEach((child) => {
    if (child.type !== 'Declaration') return;
    const value = (child.value.type === 'Raw' ? child.value.value : csstree.generate(child.value)).trim();
    out.push({ property: child.property.toLowerCase(), value, important: Boolean(child.important) });
  });
  return out;
}

function splitSelectorList(prelude: string): string[] {
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

const STATE_PSEUDO =
  /:(hover|focus|focus-visible|focus-within|active|visited|target|checked|disabled|enabled|invalid|valid|placeholder-shown|autofill)\b|::?(before|after|placeholder|selection|marker|first-line|first-letter|backdrop|-webkit-[a-z-]+|-moz-[a-z-]+)\b/;

/** The selector as compounds, right-most last; null when element matching would be a guess. */
function compile(selector: string): Compound[] | null {
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

function specificityOf(selector: string): number {
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

function parentElement(el: Element): Element | null {
  const p = el.parent;
  return p && (p as Element).type === 'tag' ? (p as Element) : p && (p as Element).name ? (p as Element) : null;
}

/** True when the rule's selector names this element (right to left through its ancestors). */
export function matches(rule: Rule, el: Element): boolean {
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

export interface Declared {
  value: string;
  /** The selector (or `style attribute`) it came from. */
  from: string;
}

const INHERITED = new Set(['color', 'font-size', 'font-weight', 'text-align', 'line-height', 'font-family']);

/** Declared styles per element, with the rules that matched it; computed once per element. */
export class StyleIndex {
  readonly rules: Rule[];
  readonly #own = new Map<Element, Map<string, Declared>>();
  /** Rules by the key of their right-most compound (id, else first class, else tag, else universal):
   * an element is tried only against the rules that could name it, not against every rule. */
  readonly #byKey = new Map<string, Rule[]>();

  constructor(rules: Rule[]) {
    this.rules = rules;
    for (const rule of rules) {
      const last = rule.compounds?.at(-1);
      if (!last) continue;
      const key = last.id ? `#${last.id}` : last.classes[0] ? `.${last.classes[0]}` : last.tag ? last.tag : '*';
      (this.#byKey.get(key) ?? this.#byKey.set(key, []).get(key)!).push(rule);
    }
  }

  #candidates(el: Element): Rule[] {
    const keys = [
      '*',
      el.name.toLowerCase(),
      ...(el.attribs.id ? [`#${el.attribs.id}`] : []),
      ...(el.attribs.class ?? '')
        .split(/\s+/)
        .filter(Boolean)
        .map((c) => `.${c}`),
    ];
    const out = new Set<Rule>();
    for (const key of keys) for (const rule of this.#byKey.get(key) ?? []) out.add(rule);
    return [...out];
  }

  /** The element's own declared properties (rules that match it, then its style attribute). */
  own(el: Element): Map<string, Declared> {
    let props = this.#own.get(el);
    if (props) return props;
    const winners = new Map<string, { d: Declared; rank: [number, number, number] }>();
    const consider = (d: Declaration, from: string, specificity: number, order: number) => {
      for (const [property, value] of expandShorthand(d)) {
        const rank: [number, number, number] = [d.important ? 1 : 0, specificity, order];
        const prev = winners.get(property);
        if (!prev || compareRank(rank, prev.rank) >= 0) winners.set(property, { d: { value, from }, rank });
      }
    };
    for (const rule of this.#candidates(el))
      if (matches(rule, el))
        for (const d of rule.declarations) consider(d, rule.selector, rule.specificity, rule.order);
    if (el.attribs.style)
      for (const d of parseInlineStyle(el.attribs.style))
        consider(d, 'style attribute', 1_000_000, Number.MAX_SAFE_INTEGER);
    props = new Map([...winners].map(([k, v]) => [k, v.d]));
    this.#own.set(el, props);
    return props;
  }

  /** The declared value of `property` for the element, inherited from ancestors when it inherits. */
  get(el: Element, property: string): (Declared & { on: Element }) | null {
    let current: Element | null = el;
    while (current) {
      const d = this.own(current).get(property);
      if (d && d.value !== 'inherit') return { ...d, on: current };
      if (!INHERITED.has(property) && property !== 'background-color') return null;
      current = parentElement(current);
    }
    return null;
  }
}

function compareRank(a: [number, number, number], b: [number, number, number]): number {
  return a[0] - b[0] || a[1] - b[1] || a[2] - b[2];
}

/** The longhands a declaration sets that the audit reads (`background` gives its colour, `padding` its sides...). */
export function expandShorthand(d: Declaration): Array<[string, string]> {
  const v = d.value.replace(/\s*!important\s*$/i, '').trim();
  switch (d.property) {
    case 'background': {
      // An image or gradient, and a colour (or a variable, which the static check cannot resolve).
      const parts = v.split(/\s+(?![^(]*\))/);
      const image = parts.find((part) => /^(url|image-set|(repeating-)?(linear|radial|conic)-gradient)\(/i.test(part));
      const colour = parts.find((part) => parseColor(part) !== null || /^var\(/i.test(part));
      return [
        ...(image ? [['background-image', image] as [string, string]] : []),
        ...(colour ? [['background-color', colour] as [string, string]] : []),
      ];
    }
    case 'padding':
    case 'margin': {
      const parts = v.split(/\s+/);
      const [t, r = t, b = t, l = r] = parts;
      return [
        [`${d.property}-top`, t!],
        [`${d.property}-right`, r!],
        [`${d.property}-bottom`, b!],
        [`${d.property}-left`, l!],
      ];
    }
    default:
      return [[d.property, v]];
  }
}

/** A length in CSS px (px, rem/em at 16px, pt), or null when it is not a plain length. */
export function toPx(value: string | undefined, emBase = 16): number | null {
  if (value === undefined) return null;
  const m = /^(-?\d*\.?\d+)(px|rem|em|pt)?$/.exec(value.trim());
  if (!m) return null;
  const n = parseFloat(m[1]!);
  if (!m[2]) return n === 0 ? 0 : null;
  return m[2] === 'px' ? n : m[2] === 'pt' ? (n * 4) / 3 : n * emBase;
}

/** A short, readable selector for an element (`button.icon-btn`, `a#home`). */
export function describe(el: Element): string {
  const id = el.attribs.id ? `#${el.attribs.id}` : '';
  const classes = (el.attribs.class ?? '')
    .split(/\s+/)
    .filter(Boolean)
    .slice(0, 2)
    .map((c) => `.${c}`)
    .join('');
  return `${el.name}${id}${classes}`;
}
