// A thread of the JSON Schema checker (lib/json-schema/json-schema-pool.ts, served by lib/threads/pool-thread.ts):
// checks one body at a time, each against a schema it compiles once and keeps by its hash (the newest few).
import type { ValidateFunction } from 'ajv/dist/2020.js';
import { checkBody, compileSchema, type SchemaVerdict } from './json-schema-check.ts';
import { serveTasks } from '../threads/pool-thread.ts';

/**
 * One body to check against one schema (JSON text, known by `hash`); with `compileOnly`, no body: the
 * schema compiled (and kept), valid when it compiles, else the reason as its one error.
 */
export type CheckJob =
  | { hash: string; schema: string; body: string | null; encoding: 'utf8' | 'base64'; compileOnly?: false }
  | { hash: string; schema: string; compileOnly: true };

/** Compiled schemas kept: a 64 KiB schema compiles to 4 MB of heap at most (measured), 32 MB for 8. */
const MAX_COMPILED = 8;

const compiled = new Map<string, ValidateFunction | string>();

function validator(hash: string, schema: string): ValidateFunction | string {
  const known = compiled.get(hash);
  if (known) {
    compiled.delete(hash); // the newest used last
    compiled.set(hash, known);
    return known;
  }
  const made = compileSchema(JSON.parse(schema));
  if (compiled.size >= MAX_COMPILED) compiled.delete(compiled.keys().next().value!);
  compiled.set(hash, made);
  return made;
}

function check(job: CheckJob): SchemaVerdict {
  const validate = validator(job.hash, job.schema);
  if (job.compileOnly)
    return typeof validate === 'string'
      ? { valid: false, errors: [{ path: '', message: validate }] }
      : { valid: true, errors: [] };
  return typeof validate === 'string'
    ? { valid: false, errors: [{ path: '', message: `cannot be checked: the schema ${validate}` }] }
    : checkBody(validate, job.body, job.encoding);
}

// Ajv's first compile (its own meta-schema, V8's first runs of its code) before the first check's
// budget starts: 0.1-0.3 s on a loaded machine, not to be charged to whichever check comes first.
serveTasks(check, () => checkBody(compileSchema({ type: 'object' }) as ValidateFunction, '{}', 'utf8'));
