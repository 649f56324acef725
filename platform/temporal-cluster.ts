// The real Temporal server without Docker, for the cluster topology (`npm run start:cluster`): the server
// (go.temporal.io/server v1.32.0, frontend, history, matching and worker services in one process, 4 history
// shards) on PostgreSQL — the same embedded PostgreSQL as fleetflow's own data, databases `temporal` and
// `temporal_visibility` — and the Temporal UI server beside it. Both are Go programs built once from the Go
// module proxy into ~/.cache/fleetflow (platform/go-binaries.ts). The server renders the configuration its
// own image renders (its embedded, environment-driven template: `temporal-server start` with DB=postgres12,
// POSTGRES_SEEDS, …), and ops/temporal/setup.sh, the script docker-compose's admin-tools one-shots run,
// sets up the schemas, the namespace and the search attributes: what runs here is what compose runs.
import { spawn } from 'node:child_process';
import { createWriteStream, type WriteStream } from 'node:fs';
import fs from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import { repoRoot } from './config.js';
import { ensureGoBinaries, type GoBuildSpec } from './go-binaries.js';
import { freePort, isPortOpen } from './net.js';
import { isProcessAlive, readCommandLine, terminatePid } from './process-group.js';
import { terminateChild, trackExit } from './child-processes.js';

export const TEMPORAL_SERVER_VERSION = '1.32.0';
export const TEMPORAL_UI_SERVER_VERSION = '2.55.0';
/** Fixed for the cluster's life: the shards are rows of the `temporal` database. */
export const TEMPORAL_HISTORY_SHARDS = 4;
export const TEMPORAL_DATABASE = 'temporal';
export const TEMPORAL_VISIBILITY_DATABASE = 'temporal_visibility';
/** Retention of closed workflows in the namespace the cluster registers. */
export const TEMPORAL_RETENTION = '24h';

/** The server and its schema tool, built as upstream builds its images (static, no gRPC modules). */
export const temporalServerBuild: GoBuildSpec = {
  title: `the Temporal server v${TEMPORAL_SERVER_VERSION}`,
  cacheName: 'temporal-server',
  version: `v${TEMPORAL_SERVER_VERSION}`,
  binaries: [
    {
      package: 'go.temporal.io/server/cmd/server',
      builtAs: 'server',
      fileName: 'temporal-server',
      envOverride: 'TEMPORAL_SERVER_PATH',
    },
    {
      package: 'go.temporal.io/server/cmd/tools/sql',
      builtAs: 'sql',
      fileName: 'temporal-sql-tool',
      envOverride: 'TEMPORAL_SQL_TOOL_PATH',
    },
  ],
  tags: ['disable_grpc_modules'],
  disableCgo: true,
};

/**
 * The Temporal UI server; its module carries the built web assets (`ui/assets/local`). v2.55.0 is the newest
 * release whose go.mod accepts this project's Go (1.26.8; later ones ask for 1.26.10).
 */
export const temporalUiServerBuild: GoBuildSpec = {
  title: `the Temporal UI server v${TEMPORAL_UI_SERVER_VERSION}`,
  cacheName: 'temporal-ui-server',
  version: `v${TEMPORAL_UI_SERVER_VERSION}`,
  binaries: [
    {
      package: 'github.com/temporalio/ui-server/v2/cmd/server',
      builtAs: 'server',
      fileName: 'temporal-ui-server',
      envOverride: 'TEMPORAL_UI_SERVER_PATH',
    },
  ],
  disableCgo: true,
};

/** Paths of the cluster's programs in the cache (built there first when missing: ~7 minutes on 2 cores). */
export async function ensureTemporalClusterBinaries(
  cacheDir: string,
  env: NodeJS.ProcessEnv = process.env,
): Promise<{ server: string; sqlTool: string }> {
  const built = await ensureGoBinaries(temporalServerBuild, cacheDir, env);
  return { server: built['temporal-server']!, sqlTool: built['temporal-sql-tool']! };
}

export async function ensureTemporalUiServer(
  cacheDir: string,
  env: NodeJS.ProcessEnv = process.env,
): Promise<string> {
  return (await ensureGoBinaries(temporalUiServerBuild, cacheDir, env))['temporal-ui-server']!;
}

