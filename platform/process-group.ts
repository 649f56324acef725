import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import os from 'node:os';
import readline from 'node:readline';
import type { Readable, Writable } from 'node:stream';

const isPosix = process.platform !== 'win32';

/** How a managed process ended. */
export interface ExitInfo {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** A child started through a ProcessGroup; `exited` settles (never rejects) once it is gone. */
export interface ManagedProcess {
  readonly name: string;
  readonly child: ChildProcess;
  readonly exited: Promise<ExitInfo>;
}

/** Options for ProcessGroup.spawn. */
export interface SpawnManagedOptions {
  cwd?: string;
  env?: NodeJS.ProcessEnv;
}

/** Options for a ProcessGroup. */
export interface ProcessGroupOptions {
  /** Grace period between SIGTERM and SIGKILL when stopping (default 10 s). */
  killTimeoutMs?: number;
}

/** Cleanup step run by stopAll after the children are gone (e.g. stopping an embedded server). */
export type Cleanup = () => Promise<void> | void;

/**
 * Runs the stack's child processes with `[name] ` prefixed output and stops all of them together,
 * so `npm start` behaves like one program: Ctrl-C (or SIGTERM) stops every child and then the
 * registered cleanups (embedded PostgreSQL, broker, Temporal) in reverse order.
 */
export class ProcessGroup {
  private readonly processes: ManagedProcess[] = [];
  private readonly cleanups: Cleanup[] = [];
  private readonly killTimeoutMs: number;
  private stopping?: Promise<void>;

  constructor(options: ProcessGroupOptions = {}) {
    this.killTimeoutMs = options.killTimeoutMs ?? 10_000;
  }

  /** Starts `command args` as a member of the group; its stdout/stderr lines are prefixed with `[name]`. */
  spawn(
    name: string,
    command: string,
    args: readonly string[],
    options: SpawnManagedOptions = {},
  ): ManagedProcess {
    if (this.stopping) throw new Error(`Cannot start "${name}": the process group is stopping`);
    // Each child leads its own process group so a signal reaches its whole tree (npm → sh → tsx → node).
    const child = spawn(command, args, {
      cwd: options.cwd,
      env: options.env ?? process.env,
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: isPosix,
    });
    pipeWithPrefix(child.stdout, process.stdout, name);
    pipeWithPrefix(child.stderr, process.stderr, name);
    const exited = new Promise<ExitInfo>((resolve) => {
      child.once('error', (err) => {
        process.stderr.write(`[${name}] failed to start: ${err.message}\n`);
        resolve({ code: null, signal: null });
      });
      child.once('exit', (code, signal) => {
        if (!this.stopping) process.stderr.write(`[${name}] exited (${describeExit({ code, signal })})\n`);
        resolve({ code, signal });
      });
    });
    const managed: ManagedProcess = { name, child, exited };
    this.processes.push(managed);
    return managed;
  }

  /** Registers a cleanup to run after all children stopped; cleanups run in reverse registration order. */
  addCleanup(cleanup: Cleanup): void {
    this.cleanups.push(cleanup);
  }

  /** Stops every child (SIGTERM, then SIGKILL after the grace period), then runs the cleanups. Idempotent. */
  stopAll(): Promise<void> {
    this.stopping ??= this.stopEverything();
    return this.stopping;
  }

  /**
   * Makes SIGINT/SIGTERM/SIGHUP stop the whole group and then exit with 128+signal; a second signal
   * kills the children immediately. Returns a function that removes the handlers again.
   */
  installSignalHandlers(): () => void {
    let received = 0;
    let firstAt = 0;
    const handler = (signal: NodeJS.Signals): void => {
      // Ctrl-C reaches npm, tsx and node at once (tsx also relays it): a repeat within a moment is the same press.
      if (received > 0 && Date.now() - firstAt < 1500) return;
      received += 1;
      firstAt ||= Date.now();
      if (received > 1) {
        process.stderr.write(`Received ${signal} again, killing all processes\n`);
        for (const managed of this.processes) signalTree(managed.child, 'SIGKILL');
        process.exit(1);
      }
      process.stderr.write(`Received ${signal}, stopping all processes (repeat to force)\n`);
      this.stopAll().then(
        () => process.exit(128 + signalNumber(signal)),
        (err: unknown) => {
          process.stderr.write(`Shutdown finished with errors: ${errorMessage(err)}\n`);
          process.exit(1);
        },
      );
    };
    const signals: NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];
    for (const signal of signals) process.on(signal, handler);
    return () => {
      for (const signal of signals) process.off(signal, handler);
    };
  }

