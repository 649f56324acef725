// Go programs built from the Go module proxy into the cache (`GOTOOLCHAIN=local go install`), the pattern
// versitygw and stripe-mock follow, for the bigger builds of the cluster topology (the Temporal server and
// its schema tool, the Temporal UI server): several binaries of one module version built by one
// `go install`, at the lowest CPU priority (`nice -n 19`) so a long build leaves the machine to others.
import { spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import path from 'node:path';
import { provisionOnce, removeIfStale } from './provisioning.js';
import { isExecutableFile } from './child-processes.js';

/** One executable of a Go module: its package, the name `go install` gives it, its name in the cache. */
export interface GoBinary {
  /** Import path of the main package, e.g. `go.temporal.io/server/cmd/server`. */
  package: string;
  /** The file `go install` writes (the last element of the package path). */
  builtAs: string;
  /** The file name in the cache (and the key of the result). */
  fileName: string;
  /** Environment variable naming an existing executable; when every binary's is set, nothing is built. */
  envOverride: string;
}

/** Several binaries of one module at one version, built together. */
export interface GoBuildSpec {
  /** What the messages call it, e.g. "the Temporal server". */
  title: string;
  /** Directory under the cache dir, e.g. `temporal-server`; the version is a directory below it. */
  cacheName: string;
  /** Module version with its `v`, e.g. `v1.32.0`. */
  version: string;
  binaries: readonly GoBinary[];
  /** Build tags (`-tags a,b`). */
  tags?: readonly string[];
  /** CGO_ENABLED=0 (static binaries, no C toolchain needed). */
  disableCgo?: boolean;
}

/** <cacheDir>/<cacheName>/<version>, holding the spec's binaries. */
export function goBuildCacheDir(spec: GoBuildSpec, cacheDir: string): string {
  return path.join(path.resolve(cacheDir), spec.cacheName, spec.version);
}

/**
 * The spec's binaries (fileName → absolute path) from the cache, built there first when one is missing.
 * Each binary's env override wins. Safe under concurrent callers, in this process (shared promise) and
 * across processes (each builds into its own work directory; atomic renames publish the binaries, the
 * first one named last, so its presence means the set is complete).
 */
export async function ensureGoBinaries(
  spec: GoBuildSpec,
  cacheDir: string,
  env: NodeJS.ProcessEnv = process.env,
): Promise<Record<string, string>> {
  const result: Record<string, string> = {};
  const missing: GoBinary[] = [];
  for (const binary of spec.binaries) {
    const override = env[binary.envOverride];
    if (!override) {
      missing.push(binary);
      continue;
    }
    const resolved = path.resolve(override);
    if (!(await isExecutableFile(resolved)))
      throw new Error(`${binary.envOverride}=${override} does not point to an executable file`);
    result[binary.fileName] = resolved;
  }
  if (missing.length === 0) return result;
  const dir = goBuildCacheDir(spec, cacheDir);
  await provisionOnce(dir, async () => {
    await ensureCached(spec, dir, env);
    return dir;
  });
  for (const binary of missing) result[binary.fileName] = path.join(dir, binary.fileName);
  return result;
}

async function ensureCached(spec: GoBuildSpec, dir: string, env: NodeJS.ProcessEnv): Promise<void> {
  const present = await Promise.all(
    spec.binaries.map((binary) => isExecutableFile(path.join(dir, binary.fileName))),
  );
  if (present.every(Boolean)) return;
  await fs.mkdir(dir, { recursive: true });
  for (const entry of await fs.readdir(dir, { withFileTypes: true }))
    if (entry.isDirectory() && entry.name.startsWith('.provision-'))
      await removeIfStale(path.join(dir, entry.name));
  // The work dir sits next to the targets so the final renames stay on one file system (atomic).
  const work = await fs.mkdtemp(path.join(dir, '.provision-'));
  try {
    const goEnv: NodeJS.ProcessEnv = { ...env, GOTOOLCHAIN: 'local', GOBIN: work };
    if (spec.disableCgo) goEnv.CGO_ENABLED = '0';
    const args = ['install'];
    if (spec.tags?.length) args.push('-tags', spec.tags.join(','));
    args.push(...spec.binaries.map((binary) => `${binary.package}@${spec.version}`));
    await runGoNiced(spec, args, goEnv);
    // The first binary last: ensureCached and isProvisioned test it (with the others) for completeness.
    for (const binary of [...spec.binaries].reverse())
      await fs.rename(path.join(work, binary.builtAs), path.join(dir, binary.fileName));
  } finally {
    await fs.rm(work, { recursive: true, force: true });
  }
}

/** True when every binary of the spec is in the cache or named by its override (no build would run). */
export async function isProvisioned(
  spec: GoBuildSpec,
  cacheDir: string,
  env: NodeJS.ProcessEnv = process.env,
): Promise<boolean> {
  const dir = goBuildCacheDir(spec, cacheDir);
  const present = await Promise.all(
    spec.binaries.map(
      (binary) => Boolean(env[binary.envOverride]) || isExecutableFile(path.join(dir, binary.fileName)),
    ),
  );
  return present.every(Boolean);
}

/** `nice -n 19 go …` (plain `go` where there is no `nice`), its output kept for the error message. */
async function runGoNiced(spec: GoBuildSpec, args: string[], env: NodeJS.ProcessEnv): Promise<void> {
  const go = env.GO || 'go';
  const niceAvailable = process.platform !== 'win32' && (await isExecutableFile('/usr/bin/nice'));
  const [command, commandArgs] = niceAvailable ? ['/usr/bin/nice', ['-n', '19', go, ...args]] : [go, args];
  const what = `build ${spec.title} (go ${args.join(' ')}) from the Go module proxy`;
  await new Promise<void>((resolve, reject) => {
    const child = spawn(command, commandArgs, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    const output: string[] = [];
    const keep = (chunk: Buffer) => {
      output.push(chunk.toString('utf8'));
      if (output.length > 400) output.splice(0, output.length - 400);
    };
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    const timer = setTimeout(() => child.kill('SIGTERM'), 40 * 60_000);
    child.once('error', (err: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      reject(
        err.code === 'ENOENT'
          ? new Error(
              `Cannot ${what}: "${go}" was not found. Install Go (https://go.dev/doc/install) and put it on ` +
                `PATH, set GO, or point ${spec.binaries.map((binary) => binary.envOverride).join(', ')} at ` +
                `existing binaries.`,
            )
          : err,
      );
    });
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      if (code === 0) return resolve();
      const detail = output.join('').trim().split('\n').slice(-20).join('\n');
      reject(new Error(`Failed to ${what}: exit ${signal ?? code}${detail ? `\n${detail}` : ''}`));
    });
  });
}