/** Every port the server listens on. */
export interface TemporalClusterPorts {
  frontend: number;
  frontendHttp: number;
  frontendMembership: number;
  history: number;
  historyMembership: number;
  matching: number;
  matchingMembership: number;
  worker: number;
  workerMembership: number;
}

/**
 * The standard layout around a frontend port: 7233 → HTTP 7243, history 7234, matching 7235, worker 7239,
 * membership 6933/6934/6935/6939 (Temporal's own defaults, kept at the same distances from another frontend).
 */
export function clusterPortsAround(frontend: number): TemporalClusterPorts {
  return {
    frontend,
    frontendHttp: frontend + 10,
    frontendMembership: frontend - 300,
    history: frontend + 1,
    historyMembership: frontend - 299,
    matching: frontend + 2,
    matchingMembership: frontend - 298,
    worker: frontend + 6,
    workerMembership: frontend - 294,
  };
}

/**
 * The server records each service's membership port in a SMALLINT column (`cluster_membership.rpc_port`):
 * a port above 32767 fails its start ("out of range for type smallint").
 */
const MAX_MEMBERSHIP_PORT = 32767;

/** A port nothing listens on below the OS's ephemeral range, for a membership port (see above). */
async function freeLowPort(host: string, taken: Set<number>): Promise<number> {
  for (let attempt = 0; attempt < 200; attempt++) {
    const port = 20000 + Math.floor(Math.random() * (MAX_MEMBERSHIP_PORT - 20000));
    if (taken.has(port)) continue;
    const free = await new Promise<boolean>((resolve) => {
      const server = net.createServer();
      server.once('error', () => resolve(false));
      server.listen({ port, host, exclusive: true }, () => server.close(() => resolve(true)));
    });
    if (free) return port;
  }
  throw new Error(`No free port between 20000 and ${MAX_MEMBERSHIP_PORT} on ${host}`);
}

async function freeClusterPorts(host: string): Promise<TemporalClusterPorts> {
  const picked = new Set<number>();
  const pick = async (low = false): Promise<number> => {
    for (;;) {
      const port = low ? await freeLowPort(host, picked) : await freePort(host);
      if (!picked.has(port)) {
        picked.add(port);
        return port;
      }
    }
  };
  return {
    frontend: await pick(),
    frontendHttp: await pick(),
    frontendMembership: await pick(true),
    history: await pick(),
    historyMembership: await pick(true),
    matching: await pick(),
    matchingMembership: await pick(true),
    worker: await pick(),
    workerMembership: await pick(true),
  };
}

/** Where the server's PostgreSQL is and who it connects as. */
export interface ClusterDatabase {
  host: string;
  port: number;
  user: string;
  password: string;
}

/** host, port, user and password of a `postgres://` URL (fleetflow's own database's server). */
export function clusterDatabaseOf(databaseUrl: string): ClusterDatabase {
  const url = new URL(databaseUrl);
  return {
    host: url.hostname,
    port: Number(url.port || 5432),
    user: decodeURIComponent(url.username),
    password: decodeURIComponent(url.password),
  };
}

/**
 * The variables of the server's embedded configuration template, as docker-compose.yml gives them to the
 * temporalio/server image: PostgreSQL 12+ persistence and visibility, the history shards, the bind address,
 * every service's ports and the dynamic configuration file.
 */
export function clusterServerEnvironment(options: {
  database: ClusterDatabase;
  ports: TemporalClusterPorts;
  bindIp: string;
  dynamicConfigFile: string;
}): Record<string, string> {
  const { database, ports } = options;
  return {
    DB: 'postgres12',
    POSTGRES_SEEDS: database.host,
    DB_PORT: String(database.port),
    POSTGRES_USER: database.user,
    POSTGRES_PWD: database.password,
    DBNAME: TEMPORAL_DATABASE,
    VISIBILITY_DBNAME: TEMPORAL_VISIBILITY_DATABASE,
    NUM_HISTORY_SHARDS: String(TEMPORAL_HISTORY_SHARDS),
    BIND_ON_IP: options.bindIp,
    TEMPORAL_BROADCAST_ADDRESS: options.bindIp,
    TEMPORAL_ALLOW_NO_AUTH: 'true',
    FRONTEND_GRPC_PORT: String(ports.frontend),
    FRONTEND_HTTP_PORT: String(ports.frontendHttp),
    FRONTEND_MEMBERSHIP_PORT: String(ports.frontendMembership),
    HISTORY_GRPC_PORT: String(ports.history),
    HISTORY_MEMBERSHIP_PORT: String(ports.historyMembership),
    MATCHING_GRPC_PORT: String(ports.matching),
    MATCHING_MEMBERSHIP_PORT: String(ports.matchingMembership),
    WORKER_GRPC_PORT: String(ports.worker),
    WORKER_MEMBERSHIP_PORT: String(ports.workerMembership),
    DYNAMIC_CONFIG_FILE_PATH: options.dynamicConfigFile,
    LOG_LEVEL: 'warn',
  };
}

