// One declaration per REST operation: its method and path under /api/v1, what it reads and what it
// answers. The router serves exactly these (api/routes/serve.ts validates each input before the
// handler runs) and the OpenAPI document is built from them (api/openapi/document.ts), so the two
// cannot drift.
import { z } from 'zod';
import { PATH_PARAMS, type PathParamName } from './input-fields.ts';

export interface Operation {
  method: 'get' | 'post';
  /** OpenAPI path template under /api/v1, e.g. `/load-testing/status/{test_id}`. */
  path: string;
  summary: string;
  tag: string;
  /** One field for each `{name}` of `path`, by that name: read from the path (contract/input-fields.ts). */
  params?: z.ZodObject;
  query?: z.ZodObject;
  /** Request headers the operation reads besides the credentials (lower-case names). */
  headers?: z.ZodObject;
  body?: z.ZodType;
  /** The success status and its body (null body: a Server-Sent Events stream). */
  success: { status: number; schema: z.ZodType | null; description: string };
  /** Error statuses besides 400, 401, 429 and 503, which every operation has (api/openapi/document.ts). */
  errors: number[];
}

/** An operation as its group declares it: the group gives the tag, the path gives the parameters. */
export type Declaration = Omit<Operation, 'tag' | 'params'>;

/** The names of the `{name}`s of a path template. */
type NamesIn<P extends string> = P extends `${string}{${infer N}}${infer Rest}` ? N | NamesIn<Rest> : never;
type ParamsOf<P extends string> = [NamesIn<P>] extends [never]
  ? undefined
  : z.ZodObject<{ [N in NamesIn<P> & PathParamName]: (typeof PATH_PARAMS)[N] }, z.core.$strict>;
/** A declaration whose path names only parameters contract/input-fields.ts knows (else: a type error). */
type Known<D extends Declaration> = NamesIn<D['path']> extends PathParamName ? D : never;

const NAME = /\{([^}]+)\}/g;

function paramsOf(path: string): z.ZodObject | undefined {
  const names = [...path.matchAll(NAME)].map((m) => m[1] as string);
  if (names.length === 0) return undefined;
  const unknown = names.find((name) => !Object.hasOwn(PATH_PARAMS, name));
  if (unknown) throw new Error(`${path}: {${unknown}} is not a path parameter of contract/input-fields.ts`);
  return z.strictObject(Object.fromEntries(names.map((name) => [name, PATH_PARAMS[name as PathParamName]])));
}

/**
 * Declares a group of operations under one tag, keeping each one's exact type (so a handler's input is
 * typed from its schemas), with its path parameters read from its path.
 */
export function operations<const D extends Record<string, Declaration>>(
  tag: string,
  declared: { [K in keyof D]: Known<D[K]> },
): { [K in keyof D]: D[K] & { tag: string; params: ParamsOf<D[K]['path']> } } {
  return Object.fromEntries(
    Object.entries(declared).map(([name, d]) => [name, { ...d, tag, params: paramsOf(d.path) }]),
  ) as { [K in keyof D]: D[K] & { tag: string; params: ParamsOf<D[K]['path']> } };
}

type Out<S> = S extends z.ZodType ? z.output<S> : undefined;
/** What the handler of `O` receives, validated: path parameters, query, headers and body. */
export interface OperationInput<O extends Operation> {
  params: Out<O['params']>;
  query: Out<O['query']>;
  headers: Out<O['headers']>;
  body: Out<O['body']>;
}

/** A declaration but its method and path, which get() and post() give. */
type Described = Omit<Declaration, 'method' | 'path'>;
/** A GET operation at `path` (under /api/v1). */
export function get<const P extends string, const R extends Described>(
  path: P,
  rest: R,
): R & { method: 'get'; path: P } {
  return { ...rest, method: 'get', path };
}
/** A POST operation at `path` (under /api/v1). */
export function post<const P extends string, const R extends Described>(
  path: P,
  rest: R,
): R & { method: 'post'; path: P } {
  return { ...rest, method: 'post', path };
}
/** A success answer: 200 with `schema` (null: the handler answers itself, a stream or file, as `description` says). */
export const ok = <S extends z.ZodType | null>(schema: S, description: string) =>
  ({ status: 200, schema, description }) as const;
/** 201 Created, with `schema`. */
export const created = <S extends z.ZodType>(schema: S, description: string) =>
  ({ status: 201, schema, description }) as const;
/** 202 Accepted, with `schema`. */
export const accepted = <S extends z.ZodType>(schema: S, description: string) =>
  ({ status: 202, schema, description }) as const;
