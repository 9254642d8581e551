import { distance } from 'fastest-levenshtein';
import { z } from 'zod';
import { InvalidInputError } from '../lib/errors.ts';

/**
 * Where input came from, as its door calls it: REST names the part of the request after the message
 * (`(body)`); an MCP tool's arguments and a dashboard form are named by their fields alone.
 */
type Where = 'query' | 'body' | 'path' | 'header' | 'arguments' | 'form' | 'page';
const OF_THIS: Record<Where, string> = {
  query: 'is not a field of this query',
  page: 'is not a field of this page',
  body: 'is not a field of this body',
  path: 'is not a field of this path',
  header: 'is not a field of this header',
  arguments: 'is not an argument of this tool',
  form: 'is not a field of this form',
};

/** Parses untrusted input; the first problem becomes a 400 that names the field. */
export function validate<S extends z.ZodType>(schema: S, input: unknown, where: Where): z.output<S> {
  // A query's unknown parameter (a typo such as `metod`) is refused as a body's unknown key is, whether
  // or not its schema is strict: a filter dropped unseen would answer more than was asked for.
  const known = where === 'query' ? keysAt(schema, []) : [];
  if (known.length) refuseUnknownParameters(input, known);
  const result = schema.safeParse(input ?? {});
  if (result.success) return result.data;
  // A typo of a required key shows as that key missing and an unknown one: the unknown key says more.
  const issues = result.error.issues;
  const issue = issues.find((i) => i.code === 'unrecognized_keys') ?? issues[0]!;
  // A key the schema does not know (a typo such as requestPerSecond) is named as the field, with the
  // known one it is closest to when it is a slip of a letter or two away.
  if (issue.code === 'unrecognized_keys') {
    const field = [...issue.path, issue.keys[0]!].map(String).join('.');
    throw new InvalidInputError(unknownKey(field, issue.keys[0]!, keysAt(schema, issue.path), where), field);
  }
  const field = issue.path.map(String).join('.');
  if (!field) throw new InvalidInputError(`Invalid ${where}: ${issue.message}`);
  const missing = issue.code === 'invalid_type' && valueAt(input, issue.path) === undefined;
  const part = where === 'arguments' || where === 'form' ? '' : ` (${where})`;
  throw new InvalidInputError(missing ? `${field} is required${part}` : `${field}: ${issue.message}${part}`, field);
}

/**
 * Refuses the first query parameter that is not one of `known` (an operation without a query knows
 * none); `where` is 'page' for a dashboard page's address.
 */
export function refuseUnknownParameters(
  query: unknown,
  known: readonly string[],
  where: 'query' | 'page' = 'query',
): void {
  if (query === null || typeof query !== 'object') return;
  const unknown = Object.keys(query).find((k) => !known.includes(k));
  if (unknown === undefined) return;
  const message = known.length
    ? unknownKey(unknown, unknown, known, where)
    : `${unknown}: ${OF_THIS[where]} (this ${where === 'page' ? 'page' : 'endpoint'} takes no query parameters)`;
  throw new InvalidInputError(message, unknown);
}

function unknownKey(field: string, key: string, known: readonly string[], where: Where): string {
  const near = closest(key, known);
  return `${field}: ${OF_THIS[where]} (${near ? `did you mean ${near}?` : 'a typo?'})`;
}

/**
 * An MCP tool's arguments as a strict object: the SDK validates them before our code runs, and this
 * makes its refusal of an unknown argument name the key and the known one it is closest to, as
 * validate() does for the other doors (a dropped typo would run a call the user did not ask for).
 */
export function toolArgs<S extends z.ZodRawShape>(shape: S) {
  return z.strictObject(shape, {
    error: (issue) =>
      issue.code === 'unrecognized_keys'
        ? unknownKey(issue.keys[0]!, issue.keys[0]!, Object.keys(shape), 'arguments')
        : undefined,
  });
}

function valueAt(input: unknown, path: PropertyKey[]): unknown {
  let value = input;
  for (const key of path) {
    if (value === null || typeof value !== 'object') return undefined;
    value = (value as Record<PropertyKey, unknown>)[key];
  }
  return value;
}

/** The keys of an object schema (through the wrappers keysAt looks through). */
export const fieldsOf = (schema: z.ZodType): string[] => keysAt(schema, []);

/**
 * The keys an object schema at `path` knows (through optional, default, nullable, pipe and array
 * wrappers); none when it cannot tell.
 */
