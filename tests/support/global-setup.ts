// Starts the real infrastructure the suite runs against, once: PostgreSQL (embedded, throwaway data
// dir), an MQTT broker (aedes), and a Temporal dev server; provisions the time-skipping test server.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../platform/config.js';
import { startEmbeddedPostgres } from '../../platform/embedded-postgres.js';
import { startEmbeddedBroker } from '../../platform/embedded-broker.js';
import { startTemporalDevServer } from '../../platform/temporal-dev-server.js';
import { ensureTemporalCli, ensureTemporalTestServer } from '../../platform/temporal-binaries.js';
import { connectOrm, migrateDatabase } from '../../db/orm.js';

export default async function globalSetup(): Promise<void> {
  const config = loadConfig();
  const [cliPath, testServerPath] = await Promise.all([ensureTemporalCli(config), ensureTemporalTestServer(config)]);
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'fleetflow-test-pg-'));
  await fs.chmod(dataDir, 0o755); // the embedded server runs as the postgres user
  const [postgres, broker, temporal] = await Promise.all([
    startEmbeddedPostgres({ dataDir, port: 0, database: 'fleetflow_test' }),
    startEmbeddedBroker({ port: 0 }),
    startTemporalDevServer({ cliPath, port: 0, namespace: 'default' }),
  ]);
  const orm = await connectOrm(postgres.url);
  await migrateDatabase(orm);
  await orm.close();
  process.env.DATABASE_URL = postgres.url;
  process.env.MQTT_URL = broker.url;
  process.env.TEMPORAL_ADDRESS = temporal.address;
  process.env.TEMPORAL_TEST_SERVER_PATH = testServerPath;
  (globalThis as Record<string, unknown>).__fleetflowTestStack = {
    async stop() {
      await Promise.allSettled([temporal.stop(), broker.stop()]);
      await postgres.stop();
      await fs.rm(dataDir, { recursive: true, force: true });
    },
  };
}
