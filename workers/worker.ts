import { NativeConnection, Worker, type WorkerOptions } from '@temporalio/worker';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { domains, workflowModules } from '../platform/domains/index.js';
import type { ActivityDeps, DomainModule } from '../platform/domains/domain.js';
import { repoRoot } from '../platform/config.js';
import type { WorkerObservability } from './observability.js';

/**
 * The workflow bundle's entry: re-exports the workflow module of every domain. Generated from the domain
 * list (under node_modules/.cache so the bundler resolves packages from the project), so adding a domain
 * never edits a second list.
 */
export function workflowsEntryPath(): string {
  const source = workflowModules()
    .map((url) => `export * from ${JSON.stringify(fileURLToPath(url))};`)
    .join('\n');
  const directory = path.join(repoRoot, 'node_modules', '.cache', 'fleetflow');
  const entry = path.join(directory, 'workflows-entry.js');
  if (fs.existsSync(entry) && fs.readFileSync(entry, 'utf8') === `${source}\n`) return entry;
  fs.mkdirSync(directory, { recursive: true });
  const temporary = `${entry}.${process.pid}.tmp`;
  fs.writeFileSync(temporary, `${source}\n`);
  fs.renameSync(temporary, entry); // atomic: concurrent workers never read half a file
  return entry;
}

export interface FleetflowWorkerDeps extends ActivityDeps {
  connection: NativeConnection;
  namespace: string;
  taskQueue: string;
  /** Prebuilt bundle (tests build it once); otherwise bundled from the domains' workflow modules at start. */
  workflowBundle?: WorkerOptions['workflowBundle'];
  /** Metrics and logs of activities and workflows (workers/observability.ts). */
  observability?: WorkerObservability;
}

/** Every activity the fleetflow task queue serves, from every domain; two with one name fail at start. */
export function createActivities(deps: ActivityDeps, from: readonly DomainModule[] = domains) {
  const activities: Record<string, (...args: never[]) => Promise<unknown>> = {};
  const owner = new Map<string, string>();
  for (const domain of from) {
    for (const [name, activity] of Object.entries(domain.activities?.(deps) ?? {})) {
      if (owner.has(name))
        throw new Error(
          `activity ${name} is defined by both the ${owner.get(name)} and the ${domain.name} domain`,
        );
      owner.set(name, domain.name);
      activities[name] = activity;
    }
  }
  return activities;
}

/** The worker that runs fleetflow's workflows and activities on one task queue. */
export async function createFleetflowWorker(deps: FleetflowWorkerDeps): Promise<Worker> {
  return Worker.create({
    connection: deps.connection,
    namespace: deps.namespace,
    taskQueue: deps.taskQueue,
    ...(deps.workflowBundle
      ? { workflowBundle: deps.workflowBundle }
      : { workflowsPath: workflowsEntryPath() }),
    activities: createActivities(deps),
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
