// A thread's own id and priority: Linux sets a priority per thread, by the thread's id from /proc.
import fs from 'node:fs';
import os from 'node:os';

/** The calling thread's id on Linux (its CPU time and priority are read and set by it), else null. */
export function thisThreadId(): number | null {
  try {
    const tid = Number(fs.readlinkSync('/proc/thread-self').split('/').pop());
    return tid > 0 ? tid : null;
  } catch {
    return null; // not Linux
  }
}

/**
 * Lowers thread `tid`'s priority by `nice` (added to what it has; at most 19). Without an id, or when
 * not allowed, nothing: the thread keeps the process's priority.
 */
export function lowerThread(tid: number | null, nice: number): void {
  try {
    if (tid && nice > 0) os.setPriority(tid, Math.min(19, os.getPriority(tid) + nice));
  } catch {
    // Not allowed.
  }
}

/** Lowers the calling thread's priority by `nice`. */
export const lowerThisThread = (nice: number): void => lowerThread(thisThreadId(), nice);
