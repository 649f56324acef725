import { execFile } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { provisionOnce, removeIfStale } from './provisioning.js';
import type { FleetflowConfig } from './config.js';
import { isExecutableFile } from './child-processes.js';

const execFileAsync = promisify(execFile);

/** The schemathesis release the contract fuzz suite and its config file are written for. */
export const SCHEMATHESIS_VERSION = '4.32.5';

/**
 * Versions of schemathesis's dependencies, installed as pip constraints so a new release of one of
 * them (Hypothesis above all, which drives generation) cannot change a run behind our back. Taken
 * from `pip freeze` of a working install; update together with SCHEMATHESIS_VERSION.
 */
export const SCHEMATHESIS_CONSTRAINTS = [
  'anyio==4.16.0',
  'certifi==2026.10.18',
  'charset-normalizer==3.5.2',
  'click==8.5.1',
  'graphql-core==3.3.2',
  'harfile==0.6.0',
  'hypothesis==6.170.15',
  'hypothesis-graphql==0.13.5',
  'idna==3.20',
  'iniconfig==2.3.1',
  'jsonschema_rs==0.60.3',
  'markdown-it-py==4.3.0',
  'MarkupSafe==3.0.4',
  'mdurl==0.1.2',
  'packaging==26.3',
  'pluggy==1.7.0',
  'Pygments==2.21.0',
  'pyrate-limiter==4.5.1',
  'pytest==9.2.0',
  'PyYAML==6.0.3',
  'requests==2.34.2',
  'rich==15.0.0',
  'sortedcontainers==2.4.0',
  'typing_extensions==4.16.0',
  'urllib3==2.8.0',
  'Werkzeug==3.1.9',
];

/** Environment variable naming an existing `st`/`schemathesis` executable; when set, nothing is installed. */
export const SCHEMATHESIS_PATH_ENV = 'SCHEMATHESIS_PATH';

/**
 * Absolute path of the schemathesis CLI (`st`): `SCHEMATHESIS_PATH` when set, else a Python venv in
 * the cache (<cacheDir>/schemathesis/), created once with pip from PyPI and reused afterwards.
 *
 * Safe under concurrent callers: in this process they share one promise; across processes each
 * builder installs into its own directory beside the entry and publishes it by creating the entry as
 * a symlink to it, atomically, once complete (a venv cannot be renamed into place: its scripts hold
 * absolute paths). The first complete venv wins, later builders delete theirs, and readers only ever
 * see a complete venv.
 */
export function ensureSchemathesis(
  config: Pick<FleetflowConfig, 'cacheDir'>,
  env: NodeJS.ProcessEnv = process.env,
): Promise<string> {
  const override = env[SCHEMATHESIS_PATH_ENV];
  if (override) return checkOverride(override, env);
  const entry = schemathesisCacheEntry(config.cacheDir);
  return provisionOnce(entry, () => ensureCached(entry, env));
}

/**
 * The cache entry (a symlink to a venv) for the pinned version and constraints, e.g.
 * <cacheDir>/schemathesis/schemathesis-4.32.5-1a2b3c4d; changing a pin yields a new entry.
 */
export function schemathesisCacheEntry(cacheDir: string): string {
  const pins = createHash('sha256')
    .update([`schemathesis==${SCHEMATHESIS_VERSION}`, ...SCHEMATHESIS_CONSTRAINTS].join('\n'))
    .digest('hex')
    .slice(0, 8);
  return path.join(path.resolve(cacheDir), 'schemathesis', `schemathesis-${SCHEMATHESIS_VERSION}-${pins}`);
}

/** The CLI inside a venv. */
const cliIn = (venv: string) => path.join(venv, 'bin', 'st');

async function checkOverride(override: string, env: NodeJS.ProcessEnv): Promise<string> {
  const resolved = path.resolve(override);
  if (!(await isExecutableFile(resolved))) {
    throw new Error(
      `${SCHEMATHESIS_PATH_ENV}=${override} does not point to an executable file ` +
        `(expected the "st" or "schemathesis" command of schemathesis ${SCHEMATHESIS_VERSION.split('.')[0]}.x)`,
    );
  }
  const version = await cliVersion(resolved, env).catch((err: unknown) => {
    throw new Error(
      `${SCHEMATHESIS_PATH_ENV}=${override} is not a usable schemathesis command (${errorText(err)}); ` +
        `point it at the "st" or "schemathesis" command, or unset it to provision schemathesis ${SCHEMATHESIS_VERSION}`,
    );
  });
  const major = SCHEMATHESIS_VERSION.split('.')[0];
  if (!version.startsWith(`${major}.`)) {
    throw new Error(
      `${SCHEMATHESIS_PATH_ENV}=${override} is schemathesis ${version}; the fuzz suite's configuration ` +
        `needs ${major}.x (tested with ${SCHEMATHESIS_VERSION})`,
    );
  }
  return resolved;
}

