import { spawn } from 'node:child_process';
import { createWriteStream, type WriteStream } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { Connection } from '@temporalio/client';
import { freePort, isPortOpen } from './net.js';
import { isProcessAlive, readCommandLine, terminatePid } from './process-group.js';
import { terminateChild, trackExit, type ExitTracker } from './child-processes.js';

/** Options for startTemporalDevServer. */
export interface TemporalDevServerOptions {
  /** The Temporal CLI binary (see ensureTemporalCli). */
  cliPath: string;
  /** Frontend gRPC port; 0 picks a free one. */
  port: number;
  /** Web UI port; 0 or undefined runs headless (no UI). */
  uiPort?: number;
  /** SQLite file for persistence across restarts; omitted means in-memory. */
  dbFile?: string;
  /** Namespace to create (the "default" namespace always exists). */
  namespace: string;
  /** Append the server's output to this file (it is always kept in memory for error messages). */
  logFile?: string;
  /** Interface to bind (default 127.0.0.1). */
  ip?: string;
  /** Custom search attributes to register, name → Temporal type name (`Keyword`, `Int`, …). */
  searchAttributes: Readonly<Record<string, string>>;
}

/** A running Temporal dev server. */
export interface TemporalDevServerHandle {
  /** host:port of the frontend, for Connection.connect / NativeConnection.connect. */
  address: string;
  /** Web UI URL, or '' when headless. */
  uiUrl: string;
  /** SIGTERM, then SIGKILL after 5 s; resolves once the process has exited. Idempotent. */
  stop(): Promise<void>;
}

const READY_TIMEOUT_MS = 60_000;
const KILL_AFTER_MS = 5_000;

/**
 * Runs `temporal server start-dev` (SQLite-backed Temporal with Web UI) with the given search
 * attributes registered, and resolves only once the frontend answers for the namespace, so
 * `npm start` and integration tests get a working Temporal without Docker.
 */