function keysAt(schema: z.ZodType, path: PropertyKey[]): string[] {
  let at: unknown = schema;
  const unwrap = (s: unknown): unknown => {
    const def = (s as { def?: { type?: string; innerType?: unknown; in?: unknown; out?: unknown } })?.def;
    if (!def) return s;
    if (def.innerType) return unwrap(def.innerType);
    if (def.type !== 'pipe') return s;
    // A transform pipes the object in; a preprocess pipes into it.
    const into = unwrap(def.in);
    return (into as { shape?: unknown }).shape ? into : unwrap(def.out);
  };
  for (const key of path) {
    at = unwrap(at);
    const def = (at as { def?: { type?: string; element?: unknown } } | undefined)?.def;
    if (def?.type === 'array' && typeof key === 'number') at = def.element;
    else at = (at as { shape?: Record<PropertyKey, unknown> } | undefined)?.shape?.[key];
  }
  const shape = (unwrap(at) as { shape?: Record<string, unknown> })?.shape;
  return shape ? Object.keys(shape) : [];
}

/**
 * The known key `given` is a slip of the keyboard away from: case aside, or at most two edits
 * (Levenshtein; one for short keys).
 */
export function closest(given: string, known: readonly string[]): string | null {
  let best: { key: string; d: number } | null = null;
  for (const key of known) {
    const d = key.toLowerCase() === given.toLowerCase() ? 0 : distance(given.toLowerCase(), key.toLowerCase());
    if (d <= (Math.min(key.length, given.length) > 5 ? 2 : 1) && (!best || d < best.d)) best = { key, d };
  }
  return best?.key ?? null;
}

/**
 * What a field means to a client, kept beside the field but apart from the schemas REST validates with:
 * the MCP tools show these texts (toolInput), and the OpenAPI document stays as it was.
 */
export const fieldTexts = z.registry<{ description: string }>();

/** `schema` with a text for clients (a copy: one field may be described otherwise by another operation). */
export function described<S extends z.ZodType>(schema: S, text: string): S {
  const copy = schema.clone() as S;
  fieldTexts.add(copy, { description: text });
  return copy;
}

/**
 * An MCP tool's arguments built from an operation's fields: the same names, JSON types, defaults, limits
 * and texts, without the checks and transforms. The SDK parses the arguments with this, so they reach the
 * operation's own schema (validate()) unchanged and are refused in its words. A field's object is strict
 * (a typo inside one would otherwise be dropped and reset what it sets); objects within it are taken as
 * any object, for the operation to check. `checked` names fields the SDK checks as the operation does
 * (their refusals as the SDK words a bad argument).
 */
export function toolInput<S extends z.ZodRawShape>(fields: S, checked: ReadonlyArray<keyof S> = []) {
  const shape = looseShape(fields, 0, checked as readonly PropertyKey[]);
  return toolArgs(shape as { [K in keyof S]: z.ZodType<z.input<S[K]>, z.input<S[K]>> });
}

function looseShape(shape: z.ZodRawShape, depth: number, checked: readonly PropertyKey[] = []) {
  const field = (k: string, f: z.ZodType) => (checked.includes(k) ? withText(f, f) : loose(f, depth));
  return Object.fromEntries(Object.entries(shape).map(([k, f]) => [k, field(k, f as z.ZodType)]));
}

function loose(schema: z.ZodType, depth: number): z.ZodType {
  return withText(schema, looseType(schema, depth));
}

/** `as`, shown with the text the contract keeps for `field`. */
function withText(field: z.ZodType, as: z.ZodType): z.ZodType {
  const text = fieldTexts.get(field)?.description;
  return text ? as.describe(text) : as;
}

/**
 * An MCP tool's answer declared from an operation's answer: without `success` (a tool says failure with
 * isError), and open at every level to fields it does not name, as the OpenAPI document shows answers.
 * Clients check structuredContent against it, so a field the contract does not name never fails a call.
 */
export function toolOutput(answer: z.ZodObject): z.ZodObject {
  const answered = 'success' in answer.shape ? answer.omit({ success: true } as never) : answer;
  return open(answered) as z.ZodObject;
}

/**
 * `schema` with every object in it open to unnamed fields (texts and checks kept: a copy of each part),
 * through every kind of zod schema that can hold one. `seen` holds the copy of each part made so far:
 * a recursive schema (through a lazy or a field's getter) meets its own copy again, not a new one.
 */
