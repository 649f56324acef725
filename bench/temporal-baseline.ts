// The rental's shape on bare Temporal (bench/temporal-baseline.workflows.ts): what fleetflow's lifecycle
// would cost if the API, the database and the vehicles were free. bench/rental-lifecycle.ts runs it
// against the same dev server right after fleetflow's own figures.
//
// It mirrors how fleetflow drives Temporal: a Client on a Connection starts the workflow and then
// executes the `awaitReservation` update (create), then one update each for START, PARK, DRIVE and END; the worker
// runs in this process on a NativeConnection with fleetflow's worker settings. Differences left on
// purpose: no search attributes (fleetflow sets them at start and upserts one per transition), no
// interceptors, no payload beyond the operation name, and activities that do nothing where fleetflow's
// send the vehicle command and record the step.
//
// Alone: npx tsx bench/temporal-baseline.ts [seconds concurrency [address]]
// (without an address it starts a throwaway dev server on a SQLite file with WAL, like the bench).
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Client, Connection } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime, Worker, bundleWorkflowCode } from '@temporalio/worker';
import { formatResult, runLifecycles, type LifecycleBenchResult } from './lifecycle-stats.js';
import {
  BASELINE_WORKFLOW_TYPE,
  baselineAwaitReservation,
  baselineOperation,
  type BaselineActivities,
} from './temporal-baseline.workflows.js';
import { searchAttributeDefinitions } from '../workflows/search-attributes.js';

const workflowsPath = fileURLToPath(new URL('./temporal-baseline.workflows.ts', import.meta.url));

export interface TemporalBaselineOptions {
  /** host:port of the Temporal frontend. */
  address: string;
  namespace?: string;
  /** How long lanes keep starting lifecycles. */
  durationMs: number;
  concurrency: number;
}

/** Runs bare-Temporal rental lifecycles, `concurrency` at a time for `durationMs`, and measures them. */
export async function runTemporalBaseline(options: TemporalBaselineOptions): Promise<LifecycleBenchResult> {
  const namespace = options.namespace ?? 'default';
  const taskQueue = `baseline-${randomBytes(3).toString('hex')}`;
  const activities: BaselineActivities = { noop: async () => undefined };
  const workflowBundle = await bundleWorkflowCode({
    workflowsPath,
    logger: new DefaultLogger('ERROR'),
  });
  const workerConnection = await NativeConnection.connect({ address: options.address });
  const clientConnection = await Connection.connect({ address: options.address });
  const client = new Client({ connection: clientConnection, namespace });
  const worker = await Worker.create({
    connection: workerConnection,
    namespace,
    taskQueue,
    workflowBundle,
    activities,
    maxConcurrentActivityTaskExecutions: 100, // as createFleetflowWorker
  });
  const running = worker.run();
  try {
    let sequence = 0;
    return await runLifecycles(
      {
        async create() {
          sequence += 1;
          const handle = await client.workflow.start(BASELINE_WORKFLOW_TYPE, {
            workflowId: `${taskQueue}:${sequence}`,
            taskQueue,
            workflowIdReusePolicy: 'REJECT_DUPLICATE',
          });
          await handle.executeUpdate(baselineAwaitReservation);
          return handle.workflowId;
        },
        async operate(workflowId, operation) {
          await client.workflow
            .getHandle(String(workflowId))
            .executeUpdate(baselineOperation, { args: [operation] });
        },
      },
      options.durationMs,
      options.concurrency,
    );
  } finally {
    worker.shutdown();
    await running;
    await clientConnection.close();
    await workerConnection.close();
  }
}

async function main(): Promise<void> {
  Runtime.install({ logger: new DefaultLogger('WARN') });
  const durationMs = Number(process.argv[2] ?? 60) * 1000;
  const concurrency = Number(process.argv[3] ?? 16);
  let address = process.argv[4];
  let stop = async () => {};
  if (!address) {
    const { loadConfig } = await import('../platform/config.js');
    const { ensureTemporalCli } = await import('../platform/temporal-binaries.js');
    const { startTemporalDevServer } = await import('../platform/temporal-dev-server.js');
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'fleetflow-baseline-'));
    const server = await startTemporalDevServer({
      searchAttributes: searchAttributeDefinitions,
      cliPath: await ensureTemporalCli(loadConfig()),
      port: 0,
      namespace: 'default',
      dbFile: path.join(dir, 'temporal.db'),
    });
    address = server.address;
    stop = async () => {
      await server.stop();
      await fs.rm(dir, { recursive: true, force: true });
    };
  }
  try {
    const result = await runTemporalBaseline({ address, durationMs, concurrency });
    console.log(formatResult(`bare Temporal at ${address}`, result, 'updates'));
  } finally {
    await stop();
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) await main();