  private async stopEverything(): Promise<void> {
    await Promise.all(this.processes.map((managed) => this.terminate(managed)));
    const errors: unknown[] = [];
    for (const cleanup of [...this.cleanups].reverse()) {
      try {
        await cleanup();
      } catch (err) {
        errors.push(err);
        process.stderr.write(`Cleanup failed: ${errorMessage(err)}\n`);
      }
    }
    if (errors.length > 0) throw new AggregateError(errors, 'Some cleanups failed while stopping');
  }

  private async terminate(managed: ManagedProcess): Promise<void> {
    if (!isTreeAlive(managed.child)) return;
    signalTree(managed.child, 'SIGTERM');
    const gone = await waitUntil(() => !isTreeAlive(managed.child), this.killTimeoutMs);
    if (!gone) {
      process.stderr.write(`[${managed.name}] did not stop within ${this.killTimeoutMs} ms, killing it\n`);
      signalTree(managed.child, 'SIGKILL');
    }
    await managed.exited;
  }
}

/** True when a process with this pid exists (and may be signalled), used to detect orphans and stale pid files. */
export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The command line of a running process (via /proc, else `ps`), to tell our orphans from reused PIDs. */
export function readCommandLine(pid: number): string | undefined {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ').trim();
  } catch {
    // No procfs (macOS) or the process is gone; ps answers the former and fails for the latter.
  }
  try {
    return (
      execFileSync('ps', ['-o', 'command=', '-p', String(pid)], { encoding: 'utf8' }).trim() || undefined
    );
  } catch {
    return undefined;
  }
}

/**
 * Stops a process that is not our child (an orphan left by a killed earlier run): sends
 * `signal`, then SIGKILL when it is still alive after `timeoutMs`. Resolves once it is gone.
 */
export async function terminatePid(pid: number, signal: NodeJS.Signals, timeoutMs: number): Promise<void> {
  if (!sendSignal(pid, signal)) return;
  if (await waitUntil(() => !isProcessAlive(pid), timeoutMs)) return;
  sendSignal(pid, 'SIGKILL');
  if (!(await waitUntil(() => !isProcessAlive(pid), 5_000))) {
    throw new Error(`Process ${pid} is still alive after SIGKILL`);
  }
}

/** Polls `condition` every 100 ms until it holds (true) or `timeoutMs` elapsed (false). */
export async function waitUntil(condition: () => boolean, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() >= deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return true;
}

function pipeWithPrefix(input: Readable | null, output: Writable, name: string): void {
  if (!input) return;
  readline.createInterface({ input, crlfDelay: Infinity }).on('line', (line) => {
    output.write(`[${name}] ${line}\n`);
  });
}

function signalTree(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined) return;
  if (isPosix) sendSignal(-child.pid, signal);
  else child.kill(signal);
}

function isTreeAlive(child: ChildProcess): boolean {
  if (child.pid === undefined) return false;
  if (isPosix) return isProcessAlive(-child.pid);
  return child.exitCode === null && child.signalCode === null;
}

/** Sends a signal; false when the target no longer exists. */
function sendSignal(pid: number, signal: NodeJS.Signals): boolean {
  try {
    process.kill(pid, signal);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ESRCH') return false;
    throw err;
  }
}

function signalNumber(signal: NodeJS.Signals): number {
  return os.constants.signals[signal] ?? 0;
}

function describeExit({ code, signal }: ExitInfo): string {
  return signal ? `signal ${signal}` : `code ${code}`;
}

function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
