// The page's declared styles, read statically: CSS parsed with css-tree (stylesheets, <style> blocks,
// style attributes), and a small selector matcher (selectors.ts) so that a rule can be tied to the
// elements it names (compound selectors with descendant and child combinators; state pseudo-classes
// and pseudo-elements are left out of element matching). No browser, no layout, no full cascade: the
// declared value with the highest (importance, specificity, order) wins, and inheritable properties
// come from ancestors.
import type * as csstree from 'css-tree';
import { atFirstUse } from '../../../lib/at-first-use.ts';
import { parseColor } from './colors.ts';
import type { Element } from 'domhandler';
import { compile, type Compound, matches, parentElement, specificityOf, splitSelectorList } from './selectors.ts';

// css-tree (~4 MB of heap, measured) is loaded by the first page audited, not with the network pool at start.
const cssTree = atFirstUse<typeof csstree>('css-tree');

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
    const ast = cssTree().parse(sheet.text, {
      parseValue: false,
      parseRulePrelude: false,
      parseAtrulePrelude: false,
      onParseError: () => parseErrors++,
    });
    cssTree().walk(ast, {
      visit: 'Rule',
      enter(node) {
        const prelude = node.prelude.type === 'Raw' ? node.prelude.value : cssTree().generate(node.prelude);
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
  const css = cssTree(); // loaded outside the try: a package that fails to load is not an empty style
  try {
    return declarationsOf(
      css.parse(text, { context: 'declarationList', parseValue: false }) as csstree.DeclarationList,
    );
  } catch {
    return [];
  }
}

function declarationsOf(block: csstree.Block | csstree.DeclarationList): Declaration[] {
  const out: Declaration[] = [];
  block.children.forEach((child) => {
    if (child.type !== 'Declaration') return;
    const value = (child.value.type === 'Raw' ? child.value.value : cssTree().generate(child.value)).trim();
    out.push({ property: child.property.toLowerCase(), value, important: Boolean(child.important) });
  });
  return out;
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
  // In linear time (a sheet is the site's, up to 1 MiB): `\s*!important\s*$` and a split on spaces
  // outside parentheses by lookahead were quadratic in a run of spaces.
  const value = d.value.trimEnd();
  const v = (/!important$/i.test(value) ? value.slice(0, -'!important'.length) : value).trim();
  switch (d.property) {
    case 'background': {
      // An image or gradient, and a colour (or a variable, which the static check cannot resolve).
      const parts = wordsOutsideParentheses(v);
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

/** `value` split at the spaces outside parentheses (`url(a b) red` is two words), in one pass. */
function wordsOutsideParentheses(value: string): string[] {
  const words: string[] = [];
  let depth = 0;
  let word = '';
  for (const c of value) {
    if (c === '(') depth += 1;
    else if (c === ')') depth = Math.max(0, depth - 1);
    if (depth === 0 && /\s/.test(c)) {
      if (word) words.push(word);
      word = '';
    } else word += c;
  }
  if (word) words.push(word);
  return words;
}
