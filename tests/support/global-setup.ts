// Starts the real infrastructure the suite runs against, once per jest run.
import { startThrowawayInfrastructure } from './infrastructure.js';

export default async function globalSetup(): Promise<void> {
  // Request and worker logs stay out of the test output unless something goes wrong.
  process.env.LOG_LEVEL ??= 'warn';
  (globalThis as Record<string, unknown>).__fleetflowTestStack = await startThrowawayInfrastructure();
}
