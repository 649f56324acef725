// The worker process (composition/worker-main.ts) as the recovery suites run it: a child they can kill
// mid-activity and replace, to show that work survives a crash exactly once.
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

/**
 * Starts `composition/worker-main.ts` with the test's environment plus `env` (its task queue, tenants,
 * broker…), adds it to `started` at once (so an afterAll kills it even when it never came up) and resolves
 * once it polls its task queue.
 */
export async function startWorkerProcess(
  env: Record<string, string>,
  started: ChildProcess[],
): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'composition/worker-main.ts'], {
    cwd: root,
    env: { ...process.env, WORKER_METRICS_PORT: '0', LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  started.push(child);
  let output = '';
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`worker did not start:\n${output}`)), 90_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('worker polling its task queue')) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`worker exited with ${code}:\n${output}`));
    });
  });
  child.removeAllListeners('exit');
  return child;
}

/** Kills a worker process as a crash would (SIGKILL) and resolves once it is gone. */
export async function killWorkerProcess(worker: ChildProcess): Promise<void> {
  const exited = new Promise((resolve) => worker.once('exit', resolve));
  worker.kill('SIGKILL');
  await exited;
}
