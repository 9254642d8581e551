// A thread of the JSON Schema checker (lib/json-schema-pool.ts): checks one body at a time, each
// against a schema it compiles once and keeps by its hash (the newest few). The pool ends the thread
// when a check runs past its time, and Node when the thread runs past its heap: nothing here needs
// to stop itself. It runs below the API's own threads (nice), so a check in progress never takes a
// core from the event loop.
import fs from 'node:fs';
import os from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';
import type { ValidateFunction } from 'ajv/dist/2020.js';
import { checkBody, compileSchema, type SchemaVerdict } from './json-schema-check.ts';

/** What the pool asks: `body` checked against `schema` (JSON text, known by `hash`). */
export interface CheckRequest {
  id: number;
  hash: string;
  schema: string;
  body: string | null;
  encoding: 'utf8' | 'base64';
}
/** What the thread answers: `ready` once (with its Linux thread id, when known), then a verdict per request. */
export type CheckAnswer = { ready: true; tid: number | null } | { id: number; verdict: SchemaVerdict };

/** Compiled schemas kept: a 64 KiB schema compiles to 4 MB of heap at most (measured), 32 MB for 8. */
const MAX_COMPILED = 8;

/** This thread's id on Linux (the pool reads its CPU time by it), else null. */
function threadId(): number | null {
  try {
    const tid = Number(fs.readlinkSync('/proc/thread-self').split('/').pop());
    return tid > 0 ? tid : null;
  } catch {
    return null; // not Linux
  }
}
const tid = threadId();

const nice = Number((workerData as { nice?: number } | null)?.nice ?? 0);
try {
  if (tid && nice > 0) os.setPriority(tid, Math.min(19, os.getPriority(tid) + nice));
} catch {
  // Not allowed: the process's priority.
}

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

// Ajv's first compile (its own meta-schema, V8's first runs of its code) before the first check's
// budget starts: 0.1-0.3 s on a loaded machine, not to be charged to whichever check comes first.
checkBody(compileSchema({ type: 'object' }) as ValidateFunction, '{}', 'utf8');

const port = parentPort!;
port.on('message', (m: CheckRequest) => {
  const validate = validator(m.hash, m.schema);
  const verdict: SchemaVerdict =
    typeof validate === 'string'
      ? { valid: false, errors: [{ path: '', message: `cannot be checked: the schema ${validate}` }] }
      : checkBody(validate, m.body, m.encoding);
  port.postMessage({ id: m.id, verdict } satisfies CheckAnswer);
});
port.postMessage({ ready: true, tid } satisfies CheckAnswer);
