// A thread's own priority: Linux sets it per thread, by the thread's id from /proc.
import fs from 'node:fs';
import os from 'node:os';

/**
 * Lowers the calling thread's priority by `nice` (added to what it has; at most 19). Elsewhere, or when not allowed,
 * nothing.
 */
export function lowerThisThread(nice: number): void {
  if (nice <= 0) return;
  try {
    const tid = Number(fs.readlinkSync('/proc/thread-self').split('/').pop());
    if (tid > 0) os.setPriority(tid, Math.min(19, os.getPriority(tid) + nice));
  } catch {
    // Not Linux, or not allowed: the process's priority.
  }
}
