// One declaration per REST operation: its method and path under /api/v1, what it reads and what it
// answers. The router serves exactly these (api/routes/serve.ts validates each input before the
// handler runs) and the OpenAPI document is built from them (api/openapi/document.ts), so the two
// cannot drift.
import type { z } from 'zod';

export interface Operation {
  method: 'get' | 'post';
  /** OpenAPI path template under /api/v1, e.g. `/load-testing/status/{test_id}`. */
  path: string;
  summary: string;
  tag: string;
  /** One field for each `{name}` of `path`, by that name (a test checks the two agree). */
  params?: z.ZodObject;
  query?: z.ZodObject;
  /** Request headers the operation reads besides the credentials (lower-case names). */
  headers?: z.ZodObject;
  body?: z.ZodType;
  /** The success status and its body (null body: a Server-Sent Events stream). */
  success: { status: number; schema: z.ZodType | null; description: string };
  /** Error statuses besides 401 and 429, which every operation has. */
  errors: number[];
}

/** Declares an operation, keeping its exact type (so a handler's input is typed from its schemas). */
export const operation = <const O extends Operation>(o: O): O => o;

type Out<S> = S extends z.ZodType ? z.output<S> : undefined;
/** What the handler of `O` receives, validated: path parameters, query, headers and body. */
export interface OperationInput<O extends Operation> {
  params: Out<O['params']>;
  query: Out<O['query']>;
  headers: Out<O['headers']>;
  body: Out<O['body']>;
}
