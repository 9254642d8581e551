// A thread of the capture diffs (lib/capture-diff-threads.ts): diffs two captures' bodies, one pair
// at a time. The pool ends the thread when a diff runs past its time, and Node when it runs past its
// heap: nothing here needs to stop itself. It runs below the API's own threads (nice), so a diff in
// progress never takes a core from the event loop.
import fs from 'node:fs';
import os from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';
import { type BodyDiff, type BodySide, bodyDiff } from './capture-diff.ts';

/** What the pool asks: the diff of two bodies. */
export interface DiffRequest {
  id: number;
  a: BodySide;
  b: BodySide;
}
/** What the thread answers: `ready` once, then each diff as JSON text (one string to copy, not a graph). */
export type DiffAnswer = { ready: true } | { id: number; json: string };
export type { BodyDiff };

function lowerThisThread(nice: number): void {
  if (nice <= 0) return;
  try {
    const tid = Number(fs.readlinkSync('/proc/thread-self').split('/').pop());
    if (tid > 0) os.setPriority(tid, Math.min(19, os.getPriority(tid) + nice));
  } catch {
    // Not Linux, or not allowed: the process's priority.
  }
}
lowerThisThread(Number((workerData as { nice?: number } | null)?.nice ?? 0));

parentPort!.on('message', ({ id, a, b }: DiffRequest) => {
  parentPort!.postMessage({ id, json: JSON.stringify(bodyDiff(a, b)) } satisfies DiffAnswer);
});
parentPort!.postMessage({ ready: true } satisfies DiffAnswer);
