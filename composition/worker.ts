// The worker of every domain: their activities on one task queue and their workflows in one bundle.
import type { Worker } from '@temporalio/worker';
import type { ActivityDeps, DomainModule } from './domains/domain.js';
import {
  createFleetflowWorker as createWorkerWith,
  workflowsEntryPath as workflowsEntryPathOf,
  type AnyActivity,
  type FleetflowWorkerDeps,
} from '../workers/worker.js';
import { domains, workflowModules } from './registry.js';

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

/** The workflow bundle's entry, re-exporting every domain's workflow module. */
export const workflowsEntryPath = (): string => workflowsEntryPathOf(workflowModules());

/** The worker that runs every domain's workflows and activities on one task queue. */
export function createFleetflowWorker(
  deps: ActivityDeps & Omit<FleetflowWorkerDeps, 'activities' | 'workflowModules'>,
): Promise<Worker> {
  return createWorkerWith({
    ...deps,
    activities: createActivities(deps),
    workflowModules: workflowModules(),
  });
}
