// The workflow bundle the tests run: the one production builds (every domain's workflows and error tables,
// the observability interceptor). The stack project's global setup builds it once per run into a file
// (FLEETFLOW_TEST_WORKFLOW_BUNDLE); a suite without it (the unit project's replay test) builds its own.
import fs from 'node:fs/promises';
import { bundleWorkflowCode, DefaultLogger, type WorkflowBundle } from '@temporalio/worker';
import { workflowsEntryPath } from '../../composition/worker.js';
import { workflowInterceptorModule } from '../../workers/observability.js';

/** Builds the bundle (webpack, a second or two). */
export async function buildWorkflowBundle(): Promise<WorkflowBundle> {
  const { code } = await bundleWorkflowCode({
    workflowsPath: workflowsEntryPath(),
    workflowInterceptorModules: [workflowInterceptorModule],
    logger: new DefaultLogger('ERROR'),
  });
  return { code };
}

let bundle: Promise<WorkflowBundle> | undefined;

/** The bundle of this run: read from the global setup's file when there is one, else built once per suite. */
export function workflowBundle(): Promise<WorkflowBundle> {
  const prebuilt = process.env.FLEETFLOW_TEST_WORKFLOW_BUNDLE;
  bundle ??= prebuilt ? fs.readFile(prebuilt, 'utf8').then((code) => ({ code })) : buildWorkflowBundle();
  return bundle;
}
