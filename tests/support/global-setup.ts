// Starts the real infrastructure the suite runs against, once per jest run.
import { startThrowawayInfrastructure } from './infrastructure.js';

export default async function globalSetup(): Promise<void> {
  (globalThis as Record<string, unknown>).__fleetflowTestStack = await startThrowawayInfrastructure();
}
