// The worker of every domain: their activities on one task queue and their workflows in one bundle.
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Worker } from '@temporalio/worker';
import type { ActivityDeps, DomainModule } from './domains/domain.js';
import {
  createFleetflowWorker as createWorkerWith,
  workflowsEntryPath as workflowsEntryPathOf,
  type AnyActivity,
  type FleetflowWorkerDeps,
} from '../workers/worker.js';
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

/** The worker that runs every domain's workflows and activities on one task queue. */
export function createFleetflowWorker(
  deps: Omit<ActivityDeps, 'objectStore'> &
    Partial<Pick<ActivityDeps, 'objectStore'>> &
    Omit<FleetflowWorkerDeps, 'activities' | 'workflowModules'>,
): Promise<Worker> {
  const objectStore = deps.objectStore ?? configuredObjectStore();
  return createWorkerWith({
    ...deps,
    activities: createActivities({ ...deps, objectStore }),
    workflowModules: workflowModules(),
  });
}