export async function startTemporalDevServer(
  options: TemporalDevServerOptions,
): Promise<TemporalDevServerHandle> {
  const ip = options.ip ?? '127.0.0.1';
  const connectHost = ip === '0.0.0.0' ? '127.0.0.1' : ip;
  const port = options.port || (await freePort(ip));
  const uiPort = options.uiPort || undefined;
  const dbFile = options.dbFile ? path.resolve(options.dbFile) : undefined;
  if (dbFile) {
    await fs.mkdir(path.dirname(dbFile), { recursive: true });
    await stopOrphanedServer(dbFile);
  }
  // Readiness is judged by connecting to the port, so a server already there would pass for ours.
  await assertPortsFree(connectHost, [port, uiPort]);
  const log = await createServerLog(options.logFile);
  const child = spawn(options.cliPath, devServerArgs({ ...options, ip, port, uiPort, dbFile }), {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout?.on('data', (chunk: Buffer) => log.write(chunk));
  child.stderr?.on('data', (chunk: Buffer) => log.write(chunk));
  const exit = trackExit(child);
  // If this process exits without calling stop(), the server must not outlive it.
  const killOnExit = (): void => void child.kill('SIGTERM');
  process.on('exit', killOnExit);

  let stopping: Promise<void> | undefined;
  const stop = (): Promise<void> => {
    stopping ??= (async () => {
      await terminateChild(child, exit.promise, KILL_AFTER_MS);
      process.off('exit', killOnExit);
      if (dbFile) await fs.rm(pidFileFor(dbFile), { force: true });
      await log.close();
    })();
    return stopping;
  };

  const address = `${connectHost}:${port}`;
  try {
    if (child.pid === undefined) {
      await exit.promise;
      throw new Error(
        `Temporal dev server (${options.cliPath}) ${exit.description ?? 'could not be started'}`,
      );
    }
    if (dbFile) await fs.writeFile(pidFileFor(dbFile), `${child.pid} ${process.pid}\n`);
    await waitUntilReady(address, options.namespace, exit, log);
  } catch (err) {
    await stop();
    throw err;
  }
  return { address, uiUrl: uiPort ? `http://${connectHost}:${uiPort}` : '', stop };
}

/**
 * SQLite settings for a file-backed dev server. SQLite's default rollback journal syncs to disk on every
 * commit, and each workflow task, update and activity is a commit: on this project's machine a bare
 * Temporal rental lifecycle went from 11 to 19 per second at 8 concurrent with WAL.
 * synchronous=normal in WAL mode stays consistent after a crash; a power loss may lose the last
 * commits, acceptable for the dev server. The in-memory server does not take them.
 */
const sqlitePragmaArgs = ['--sqlite-pragma', 'journal_mode=wal', '--sqlite-pragma', 'synchronous=normal'];

/** The CLI arguments for `temporal server start-dev`; exported so the docs and tests can show them. */
export function devServerArgs(options: {
  port: number;
  uiPort?: number;
  dbFile?: string;
  namespace: string;
  ip: string;
  searchAttributes: Readonly<Record<string, string>>;
}): string[] {
  const args = [
    'server',
    'start-dev',
    '--ip',
    options.ip,
    '--port',
    String(options.port),
    '--log-level',
    'warn',
  ];
  args.push(...(options.uiPort ? ['--ui-port', String(options.uiPort)] : ['--headless']));
  if (options.dbFile) args.push('--db-filename', options.dbFile, ...sqlitePragmaArgs);
  if (options.namespace !== 'default') args.push('--namespace', options.namespace);
  for (const [name, type] of Object.entries(options.searchAttributes)) {
    args.push('--search-attribute', `${name}=${type}`);
  }
  return args;
}

/** Polls cheaply (TCP first, then describeNamespace) until the frontend serves the namespace. */
async function waitUntilReady(
  address: string,
  namespace: string,
  exit: ExitTracker,
  log: ServerLog,
): Promise<void> {
  const [host, portText] = splitAddress(address);
  const deadline = Date.now() + READY_TIMEOUT_MS;
  let lastError = 'port not open yet';
  for (;;) {
    if (exit.description) {
      throw new Error(
        `Temporal dev server ${exit.description} before becoming ready\n--- log tail ---\n${log.tail()}`,
      );
    }
    if (Date.now() > deadline) {
      throw new Error(
        `Temporal dev server at ${address} not ready after ${READY_TIMEOUT_MS / 1000} s (${lastError})\n` +
          `--- log tail ---\n${log.tail()}`,
      );
    }
    if (await isPortOpen(host, Number(portText), 500)) {
      const connection = await Connection.connect({ address, connectTimeout: 2_000 }).catch((err: Error) => {
        lastError = err.message;
        return undefined;
      });
      if (connection) {
        try {
          await connection.workflowService.describeNamespace({ namespace });
          return;
        } catch (err) {
          lastError = (err as Error).message;
        } finally {
          await connection.close();
        }
      }
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

async function assertPortsFree(host: string, ports: Array<number | undefined>): Promise<void> {
  for (const port of ports) {
    if (port !== undefined && (await isPortOpen(host, port, 500))) {
      throw new Error(`Cannot start the Temporal dev server: port ${port} on ${host} is already in use`);
    }
  }
}

function pidFileFor(dbFile: string): string {
  return `${dbFile}.pid`;
}

/**
 * A dev server orphaned by a killed earlier run keeps the SQLite file and the ports; stop it when
 * its owner is gone, refuse when another live process still owns it.
 */
async function stopOrphanedServer(dbFile: string): Promise<void> {
  const text = await fs.readFile(pidFileFor(dbFile), 'utf8').catch(() => undefined);
  if (!text) return;
  const [serverPid, ownerPid] = text
    .trim()
    .split(/\s+/)
    .map((part) => Number.parseInt(part, 10));
  const serverAlive =
    serverPid !== undefined && serverPid > 0 && isProcessAlive(serverPid) && isOurServer(serverPid, dbFile);
  if (serverAlive) {
    if (ownerPid !== undefined && isProcessAlive(ownerPid)) {
      const by = ownerPid === process.pid ? 'by this process' : `by PID ${ownerPid}`;
      throw new Error(
        `A Temporal dev server for ${dbFile} is already running (PID ${serverPid}, started ${by})`,
      );
    }
    process.stderr.write(`Stopping orphaned Temporal dev server (PID ${serverPid}) left by an earlier run\n`);
    await terminatePid(serverPid, 'SIGTERM', KILL_AFTER_MS);
  }
  await fs.rm(pidFileFor(dbFile), { force: true });
}

function isOurServer(pid: number, dbFile: string): boolean {
  const commandLine = readCommandLine(pid);
  return commandLine !== undefined && commandLine.includes('start-dev') && commandLine.includes(dbFile);
}

function splitAddress(address: string): [string, string] {
  const index = address.lastIndexOf(':');
  return [address.slice(0, index), address.slice(index + 1)];
}

interface ServerLog {
  write(chunk: Buffer): void;
  tail(): string;
  close(): Promise<void>;
}

/** Keeps the last lines for error messages, appends to `logFile`, echoes when DEBUG_EMBEDDED=1. */
async function createServerLog(logFile: string | undefined, maxLines = 40): Promise<ServerLog> {
  let file: WriteStream | undefined;
  if (logFile) {
    await fs.mkdir(path.dirname(path.resolve(logFile)), { recursive: true });
    file = createWriteStream(logFile, { flags: 'a' });
  }
  const echo = process.env.DEBUG_EMBEDDED === '1';
  const lines: string[] = [];
  return {
    write(chunk: Buffer): void {
      file?.write(chunk);
      if (echo) process.stderr.write(chunk);
      lines.push(
        ...chunk
          .toString('utf8')
          .split(/\r?\n/)
          .filter((line) => line.trim() !== ''),
      );
      if (lines.length > maxLines) lines.splice(0, lines.length - maxLines);
    },
    tail: () => lines.join('\n') || '(no output)',
    close: () => new Promise<void>((resolve) => (file ? file.end(() => resolve()) : resolve())),
  };
}
