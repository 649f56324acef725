// Starts the real infrastructure the suite runs against, once per jest run.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { startThrowawayInfrastructure } from './infrastructure.js';
import { buildWorkflowBundle } from '../../composition/worker.js';

export default async function globalSetup(): Promise<void> {
  const [stack, bundle] = await Promise.all([startThrowawayInfrastructure(), buildWorkflowBundle()]);
  // Every worker of the run (in-process and spawned) loads this one bundle, as a deployment that ran
  // `npm run build:workflows` does (FLEETFLOW_WORKFLOW_BUNDLE), instead of building its own.
  const directory = await fs.mkdtemp(path.join(os.tmpdir(), 'fleetflow-bundle-'));
  process.env.FLEETFLOW_WORKFLOW_BUNDLE = path.join(directory, 'workflows.js');
  await fs.writeFile(process.env.FLEETFLOW_WORKFLOW_BUNDLE, bundle.code);
  (globalThis as Record<string, unknown>).__fleetflowTestStack = {
    async stop() {
      await stack.stop();
      await fs.rm(directory, { recursive: true, force: true });
    },
  };
}
