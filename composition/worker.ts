// The worker of every domain: their activities on one task queue and their workflows in one bundle.
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { bundleWorkflowCode, DefaultLogger, type Worker, type WorkflowBundle } from '@temporalio/worker';
import type { ActivityDeps, DomainModule } from './domains/domain.js';
import {
  createFleetflowWorker as createWorkerWith,
  workflowsEntryPath as workflowsEntryPathOf,
  type AnyActivity,
  type FleetflowWorkerDeps,
} from '../workers/worker.js';
import { workflowInterceptorModule } from '../workers/observability.js';
import { loadConfig } from '../platform/config.js';
import { domains, workflowModules } from './registry.js';
import { configuredObjectStore } from './object-store.js';

/** Every activity the fleetflow task queue serves, from every domain; two with one name fail at start. */
export function createActivities(deps: ActivityDeps, from: readonly DomainModule[] = domains) {
  const activities: Record<string, AnyActivity> = {};
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

/** Every domain's error table module (`domain/<domain>.errors.ts`), for the workflow sandbox's catalogue. */
export function errorTableModules(): URL[] {
  return domains.flatMap((domain) => {
    if (!domain.errors) return [];
    const url = new URL(`../domain/${domain.name}.errors.ts`, import.meta.url);
    if (!fs.existsSync(fileURLToPath(url)))
      throw new Error(`the ${domain.name} domain's error codes belong in domain/${domain.name}.errors.ts`);
    return [url];
  });
}

/** The workflow bundle's entry: every domain's error table and workflow module. */
export const workflowsEntryPath = (): string => workflowsEntryPathOf(workflowModules(), errorTableModules());

/**
 * The one way the workflow bundle is built (webpack, a few seconds): every domain's workflows, every
 * domain's error table (so a workflow can refuse with any catalogue code) and the observability
 * interceptor. The worker process, `npm run build:workflows` and the tests' global setup all call this.
 */
export async function buildWorkflowBundle(): Promise<WorkflowBundle> {
  const workflowsPath = workflowsEntryPath();
  const { code } = await bundleWorkflowCode({
    workflowsPath,
    // Evaluated once per worker thread and shared by every run, instead of once per run: the workflow
    // modules, the error tables and the domain code they import keep no state of a run at module scope
    // (docs/architecture.md, "Domains"; tests/workflow-bundle.test.ts checks the source).
    preloadModules: [workflowsPath],
    workflowInterceptorModules: [workflowInterceptorModule],
    logger: new DefaultLogger('ERROR'),
  });
  return { code };
}

/**
 * The bundle a worker runs: the file FLEETFLOW_WORKFLOW_BUNDLE names when set (written by
 * `npm run build:workflows` from buildWorkflowBundle, so replicas and restarts skip webpack), else built now.
 */
export async function loadWorkflowBundle(
  file: string | undefined = loadConfig().workflowBundleFile,
): Promise<WorkflowBundle> {
  return file ? { code: await fsp.readFile(file, 'utf8') } : buildWorkflowBundle();
}

/** The worker that runs every domain's workflows and activities on one task queue. */
export async function createFleetflowWorker(
  deps: Omit<ActivityDeps, 'objectStore'> &
    Partial<Pick<ActivityDeps, 'objectStore'>> &
    Omit<FleetflowWorkerDeps, 'activities' | 'workflowBundle'>,
): Promise<Worker> {
  const objectStore = deps.objectStore ?? configuredObjectStore();
  return createWorkerWith({
    ...deps,
    activities: createActivities({ ...deps, objectStore }),
    workflowBundle: await loadWorkflowBundle(),
  });
}
