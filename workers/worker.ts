import { NativeConnection, Worker, type WorkerOptions } from '@temporalio/worker';
import type { MikroORM } from '@mikro-orm/postgresql';
import { fileURLToPath } from 'node:url';
import type { VehicleCommandClient } from '../devices/command-client.js';
import { createRentalActivities } from '../activities/rental.js';

/** Path of the workflow bundle entry (`workflows/index.ts`). */
export const workflowsPath = fileURLToPath(new URL('../workflows/index.ts', import.meta.url));

export interface FleetflowWorkerDeps {
  connection: NativeConnection;
  namespace: string;
  taskQueue: string;
  orm: MikroORM;
  vehicleCommands: VehicleCommandClient;
  vehicleCommandTimeoutMs: number;
  /** Prebuilt bundle (tests build it once); otherwise bundled from `workflowsPath` at start. */
  workflowBundle?: WorkerOptions['workflowBundle'];
}

/** Every activity the fleetflow task queue serves, wired to its dependencies. */
export function createActivities(
  deps: Pick<FleetflowWorkerDeps, 'orm' | 'vehicleCommands' | 'vehicleCommandTimeoutMs'>,
) {
  return {
    ...createRentalActivities({
      orm: deps.orm,
      vehicleCommands: deps.vehicleCommands,
      defaultCommandTimeoutMs: deps.vehicleCommandTimeoutMs,
    }),
  };
}

/** The worker that runs fleetflow's workflows and activities on one task queue. */
export async function createFleetflowWorker(deps: FleetflowWorkerDeps): Promise<Worker> {
  return Worker.create({
    connection: deps.connection,
    namespace: deps.namespace,
    taskQueue: deps.taskQueue,
    ...(deps.workflowBundle ? { workflowBundle: deps.workflowBundle } : { workflowsPath }),
    activities: createActivities(deps),
    maxConcurrentActivityTaskExecutions: 100,
  });
}
