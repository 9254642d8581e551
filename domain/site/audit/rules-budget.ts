// Family 4: style-budget proliferation. Counts of unique values (colours after normalising their
// notation, font families, sizes, weights, line heights, spacing values, radii, shadows, z-indexes)
// and of `!important`, against budgets in the spirit of Project Wallace's css-analyzer and cssstats:
// a page that needs more than these is usually accreting one-off styles rather than using a system.
import { parseColor, toHex } from './colors.ts';
import { expandShorthand, type Declaration } from './styles.ts';
import type { AuditInput, Finding, PageType } from './model.ts';

export const STYLE_BUDGETS = {
  colors: 16,
  font_families: 3,
  font_sizes: 10,
  font_weights: 4,
  line_heights: 6,
  spacing_values: 16,
  border_radii: 6,
  box_shadows: 6,
  z_indexes: 8,
  important: 10,
} as const;
export type BudgetName = keyof typeof STYLE_BUDGETS;

/** Long-form pages use more type sizes (headings, captions, code) without being sloppy. */
export function budgetsFor(pageType: PageType): Record<BudgetName, number> {
  return pageType === 'docs' || pageType === 'article' ? { ...STYLE_BUDGETS, font_sizes: 12 } : { ...STYLE_BUDGETS };
}

const COLOR_TOKEN = new RegExp(
  [
    '#[0-9a-fA-F]{3,8}\\b|(?:rgba?|hsla?)\\([^)]*\\)|\\b(?:black|white|red|green|blue|yellow|gray|grey|silver|',
    'maroon|navy|purple|teal|olive|orange|lime|aqua|fuchsia|lightgray|lightgrey|darkgray|darkgrey|dimgray|',
    'whitesmoke|gainsboro|pink|brown|gold)\\b',
  ].join(''),
  'g',
);
const COLOR_PROPS = new RegExp(
  [
    '^(color|background(-color)?|border(-(top|right|bottom|left))?(-color)?|outline(-color)?|fill|stroke|',
    'box-shadow|text-shadow|text-decoration(-color)?|caret-color|accent-color)$',
  ].join(''),
);

export function styleCounts(declarations: Declaration[]): Record<BudgetName, string[]> & { important_count: number } {
  const sets: Record<BudgetName, Set<string>> = {
    colors: new Set(),
    font_families: new Set(),
    font_sizes: new Set(),
    font_weights: new Set(),
    line_heights: new Set(),
    spacing_values: new Set(),
    border_radii: new Set(),
    box_shadows: new Set(),
    z_indexes: new Set(),
    important: new Set(),
  };
  let important = 0;
  for (const d of declarations) {
    if (d.important) important++;
    const value = d.value.trim();
    if (COLOR_PROPS.test(d.property)) {
      for (const token of value.match(COLOR_TOKEN) ?? []) {
        const c = parseColor(token);
        if (c && c.a > 0) sets.colors.add(toHex(c));
      }
    }
    switch (d.property) {
      case 'font-family':
        sets.font_families.add(
          value
            .split(',')[0]!
            .trim()
            .replace(/^["']|["']$/g, '')
            .toLowerCase(),
        );
        break;
      case 'font-size':
        sets.font_sizes.add(value.toLowerCase());
        break;
      case 'font-weight':
        sets.font_weights.add(value === 'bold' ? '700' : value === 'normal' ? '400' : value.toLowerCase());
        break;
      case 'line-height':
        sets.line_heights.add(value.toLowerCase());
        break;
      case 'border-radius':
        sets.border_radii.add(value.toLowerCase());
        break;
      case 'box-shadow':
        if (value !== 'none') sets.box_shadows.add(value.toLowerCase().replace(/\s+/g, ' '));
        break;
      case 'z-index':
        if (value !== 'auto') sets.z_indexes.add(value);
        break;
    }
    for (const [property, v] of expandShorthand(d)) {
      if (/^(margin|padding)-|^(row-|column-)?gap$/.test(property))
        for (const token of v.split(/\s+/))
          if (/^-?\d*\.?\d+(px|rem|em)$/.test(token) && parseFloat(token) !== 0)
            sets.spacing_values.add(token.replace(/^-/, ''));
    }
  }
  const out = Object.fromEntries(Object.entries(sets).map(([k, s]) => [k, [...s].sort()])) as Record<
    BudgetName,
    string[]
  >;
  return { ...out, important_count: important };
}

export function budgetFindings(input: AuditInput, declarations: Declaration[]): Finding[] {
  const counts = styleCounts(declarations);
  const budgets = budgetsFor(input.pageType);
  const out: Finding[] = [];
  for (const name of Object.keys(budgets) as BudgetName[]) {
    const count = name === 'important' ? counts.important_count : counts[name].length;
    const budget = budgets[name];
    if (count <= budget) continue;
    const label = name.replace(/_/g, ' ');
    out.push({
      rule: `budget-${name.replace(/_/g, '-')}`,
      category: 'style_budget',
      severity: count > budget * 2 ? 'medium' : 'low',
      selector: null,
      property: PROPERTY_OF[name],
      measured: `${count} ${name === 'important' ? '!important uses' : `unique ${label}`}`,
      threshold: `at most ${budget}`,
      fix:
        name === 'important'
          ? 'Remove !important by fixing the specificity of the rules it overrides'
          : `Define ${budget} or fewer ${label} as custom properties (design tokens) and use only those`,
      evidence:
        name === 'important' ? `${count} declarations marked !important` : counts[name].join(', ').slice(0, 160),
    });
  }
  return out;
}

const PROPERTY_OF: Record<BudgetName, string> = {
  colors: 'color',
  font_families: 'font-family',
  font_sizes: 'font-size',
  font_weights: 'font-weight',
  line_heights: 'line-height',
  spacing_values: 'margin/padding/gap',
  border_radii: 'border-radius',
  box_shadows: 'box-shadow',
  z_indexes: 'z-index',
  important: '!important',
};