async function ensureCached(entry: string, env: NodeJS.ProcessEnv): Promise<string> {
  if (await isUsableVenv(entry)) return cliIn(entry);
  const root = path.dirname(entry);
  await fs.mkdir(root, { recursive: true });
  await removeStaleBuilds(root);
  // Each builder gets its own directory beside the entry; the venv stays where it was created.
  const build = await fs.mkdtemp(path.join(root, `${path.basename(entry)}.venv-`));
  await fs.chmod(build, 0o755);
  let published = false;
  try {
    await createVenv(env.PYTHON || 'python3', build, env);
    try {
      // Atomic, and fails when the entry exists: the first complete venv wins.
      await fs.symlink(path.basename(build), entry);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw publishError(entry, err);
      // Another process finished first: use its venv and drop ours.
      if (await isUsableVenv(entry)) return cliIn(entry);
      // The entry is broken (its venv or the base Python it links to is gone): replace it atomically.
      const link = path.join(root, `.link-${randomBytes(6).toString('hex')}`);
      await fs.symlink(path.basename(build), link);
      await fs.rename(link, entry).catch(async (renameError: unknown) => {
        await fs.rm(link, { force: true });
        throw publishError(entry, renameError);
      });
    }
    published = true;
    return cliIn(entry);
  } finally {
    if (!published) await fs.rm(build, { recursive: true, force: true });
  }
}

async function createVenv(python: string, venv: string, env: NodeJS.ProcessEnv): Promise<void> {
  await run(
    python,
    ['-m', 'venv', venv],
    'create a Python virtual environment for schemathesis',
    `Install Python 3 with the venv module (Debian/Ubuntu: python3-venv), set PYTHON, ` +
      `or set ${SCHEMATHESIS_PATH_ENV} to an existing "st" executable.`,
    env,
  );
  const constraints = path.join(venv, 'constraints.txt');
  await fs.writeFile(constraints, `${SCHEMATHESIS_CONSTRAINTS.join('\n')}\n`);
  const requirement = `schemathesis==${SCHEMATHESIS_VERSION}`;
  await run(
    path.join(venv, 'bin', 'python'),
    [
      '-m',
      'pip',
      'install',
      '--disable-pip-version-check',
      '--no-input',
      '--quiet',
      '--only-binary=:all:',
      '--constraint',
      constraints,
      requirement,
    ],
    `install ${requirement} from PyPI`,
    `Check access to PyPI (pip's index and proxy settings), or set ${SCHEMATHESIS_PATH_ENV} to an existing "st" executable.`,
    env,
  );
  const version = await cliVersion(cliIn(venv), env);
  if (version !== SCHEMATHESIS_VERSION) {
    throw new Error(`Installed schemathesis reports version ${version}, expected ${SCHEMATHESIS_VERSION}`);
  }
}

/** The version `st --version` prints ("st, version 4.32.5"). */
async function cliVersion(cli: string, env: NodeJS.ProcessEnv): Promise<string> {
  const { stdout } = await execFileAsync(cli, ['--version'], { env, timeout: 60_000 });
  const match = stdout.match(/^(?:st|schemathesis), version (\S+)/m);
  if (!match)
    throw new Error(`"${cli} --version" does not identify schemathesis: ${stdout.trim().split('\n')[0]}`);
  return match[1]!;
}

async function run(
  command: string,
  args: string[],
  what: string,
  hint: string,
  env: NodeJS.ProcessEnv,
): Promise<void> {
  try {
    await execFileAsync(command, args, { env, maxBuffer: 16 * 1024 * 1024, timeout: 15 * 60_000 });
  } catch (err) {
    const e = err as NodeJS.ErrnoException & { stderr?: string; stdout?: string };
    if (e.code === 'ENOENT') throw new Error(`Cannot ${what}: "${command}" was not found. ${hint}`);
    const output = `${e.stderr ?? ''}\n${e.stdout ?? ''}`.trim();
    const detail = output.split('\n').slice(-15).join('\n');
    throw new Error(`Failed to ${what}: ${e.message.split('\n')[0]}${detail ? `\n${detail}` : ''}\n${hint}`);
  }
}

/** A published venv whose CLI exists and whose interpreter (a link to the base Python) still resolves. */
async function isUsableVenv(venv: string): Promise<boolean> {
  return (await isExecutableFile(cliIn(venv))) && (await isExecutableFile(path.join(venv, 'bin', 'python')));
}

/** Removes build directories and links no entry points to any more, once they are old enough. */
async function removeStaleBuilds(root: string): Promise<void> {
  const entries = await fs.readdir(root, { withFileTypes: true });
  const inUse = new Set<string>();
  for (const entry of entries) {
    if (!entry.isSymbolicLink()) continue;
    const target = await fs.readlink(path.join(root, entry.name)).catch(() => undefined);
    if (target) inUse.add(path.basename(target));
  }
  for (const entry of entries) {
    const stale = entry.name.includes('.venv-') || entry.name.startsWith('.link-');
    if (stale && !inUse.has(entry.name)) await removeIfStale(path.join(root, entry.name));
  }
}

function publishError(entry: string, err: unknown): Error {
  return new Error(
    `Cannot publish schemathesis at ${entry}: ${errorText(err)}. Remove that path and run again.`,
  );
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message.split('\n')[0]! : String(err);
}