export interface TemporalClusterOptions {
  server: string;
  sqlTool: string;
  /** The Temporal CLI (ensureTemporalCli): ops/temporal/setup.sh registers the namespace with it. */
  cliPath: string;
  database: ClusterDatabase;
  /** Frontend gRPC port; the others follow clusterPortsAround. 0: every port picked free. */
  port: number;
  namespace: string;
  /** Custom search attributes, name → Temporal type name. */
  searchAttributes: Readonly<Record<string, string>>;
  /** Its log (`server.log`), the setup's output (`setup.log`) and the pid file. */
  dataDir: string;
  /** Progress lines (the setup's steps). */
  log?: (line: string) => void;
}

export interface TemporalClusterHandle {
  /** host:port of the frontend. */
  address: string;
  ports: TemporalClusterPorts;
  logFile: string;
  /** SIGTERM (the server drains), SIGKILL after 30 s; idempotent. */
  stop(): Promise<void>;
}

const HOST = '127.0.0.1';
const STOP_GRACE_MS = 30_000;
const setupScript = path.join(repoRoot, 'ops', 'temporal', 'setup.sh');
const dynamicConfigFile = path.join(repoRoot, 'ops', 'temporal', 'dynamicconfig.yaml');

/**
 * Brings the schemas up to date (setup.sh schema), starts the server and resolves once setup.sh namespace
 * says the namespace and the search attributes are registered and usable: a fresh data directory, a restart
 * over an existing one and a restart after a newer server version's schema all end in the same state.
 */
