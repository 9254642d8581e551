// What an audit works on and what it answers.
import type { Document, Element } from 'domhandler';
import type { StyleIndex } from './styles.ts';

export const PAGE_TYPES = ['landing', 'article', 'product', 'pricing', 'docs', 'contact', 'form', 'other'] as const;
export type PageType = (typeof PAGE_TYPES)[number];

export type Category = 'template' | 'alignment' | 'accessibility' | 'style_budget';
export type Severity = 'high' | 'medium' | 'low';

export interface Finding {
  rule: string;
  category: Category;
  severity: Severity;
  /** The CSS selector or element it concerns (page content, quoted as data). */
  selector: string | null;
  /** The CSS property, when the finding is about one. */
  property: string | null;
  measured: string;
  threshold: string;
  /** A concrete change that resolves it. */
  fix: string;
  /** A short excerpt of the page or stylesheet (untrusted data, at most 160 characters). */
  evidence: string;
}

export interface AuditInput {
  url: string;
  doc: Document;
  elements: Element[];
  styles: StyleIndex;
  pageType: PageType;
  /** The current year, for the copyright check. */
  year: number;
}

export function excerpt(text: string, max = 160): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}
