// Captures checked against their webhook's JSON Schema when they are read, as signatures are: off
// the capture path, and always against the schema the webhook holds now (a schema changed is the
// one every capture is read against). A schema is compiled once per change (cached by a hash of its
// text), and each capture's verdict is kept by schema and capture id, so paging through a search
// that filters on it checks each body once.
import { createHash } from 'node:crypto';
import type { ValidateFunction } from 'ajv/dist/2020.js';
import { checkBody, compileSchema, type SchemaVerdict } from '../../lib/json-schema-check.ts';

/** Bounds of what this process keeps (both start again when full). */
const MAX_COMPILED = 500;
const MAX_VERDICTS = 200_000;

/** A capture as the check reads it. */
export interface CheckedBody {
  id: number;
  body: string | null;
  bodyEncoding: 'utf8' | 'base64';
}

export function schemaChecks() {
  const compiled = new Map<string, ValidateFunction | string>();
  const verdicts = new Map<string, SchemaVerdict>();
  const keyOf = (schema: object) => createHash('sha256').update(JSON.stringify(schema)).digest('base64url');

  /** The schema, compiled (it was checked when set: one that no longer compiles fails every body, saying why). */
  function validator(key: string, schema: object): ValidateFunction | string {
    const known = compiled.get(key);
    if (known) return known;
    const made = compileSchema(schema);
    if (compiled.size >= MAX_COMPILED) compiled.clear();
    compiled.set(key, made);
    return made;
  }

  return {
    /** A checker of bodies against `schema`: each capture's verdict, computed once per schema. */
    against(schema: object) {
      const key = keyOf(schema);
      return {
        known: (id: number) => verdicts.get(`${key}:${id}`),
        verdict(capture: CheckedBody): SchemaVerdict {
          const cacheKey = `${key}:${capture.id}`;
          const known = verdicts.get(cacheKey);
          if (known) return known;
          const validate = validator(key, schema);
          const verdict =
            typeof validate === 'string'
              ? { valid: false, errors: [{ path: '', message: `cannot be checked: the schema ${validate}` }] }
              : checkBody(validate, capture.body, capture.bodyEncoding);
          if (verdicts.size >= MAX_VERDICTS) verdicts.clear();
          verdicts.set(cacheKey, verdict);
          return verdict;
        },
      };
    },
  };
}

export type SchemaChecks = ReturnType<typeof schemaChecks>;
