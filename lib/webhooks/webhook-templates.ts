// The request a webhook's rules look at, and the placeholders a rule's body fills from it:
// {{request.method}}, {{request.path}}, {{request.query.NAME}}, {{request.header.NAME}},
// {{request.body}}, {{request.body./json/pointer}}, {{uuid}}, {{now}}. Inside a JSON answer (its
// Content-Type says json) each value is JSON-escaped, so it can stand between quotes; a JSON value
// that is not a string is written as JSON. What a request does not hold fills as nothing.
import { randomUUID } from 'node:crypto';
import {
  escapedHead,
  getPointer,
  headOf,
  jsonHead,
  MAX_JSON_DEPTH,
  nestedDeeper,
  pointerProblem,
  pointerTokens,
  type JsonValue,
} from './json-pointer.ts';

/** A pattern over the body (or a value in it) reads its first 64 Ki characters: RE2's time is bounded by it. */
export const MAX_PATTERN_INPUT = 64 * 1024;

/**
 * A filled body is at most this many characters: what the placeholders would add past it is cut, and
 * never written (a value is written only as far as the body has room, whatever its size or depth).
 */
export const MAX_FILLED_BODY = 1024 * 1024;

/** A request as the rules see it; the query string and the JSON body are parsed on first use, once. */
export class RuleRequest {
  #query: URLSearchParams | undefined;
  #json: { value: JsonValue } | null | undefined;
  /** Upper-case. */
  readonly method: string;
  /** The path below the webhook URL ("/" for the URL itself), without the query string. */
  readonly path: string;
  /** The query string without its "?" ("" for none). */
  readonly search: string;
  /** Header names lower-case. */
  readonly headers: Record<string, string>;
  /** The body as text, null when there is none or it is not UTF-8. */
  readonly text: string | null;
  constructor(fields: Pick<RuleRequest, 'method' | 'path' | 'search' | 'headers' | 'text'>) {
    this.method = fields.method.toUpperCase();
    this.path = fields.path;
    this.search = fields.search;
    this.headers = fields.headers;
    this.text = fields.text;
  }
  get query(): URLSearchParams {
    this.#query ??= new URLSearchParams(this.search);
    return this.#query;
  }
  #head: string | undefined;
  /** The first 64 KiB of the body's text, what a pattern over the body reads ('' for none). */
  get textHead(): string {
    this.#head ??=
      this.text === null
        ? ''
        : this.text.length > MAX_PATTERN_INPUT
          ? this.text.slice(0, MAX_PATTERN_INPUT)
          : this.text;
    return this.#head;
  }
  /** Each object's names, kept for the next value of the body written (the rules' patterns, the placeholders). */
  readonly #names = new WeakMap<object, readonly string[]>();
  /** The first `max` characters of `value`'s JSON text (a value of this request's body). */
  jsonHead(value: JsonValue, max: number): string {
    return jsonHead(value, max, this.#names);
  }
  readonly #patternHeads = new WeakMap<object, string>();
  /**
   * The first 64 Ki characters of `value`'s JSON text, what a pattern over it reads: written once for all the rules.
   */
  patternHead(value: JsonValue): string {
    if (value === null || typeof value !== 'object') return this.jsonHead(value, MAX_PATTERN_INPUT);
    let head = this.#patternHeads.get(value);
    if (head === undefined) {
      head = this.jsonHead(value, MAX_PATTERN_INPUT);
      this.#patternHeads.set(value, head);
    }
    return head;
  }
  /**
   * The body as JSON ({value}), or null when there is none, it is not JSON or it nests deeper than
   * MAX_JSON_DEPTH (a megabyte of `[[[[...` would hold JSON.parse a quarter of a second).
   */
  get json(): { value: JsonValue } | null {
    if (this.#json === undefined) {
      try {
        this.#json =
          this.text === null || nestedDeeper(this.text, MAX_JSON_DEPTH)
            ? null
            : { value: JSON.parse(this.text) as JsonValue };
      } catch {
        this.#json = null;
      }
    }
    return this.#json;
  }
}

type Source = (request: RuleRequest) => JsonValue | undefined;

/**
 * `{{ name }}`, the name's spaces trimmed after the match. No quantifiers over the same characters side
 * by side: `\{\{\s*([^{}]*?)\s*\}\}` took time cubic in a run of spaces after `{{` (21 s for 4,000).
 */
const PLACEHOLDER = /\{\{([^{}]*)\}\}/g;
const NAMES =
  '{{request.method}}, {{request.path}}, {{request.query.NAME}}, {{request.header.NAME}}, ' +
  '{{request.body}}, {{request.body./json/pointer}}, {{uuid}}, {{now}}';

/** What placeholder `name` stands for, or the reason it stands for nothing. */
function sourceOf(name: string): Source | string {
  if (name === 'request.method') return (r) => r.method;
  if (name === 'request.path') return (r) => r.path;
  if (name === 'request.body') return (r) => r.text ?? undefined;
  if (name === 'uuid') return () => randomUUID();
  if (name === 'now') return () => new Date().toISOString();
  if (name.startsWith('request.query.') && name.length > 'request.query.'.length) {
    const key = name.slice('request.query.'.length);
    return (r) => r.query.get(key) ?? undefined;
  }
  if (name.startsWith('request.header.') && name.length > 'request.header.'.length) {
    const key = name.slice('request.header.'.length).toLowerCase();
    return (r) => r.headers[key];
  }
  if (name.startsWith('request.body.')) {
    const pointer = name.slice('request.body.'.length);
    const problem = pointerProblem(pointer);
    if (problem || pointer === '')
      return `{{${name}}}: the pointer ${problem ?? 'must not be empty ({{request.body}} is the whole body)'}`;
    const tokens = pointerTokens(pointer);
    return (r) => (r.json ? getPointer(r.json.value, tokens)?.value : undefined);
  }
  return `{{${name}}} is not a placeholder (there are ${NAMES})`;
}

export interface Template {
  fill(request: RuleRequest): string;
}

/** Why `template` cannot be filled (an unknown placeholder), or null. */
export function templateProblem(template: string): string | null {
  for (const m of template.matchAll(PLACEHOLDER)) {
    const source = sourceOf(m[1]!.trim());
    if (typeof source === 'string') return source;
  }
  return null;
}

/** `template` ready to fill; `json`: values are JSON-escaped (the answer is JSON). */
export function compileTemplate(template: string, json: boolean): Template {
  const literals: string[] = [];
  const sources: Source[] = [];
  let last = 0;
  for (const m of template.matchAll(PLACEHOLDER)) {
    const source = sourceOf(m[1]!.trim());
    if (typeof source === 'string') throw new Error(source);
    literals.push(template.slice(last, m.index));
    sources.push(source);
    last = m.index + m[0].length;
  }
  if (sources.length === 0) return { fill: () => template };
  literals.push(template.slice(last));
  /** A value's text, at most its first `room` characters (the work bounded by them, a sender's data never throws). */
  const text = (request: RuleRequest, v: JsonValue | undefined, room: number) => {
    if (v === undefined) return '';
    if (typeof v !== 'string') return request.jsonHead(v, room);
    return json ? escapedHead(v, room) : headOf(v, room);
  };
  return {
    fill(request) {
      let out = literals[0]!;
      for (let i = 0; i < sources.length && out.length < MAX_FILLED_BODY; i++)
        out += text(request, sources[i]!(request), MAX_FILLED_BODY - out.length) + literals[i + 1]!;
      return out.length > MAX_FILLED_BODY ? out.slice(0, MAX_FILLED_BODY) : out;
    },
  };
}