export async function startTemporalCluster(options: TemporalClusterOptions): Promise<TemporalClusterHandle> {
  const dataDir = path.resolve(options.dataDir);
  await fs.mkdir(dataDir, { recursive: true });
  const pidFile = path.join(dataDir, 'server.pid');
  await stopOrphanedServer(pidFile, options.server);
  const ports = options.port ? clusterPortsAround(options.port) : await freeClusterPorts(HOST);
  const membership = [
    ports.frontendMembership,
    ports.historyMembership,
    ports.matchingMembership,
    ports.workerMembership,
  ];
  if (membership.some((port) => port < 1 || port > MAX_MEMBERSHIP_PORT))
    throw new Error(
      `Cannot start the Temporal cluster on frontend port ${ports.frontend}: its membership ports ` +
        `(${membership.join(', ')}) must lie between 1 and ${MAX_MEMBERSHIP_PORT} (choose TEMPORAL_CLUSTER_PORT ` +
        `between 301 and 33061, or 0 for free ports)`,
    );
  for (const [name, port] of Object.entries(ports))
    if (await isPortOpen(HOST, port, 500))
      throw new Error(`Cannot start the Temporal cluster: its ${name} port ${port} is already in use`);
  const setupLog = await openLog(path.join(dataDir, 'setup.log'));
  const say = options.log ?? (() => undefined);
  const toolsPath = [path.dirname(options.sqlTool), path.dirname(options.cliPath), process.env.PATH ?? '']
    .filter(Boolean)
    .join(path.delimiter);
  const baseEnv = { PATH: toolsPath, HOME: process.env.HOME ?? dataDir, TZ: process.env.TZ ?? 'UTC' };
  const address = `${HOST}:${ports.frontend}`;
  try {
    await runSetup(
      'schema',
      {
        ...baseEnv,
        SQL_PLUGIN: 'postgres12',
        SQL_HOST: options.database.host,
        SQL_PORT: String(options.database.port),
        SQL_USER: options.database.user,
        SQL_PASSWORD: options.database.password,
        DBNAME: TEMPORAL_DATABASE,
        VISIBILITY_DBNAME: TEMPORAL_VISIBILITY_DATABASE,
      },
      setupLog,
      say,
    );
  } catch (err) {
    await setupLog.close();
    throw err;
  }

  const serverLog = await openLog(path.join(dataDir, 'server.log'));
  const env = {
    ...baseEnv,
    ...clusterServerEnvironment({ database: options.database, ports, bindIp: HOST, dynamicConfigFile }),
  };
  const child = spawn(options.server, ['start'], { cwd: dataDir, env, stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout.on('data', (chunk: Buffer) => serverLog.write(chunk));
  child.stderr.on('data', (chunk: Buffer) => serverLog.write(chunk));
  const exit = trackExit(child);
  const killOnExit = (): void => void child.kill('SIGTERM');
  process.on('exit', killOnExit);
  let stopping: Promise<void> | undefined;
  const stop = (): Promise<void> => {
    stopping ??= (async () => {
      await terminateChild(child, exit.promise, STOP_GRACE_MS);
      process.off('exit', killOnExit);
      await fs.rm(pidFile, { force: true });
      await Promise.all([serverLog.close(), setupLog.close()]);
    })();
    return stopping;
  };
  try {
    if (child.pid === undefined) {
      await exit.promise;
      throw new Error(`Temporal server (${options.server}) ${exit.description ?? 'could not be started'}`);
    }
    await fs.writeFile(pidFile, `${child.pid} ${process.pid}\n`);
    const setup = runSetup(
      'namespace',
      {
        ...baseEnv,
        TEMPORAL_ADDRESS: address,
        TEMPORAL_NAMESPACE: options.namespace,
        TEMPORAL_RETENTION,
        FLEETFLOW_SEARCH_ATTRIBUTES: searchAttributeList(options.searchAttributes),
      },
      setupLog,
      say,
    );
    const died = exit.promise.then(() => {
      throw new Error(
        `Temporal server ${exit.description} before it was ready\n--- ${serverLog.file} (tail) ---\n${serverLog.tail()}`,
      );
    });
    await Promise.race([setup, died]);
  } catch (err) {
    await stop();
    throw err;
  }
  return { address, ports, logFile: serverLog.file, stop };
}

/** `Name=Type Name=Type …`, as ops/temporal/setup.sh reads FLEETFLOW_SEARCH_ATTRIBUTES. */
export function searchAttributeList(attributes: Readonly<Record<string, string>>): string {
  return Object.entries(attributes)
    .map(([name, type]) => `${name}=${type}`)
    .join(' ');
}

async function runSetup(
  step: 'schema' | 'namespace',
  env: NodeJS.ProcessEnv,
  log: LogFile,
  say: (line: string) => void,
): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    const child = spawn('sh', [setupScript, step], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let pending = '';
    const onData = (chunk: Buffer) => {
      log.write(chunk);
      const text = pending + chunk.toString('utf8');
      const lines = text.split('\n');
      pending = lines.pop() ?? '';
      for (const line of lines) if (line.startsWith('setup: ')) say(line.slice('setup: '.length));
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('error', reject);
    child.once('exit', (code, signal) =>
      code === 0
        ? resolve()
        : reject(
            new Error(
              `ops/temporal/setup.sh ${step} failed (${signal ?? `exit ${code}`})\n--- ${log.file} (tail) ---\n${log.tail()}`,
            ),
          ),
    );
  });
}

/** Options of the Temporal UI server. */
export interface TemporalUiOptions {
  binary: string;
  /** The frontend, host:port. */
  temporalAddress: string;
  port: number;
  namespace: string;
  logFile: string;
}

/**
 * Starts the Temporal UI server on 127.0.0.1:port, configured by a file written next to its log
 * (`<dir>/ui/cluster.yaml`: the frontend, the port, the namespace); resolves once it listens.
 */
export async function startTemporalUi(
  options: TemporalUiOptions,
): Promise<{ url: string; stop(): Promise<void> }> {
  if (await isPortOpen(HOST, options.port, 500))
    throw new Error(`Cannot start the Temporal UI: port ${options.port} is already in use`);
  const log = await openLog(options.logFile);
  const origin = `http://localhost:${options.port}`;
  const root = path.dirname(options.logFile);
  await fs.mkdir(path.join(root, 'ui'), { recursive: true });
  await fs.writeFile(path.join(root, 'ui', 'cluster.yaml'), uiConfig(options, origin));
  const env = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? root };
  const args = ['--root', root, '--config', 'ui', '--env', 'cluster', 'start'];
  const child = spawn(options.binary, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout.on('data', (chunk: Buffer) => log.write(chunk));
  child.stderr.on('data', (chunk: Buffer) => log.write(chunk));
  const exit = trackExit(child);
  const killOnExit = (): void => void child.kill('SIGTERM');
  process.on('exit', killOnExit);
  let stopping: Promise<void> | undefined;
  const stop = (): Promise<void> => {
    stopping ??= (async () => {
      await terminateChild(child, exit.promise, STOP_GRACE_MS);
      process.off('exit', killOnExit);
      await log.close();
    })();
    return stopping;
  };
  const deadline = Date.now() + 30_000;
  while (!(await isPortOpen(HOST, options.port, 250))) {
    if (exit.description || Date.now() > deadline) {
      await stop();
      throw new Error(
        `Temporal UI server ${exit.description ?? 'did not listen within 30 s'}\n--- ${log.file} (tail) ---\n${log.tail()}`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return { url: origin, stop };
}

/** The UI server's configuration (github.com/temporalio/ui-server/v2 `server/config`), as YAML. */
function uiConfig(options: TemporalUiOptions, origin: string): string {
  return [
    '# Written by fleetflow (platform/temporal-cluster.ts) at each start of the Temporal UI server.',
    `temporalGrpcAddress: ${JSON.stringify(options.temporalAddress)}`,
    `host: ${JSON.stringify(HOST)}`,
    `port: ${options.port}`,
    'enableUi: true',
    `defaultNamespace: ${JSON.stringify(options.namespace)}`,
    'distribution: server',
    'disableNewsFetch: true',
    'notifyOnNewVersion: false',
    'showTemporalSystemNamespace: false',
    'cors:',
    '  cookieInsecure: true',
    '  unsafeAllowAllOrigins: false',
    `  allowOrigins: [${JSON.stringify(origin)}]`,
    '',
  ].join('\n');
}

/**
 * A server left by a killed earlier run keeps the ports and its shard ownership; stop it when its owner is
 * gone, refuse when another live process still owns it.
 */
async function stopOrphanedServer(pidFile: string, serverBinary: string): Promise<void> {
  const text = await fs.readFile(pidFile, 'utf8').catch(() => undefined);
  if (!text) return;
  const [serverPid, ownerPid] = text
    .trim()
    .split(/\s+/)
    .map((part) => Number.parseInt(part, 10));
  const alive =
    serverPid !== undefined &&
    serverPid > 0 &&
    isProcessAlive(serverPid) &&
    (readCommandLine(serverPid) ?? '').includes(path.basename(serverBinary));
  if (alive) {
    if (ownerPid !== undefined && isProcessAlive(ownerPid))
      throw new Error(
        `A Temporal server for ${path.dirname(pidFile)} is already running (PID ${serverPid}, started by PID ${ownerPid})`,
      );
    process.stderr.write(`Stopping orphaned Temporal server (PID ${serverPid}) left by an earlier run\n`);
    await terminatePid(serverPid, 'SIGTERM', STOP_GRACE_MS);
  }
  await fs.rm(pidFile, { force: true });
}

interface LogFile {
  file: string;
  write(chunk: Buffer): void;
  tail(): string;
  close(): Promise<void>;
}

/** Appends to `file`, keeps the last lines for error messages, echoes when DEBUG_EMBEDDED=1. */
async function openLog(file: string, maxLines = 40): Promise<LogFile> {
  await fs.mkdir(path.dirname(file), { recursive: true });
  const stream: WriteStream = createWriteStream(file, { flags: 'a' });
  const echo = process.env.DEBUG_EMBEDDED === '1';
  const lines: string[] = [];
  let closing: Promise<void> | undefined;
  return {
    file,
    write(chunk: Buffer): void {
      if (!closing) stream.write(chunk);
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
    close: () => (closing ??= new Promise<void>((resolve) => stream.end(() => resolve()))),
  };
}
