// The rules of HTTP's own fields that every input naming a header, a method or a body follows
// (RFC 9110): a header name is a token; a value we write into a request may not carry a line break or
// NUL (it would write header lines of its own); only some methods carry a body.
import { z } from 'zod';

/** A header name: an RFC 9110 token. */
export const HEADER_NAME_TOKEN = "[A-Za-z0-9!#$%&'*+.^_`|~-]";
export const HEADER_NAME = new RegExp(`^${HEADER_NAME_TOKEN}+$`);

/** A header value written into a request: no line breaks or NUL (`typeError`: what a non-string is told). */
export const noLineBreaks = (typeError: string) =>
  z.string({ error: typeError }).refine((v) => !/[\r\n\0]/.test(v), 'must not contain line breaks');

/** Headers the client sets itself (per connection or per body): a user's headers may not set them. */
export const CLIENT_HEADERS: ReadonlySet<string> = new Set([
  'host',
  'content-length',
  'connection',
  'transfer-encoding',
  'keep-alive',
  'upgrade',
  'expect',
  'te',
  'trailer',
]);

/**
 * Headers a user gives by name and value (a load test's, a step's, an output's): token names,
 * values without line breaks, at most `max`, none of `reserved` (case-insensitive; `refused` says why).
 */
export const headerMap = (max: number, reserved: ReadonlySet<string>, refused: string) =>
  z
    .record(z.string().regex(HEADER_NAME, 'must be header names'), noLineBreaks('must be strings'))
    .refine((h) => Object.keys(h).length <= max, `must hold at most ${max} headers`)
    .refine((h) => !Object.keys(h).some((k) => reserved.has(k.toLowerCase())), refused)
    .default({});

/** The methods a load test sends. */
export const HTTP_METHODS = ['GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'HEAD', 'OPTIONS'] as const;

/** The methods whose requests carry a body. */
export const METHODS_WITH_BODY: ReadonlySet<string> = new Set(['POST', 'PUT', 'PATCH']);
