// What every launcher of a helper binary (the Temporal dev server and cluster, versitygw, stripe-mock,
// the Go and Python builds) needs of its files and child processes: whether a binary is there to run, how
// a child's exit is told, and a stop that asks first (SIGTERM) and insists after a grace period (SIGKILL).
import type { ChildProcess } from 'node:child_process';
import { constants as fsConstants } from 'node:fs';
import fs from 'node:fs/promises';

/** Whether `file` is a non-empty regular file this process may execute (a finished build or download). */
export async function isExecutableFile(file: string): Promise<boolean> {
  try {
    const stat = await fs.stat(file);
    if (!stat.isFile() || stat.size === 0) return false;
    await fs.access(file, fsConstants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** Whether `file` is a non-empty regular file (data a binary needs, such as stripe-mock's fixtures). */
export async function isNonEmptyFile(file: string): Promise<boolean> {
  return fs.stat(file).then(
    (stat) => stat.isFile() && stat.size > 0,
    () => false,
  );
}

/** A child's end: `promise` resolves when it exited or could not start, `description` says which. */
export interface ExitTracker {
  promise: Promise<void>;
  description?: string;
}

/** Watches a child from its spawn, so a launcher waiting for readiness can tell a crash from slowness. */
export function trackExit(child: ChildProcess): ExitTracker {
  const tracker: ExitTracker = { promise: Promise.resolve() };
  tracker.promise = new Promise<void>((resolve) => {
    child.once('error', (err) => {
      tracker.description = `could not be started: ${err.message}`;
      resolve();
    });
    child.once('exit', (code, signal) => {
      tracker.description ??= `exited with ${signal ? `signal ${signal}` : `code ${code}`}`;
      resolve();
    });
  });
  return tracker;
}

/**
 * Stops a child: SIGTERM, then SIGKILL if it has not exited (`exited`) within `graceMs`; resolves once it
 * is gone. A child that never started or has exited already is left alone.
 */
export async function terminateChild(
  child: ChildProcess,
  exited: Promise<void>,
  graceMs: number,
): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return;
  child.kill('SIGTERM');
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(true), graceMs);
  });
  if (await Promise.race([exited.then(() => false), timedOut])) {
    child.kill('SIGKILL');
    await exited;
  }
  clearTimeout(timer);
}
