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
export function workflowsEntryPath(workflowModules: readonly URL[], preloadModules: readonly URL[]): string {
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
  /**
   * The workflow bundle (composition/worker.ts builds it: every domain's workflows and error tables, the
   * workflow interceptor module); always prebuilt, so no worker runs a bundle without the catalogue.
   */
  workflowBundle: NonNullable<WorkerOptions['workflowBundle']>;
  /** Metrics and logs of activities and workflows (workers/observability.ts). */
  observability?: WorkerObservability;
}

/** The worker that runs fleetflow's workflows and activities on one task queue. */
export async function createFleetflowWorker(deps: FleetflowWorkerDeps): Promise<Worker> {
  return Worker.create({
    connection: deps.connection,
    namespace: deps.namespace,
    taskQueue: deps.taskQueue,
    workflowBundle: deps.workflowBundle,
    activities: deps.activities,
    maxConcurrentActivityTaskExecutions: 100,
    ...(deps.observability
      ? {
          // The bundle already contains the workflow interceptor module (Worker.create ignores
          // interceptors.workflowModules when given a bundle).
          interceptors: { activity: deps.observability.interceptors.activity },
          sinks: deps.observability.sinks,
        }
      : {}),
  });
}
