// Versity S3 Gateway (versitygw, Apache-2.0), the embedded S3-compatible object store of `npm start` and
// the tests: a Go module, provisioned once into the cache from the Go module proxy (`go install`, like
// stripe-mock), never at run time by the application, and started over a data directory (its POSIX
// backend: buckets are directories, objects files, metadata extended attributes or a sidecar directory).
import { execFile, spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';
import readline from 'node:readline';
import { promisify } from 'node:util';
import type { FleetflowConfig } from './config.js';
import { freePort, isPortOpen } from './net.js';
import { provisionOnce, removeIfStale } from './provisioning.js';
import { isExecutableFile, terminateChild } from './child-processes.js';

const execFileAsync = promisify(execFile);

/** The versitygw release fleetflow runs (module path of its command). */
export const VERSITYGW_MODULE = 'github.com/versity/versitygw/cmd/versitygw';
export const VERSITYGW_VERSION = '1.8.0';

/** Environment variable naming an existing versitygw executable; when set, nothing is installed. */
export const VERSITYGW_PATH_ENV = 'VERSITYGW_PATH';

/** <cacheDir>/versitygw/v1.8.0, holding `versitygw`. */
export function versitygwCacheDir(cacheDir: string): string {
  return path.join(path.resolve(cacheDir), 'versitygw', `v${VERSITYGW_VERSION}`);
}

/**
 * The versitygw binary from the cache, installed there first when missing: `GOTOOLCHAIN=local go install
 * github.com/versity/versitygw/cmd/versitygw@v1.8.0` (the Go module proxy). VERSITYGW_PATH overrides it.
 * Safe under concurrent callers, in this process (shared promise) and across processes (each installs
 * into its own directory; an atomic rename publishes the binary).
 */
export async function ensureVersitygw(
  config: Pick<FleetflowConfig, 'cacheDir'>,
  env: NodeJS.ProcessEnv = process.env,
): Promise<string> {
  const override = env[VERSITYGW_PATH_ENV];
  if (override) {
    const resolved = path.resolve(override);
    if (!(await isExecutableFile(resolved)))
      throw new Error(`${VERSITYGW_PATH_ENV}=${override} does not point to an executable file`);
    return resolved;
  }
  const dir = versitygwCacheDir(config.cacheDir);
  await provisionOnce(dir, async () => {
    await ensureCached(dir, env);
    return dir;
  });
  return path.join(dir, 'versitygw');
}

async function ensureCached(dir: string, env: NodeJS.ProcessEnv): Promise<void> {
  const binary = path.join(dir, 'versitygw');
  if (await isExecutableFile(binary)) return;
  await fs.mkdir(dir, { recursive: true });
  for (const entry of await fs.readdir(dir, { withFileTypes: true }))
    if (entry.isDirectory() && entry.name.startsWith('.provision-'))
      await removeIfStale(path.join(dir, entry.name));
  // The work dir sits next to the target so the final rename stays on one file system (atomic).
  const work = await fs.mkdtemp(path.join(dir, '.provision-'));
  try {
    const goEnv = { ...env, GOTOOLCHAIN: 'local', GOBIN: work };
    const module = `${VERSITYGW_MODULE}@v${VERSITYGW_VERSION}`;
    await runGo(['install', module], goEnv, `install ${module} from the Go module proxy`);
    await fs.rename(path.join(work, 'versitygw'), binary);
  } finally {
    await fs.rm(work, { recursive: true, force: true });
  }
}

async function runGo(args: string[], env: NodeJS.ProcessEnv, what: string): Promise<{ stdout: string }> {
  const go = env.GO || 'go';
  try {
    return await execFileAsync(go, args, { env, maxBuffer: 64 * 1024 * 1024, timeout: 15 * 60_000 });
  } catch (err) {
    const e = err as NodeJS.ErrnoException & { stderr?: string };
    if (e.code === 'ENOENT') {
      throw new Error(
        `Cannot ${what}: "${go}" was not found. versitygw is built with the Go toolchain: install Go ` +
          `(https://go.dev/doc/install) and put it on PATH, set GO, or set ${VERSITYGW_PATH_ENV} to a versitygw binary ` +
          `(or point S3_ENDPOINT at an S3-compatible store).`,
      );
    }
    const detail = (e.stderr ?? '').trim().split('\n').slice(-15).join('\n');
    throw new Error(`Failed to ${what}: ${e.message.split('\n')[0]}${detail ? `\n${detail}` : ''}`);
  }
}

/** A running versitygw. */
export interface VersitygwServer {
  /** `http://127.0.0.1:<port>`: the S3_ENDPOINT to use (path-style addressing). */
  endpoint: string;
  accessKeyId: string;
  secretAccessKey: string;
  stop(): Promise<void>;
}

export interface VersitygwOptions {
  /** The gateway's directory: buckets in `buckets/` (a directory each), object metadata in `metadata/`. */
  dataDir: string;
  accessKeyId: string;
  secretAccessKey: string;
  /** 0 (default): a free port the system names. */
  port?: number;
  host?: string;
  startTimeoutMs?: number;
}

/**
 * The gateway's directories under `dataDir`: `buckets/` (each bucket a directory, each object a file) and
 * `metadata/`, a sidecar directory for object metadata (Content-Type, user metadata) instead of extended
 * attributes, so it runs on any file system (tmpfs, overlay and network mounts without user xattrs) and
 * the response headers of pre-signed GETs work everywhere.
 */
async function layout(dataDir: string): Promise<{ root: string; sidecar: string }> {
  const root = path.join(dataDir, 'buckets');
  const sidecar = path.join(dataDir, 'metadata');
  await Promise.all([fs.mkdir(root, { recursive: true }), fs.mkdir(sidecar, { recursive: true })]);
  return { root, sidecar };
}

/**
 * Starts versitygw on host:port (a free one unless given) over `dataDir`, in single-account mode with the
 * given root credentials; resolves once it accepts connections. A port taken between the probe and the
 * start is retried with another.
 */
export async function startVersitygw(binary: string, options: VersitygwOptions): Promise<VersitygwServer> {
  const host = options.host ?? '127.0.0.1';
  const dirs = await layout(options.dataDir);
  let lastError: unknown;
  for (let attempt = 0; attempt < (options.port ? 1 : 3); attempt++) {
    const port = options.port || (await freePort(host));
    try {
      return await startOnce(binary, options, host, port, dirs);
    } catch (err) {
      lastError = err;
    }
  }
  throw lastError;
}

async function startOnce(
  binary: string,
  options: VersitygwOptions,
  host: string,
  port: number,
  dirs: { root: string; sidecar: string },
): Promise<VersitygwServer> {
  const args = ['--port', `${host}:${port}`, 'posix', '--sidecar', dirs.sidecar, dirs.root];
  // Credentials go through the environment, not the command line (visible to every user in `ps`).
  const env = {
    ...process.env,
    ROOT_ACCESS_KEY_ID: options.accessKeyId,
    ROOT_SECRET_ACCESS_KEY: options.secretAccessKey,
  };
  const child = spawn(binary, args, { stdio: ['ignore', 'pipe', 'pipe'], env });
  const killOnExit = (): void => void child.kill('SIGTERM');
  process.on('exit', killOnExit);
  const exited = new Promise<void>((resolve) => {
    child.once('exit', () => resolve());
    child.once('error', () => resolve());
  });
  let stopping: Promise<void> | undefined;
  const stop = (): Promise<void> => {
    stopping ??= (async () => {
      await terminateChild(child, exited, 5_000);
      process.off('exit', killOnExit);
    })();
    return stopping;
  };
  const output: string[] = [];
  const collect = (line: string) => void (output.length < 200 && output.push(line));
  readline.createInterface({ input: child.stdout! }).on('line', collect);
  readline.createInterface({ input: child.stderr! }).on('line', collect);
  let failure: Error | undefined;
  child.once(
    'error',
    (err) => (failure = new Error(`versitygw (${binary}) could not start: ${err.message}`)),
  );
  child.once('exit', (code, signal) => {
    failure ??= new Error(`versitygw exited (${signal ?? code}) before listening:\n${output.join('\n')}`);
  });
  const timeoutMs = options.startTimeoutMs ?? 15_000;
  const deadline = Date.now() + timeoutMs;
  try {
    while (!(await isPortOpen(host, port, 250))) {
      if (failure) throw failure;
      if (Date.now() > deadline)
        throw new Error(`versitygw did not listen within ${timeoutMs} ms:\n${output.join('\n')}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    if (failure) throw failure;
    return {
      endpoint: `http://${host}:${port}`,
      accessKeyId: options.accessKeyId,
      secretAccessKey: options.secretAccessKey,
      stop,
    };
  } catch (err) {
    await stop();
    throw err;
  }
}
