import { NativeConnection, Worker, type WorkerOptions } from '@temporalio/worker';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { repoRoot } from '../platform/config.js';
import type { WorkerObservability } from './observability.js';

/**
 * The workflow bundle's entry: imports the given modules for their effect (the domains' error tables, so
 * the workflow sandbox knows every code) and re-exports the given workflow modules (every domain's).
 * Generated (under node_modules/.cache so the bundler resolves packages from the project), so adding a
 * domain never edits a second list.
 */
export function workflowsEntryPath(
  workflowModules: readonly URL[],
  preloadModules: readonly URL[] = [],
): string {
  const source = [
    ...preloadModules.map((url) => `import ${JSON.stringify(fileURLToPath(url))};`),
    ...workflowModules.map((url) => `export * from ${JSON.stringify(fileURLToPath(url))};`),
  ].join('\n');
  const directory = path.join(repoRoot, 'node_modules', '.cache', 'fleetflow');
  const entry = path.join(directory, 'workflows-entry.js');
  if (fs.existsSync(entry) && fs.readFileSync(entry, 'utf8') === `${source}\n`) return entry;
  fs.mkdirSync(directory, { recursive: true });
  const temporary = `${entry}.${process.pid}.tmp`;
  fs.writeFileSync(temporary, `${source}\n`);
  fs.renameSync(temporary, entry); // atomic: concurrent workers never read half a file
  return entry;
}

/** Any activity: `never[]` parameters accept every function, whatever it takes. */
export type AnyActivity = (...args: never[]) => Promise<unknown>;

export interface FleetflowWorkerDeps {
  connection: NativeConnection;
  namespace: string;
  taskQueue: string;
  /** Every activity the task queue serves, by name. */
  activities: Record<string, AnyActivity>;
  /** The workflow modules to bundle when no prebuilt bundle is given. */
  workflowModules: readonly URL[];
  /** Modules the bundle imports for their effect first (the domains' error tables). */
  preloadModules?: readonly URL[];
  /** Prebuilt bundle (tests build it once); otherwise bundled from the workflow modules at start. */
  workflowBundle?: WorkerOptions['workflowBundle'];
  /** Metrics and logs of activities and workflows (workers/observability.ts). */
  observability?: WorkerObservability;
}

/** The worker that runs fleetflow's workflows and activities on one task queue. */
export async function createFleetflowWorker(deps: FleetflowWorkerDeps): Promise<Worker> {
  return Worker.create({
    connection: deps.connection,
    namespace: deps.namespace,
    taskQueue: deps.taskQueue,
    ...(deps.workflowBundle
      ? { workflowBundle: deps.workflowBundle }
      : { workflowsPath: workflowsEntryPath(deps.workflowModules, deps.preloadModules) }),
    activities: deps.activities,
    maxConcurrentActivityTaskExecutions: 100,
    ...(deps.observability
      ? {
          // A prebuilt bundle already contains the workflow interceptor module (see workflowBundleOptions).
          interceptors: deps.workflowBundle
            ? { activity: deps.observability.interceptors.activity }
            : deps.observability.interceptors,
          sinks: deps.observability.sinks,
        }
      : {}),
  });
}