function open(schema: z.ZodType, seen = new Map<z.ZodType, z.ZodType>()): z.ZodType {
  const done = seen.get(schema);
  if (done) return done;
  const def = schema.def as z.core.$ZodTypeDef & Record<string, unknown>;
  const at = (key: string) => open(def[key] as z.ZodType, seen);
  const copy = (changes: object) => {
    // By descriptor, not by value: a default's value is a getter that gives each parse a fresh one.
    const descriptors = { ...Object.getOwnPropertyDescriptors(def), ...Object.getOwnPropertyDescriptors(changes) };
    const opened = schema.clone(Object.defineProperties({}, descriptors) as never, { parent: true });
    seen.set(schema, opened);
    return opened;
  };
  switch (def.type) {
    case 'object': {
      // Each field opened when the copy's shape is first read (zod's own recursive objects are written
      // with getters so): by then a field that holds this object again finds its copy in `seen`.
      const fields = (schema as z.ZodObject).shape;
      const shape = {};
      for (const k of Object.keys(fields))
        Object.defineProperty(shape, k, { enumerable: true, get: () => open(fields[k] as z.ZodType, seen) });
      return copy({ shape, catchall: z.unknown() });
    }
    case 'lazy': {
      const getter = def.getter as () => z.ZodType;
      return copy({ getter: () => open(getter(), seen) });
    }
    case 'pipe':
      return copy({ in: at('in'), out: at('out') });
    case 'intersection':
      return copy({ left: at('left'), right: at('right') });
    case 'tuple':
      return copy({ items: (def.items as z.ZodType[]).map((s) => open(s, seen)), rest: def.rest ? at('rest') : null });
    case 'array':
      return copy({ element: at('element') });
    case 'record':
      return copy({ valueType: at('valueType') });
    case 'map':
      return copy({ keyType: at('keyType'), valueType: at('valueType') });
    case 'set':
      return copy({ valueType: at('valueType') });
    case 'union':
      return copy({ options: (def.options as z.ZodType[]).map((s) => open(s, seen)) });
    default:
      // The wrappers of one schema: optional, nullable, nonoptional, default, prefault, catch, readonly,
      // success and promise.
      return def.innerType ? copy({ innerType: at('innerType') }) : schema;
  }
}

/** The limits and values a client is shown (in the tool's JSON Schema) though the operation checks them. */
const SHOWN = [
  ...['enum', 'minLength', 'maxLength', 'minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum'],
  ...['minItems', 'maxItems'],
];
function shown(schema: z.ZodType, as: z.ZodType): z.ZodType {
  const json = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
  const limits = Object.fromEntries(SHOWN.filter((k) => json[k] !== undefined).map((k) => [k, json[k]]));
  return Object.keys(limits).length ? as.meta(limits) : as;
}

/** The values an enum behind a transform takes (a case-folded DNS type), shown as the enum's own are. */
function enumBehind(schema: z.ZodType): readonly unknown[] | undefined {
  const def = schema.def as { type: string; out?: z.ZodType; entries?: Record<string, unknown> };
  if (def.type === 'pipe' && def.out) return enumBehind(def.out);
  return def.type === 'enum' && def.entries ? Object.values(def.entries) : undefined;
}

function looseType(schema: z.ZodType, depth: number): z.ZodType {
  const def = schema.def as z.core.$ZodTypeDef & Record<string, unknown>;
  const inner = (key: string) => loose(def[key] as z.ZodType, depth);
  switch (def.type) {
    case 'optional':
      return inner('innerType').optional();
    case 'nullable':
      return inner('innerType').nullable();
    case 'default':
      return inner('innerType').default((def as unknown as { defaultValue: never }).defaultValue);
    case 'pipe': {
      // A transform pipes the input in; a preprocess pipes into the schema that checks it.
      const from = def.in as z.ZodType;
      if (from.def.type === 'transform') return inner('out');
      const values = enumBehind(def.out as z.ZodType);
      return values ? loose(from, depth).meta({ enum: values }) : loose(from, depth);
    }
    case 'string':
    case 'enum':
      // Shown, not checked: a refusal is the operation's to word (an enum's message names the values).
      return shown(schema, z.string());
    case 'number':
      return shown(schema, (schema as z.ZodNumber).format?.includes('int') ? z.number().int() : z.number());
    case 'boolean':
      return z.boolean();
    case 'object':
      return depth ? z.record(z.string(), z.unknown()) : toolArgs(looseShape((schema as z.ZodObject).shape, 1));
    case 'record':
      return z.record(z.string(), inner('valueType'));
    case 'array':
      return shown(schema, z.array(inner('element')));
    case 'union':
      return z.union((def.options as z.ZodType[]).map((o) => loose(o, depth)) as [z.ZodType, z.ZodType]);
    default:
      return z.unknown();
  }
}
