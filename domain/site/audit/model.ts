// What an audit works on and what it answers.
import type { Document, Element } from 'domhandler';
import type { PageType } from '../../../lib/jobs/site.ts';
import type { StyleIndex } from './styles.ts';

// What an audit answers is the page audit job's contract (lib/jobs/site.ts), re-exported for the rules.
export {
  PAGE_TYPES,
  type Category,
  type Finding,
  type PageType,
  type Review,
  type Severity,
} from '../../../lib/jobs/site.ts';

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
