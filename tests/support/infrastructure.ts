// Throwaway real infrastructure (PostgreSQL in a temp dir, MQTT broker, Temporal dev server) on free
// ports, migrated; shared by the jest global setup and the benchmarks.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../platform/config.js';
import { startEmbeddedPostgres } from '../../platform/embedded-postgres.js';
import { startEmbeddedBroker } from '../../platform/embedded-broker.js';
import { startTemporalDevServer } from '../../platform/temporal-dev-server.js';
import { ensureTemporalCli, ensureTemporalTestServer } from '../../platform/temporal-binaries.js';
import { migrateDatabase } from '../../db/orm.js';
import { connectOrm } from '../../composition/orm.js';
import { searchAttributeDefinitions } from '../../workflows/search-attributes.js';

export interface ThrowawayInfrastructure {
  databaseUrl: string;
  mqttUrl: string;
  temporalAddress: string;
  testServerPath: string;
  stop(): Promise<void>;
}

export interface ThrowawayInfrastructureOptions {
  /**
   * Where the Temporal dev server keeps its state: 'memory' (default, the tests) or 'sqlite-file', a
   * SQLite file in a throwaway directory with the settings `npm start` uses (the benchmarks).
   */
  temporalStore?: 'memory' | 'sqlite-file';
}

/** Starts everything, migrates the database, and exports the URLs to process.env for the harness. */
export async function startThrowawayInfrastructure(
  options: ThrowawayInfrastructureOptions = {},
): Promise<ThrowawayInfrastructure> {
  const config = loadConfig();
  const [cliPath, testServerPath] = await Promise.all([
    ensureTemporalCli(config),
    ensureTemporalTestServer(config),
  ]);
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'fleetflow-pg-'));
  await fs.chmod(dataDir, 0o755); // the embedded server runs as the postgres user
  const temporalDir =
    options.temporalStore === 'sqlite-file'
      ? await fs.mkdtemp(path.join(os.tmpdir(), 'fleetflow-temporal-'))
      : undefined;
  const [postgres, broker, temporal] = await Promise.all([
    startEmbeddedPostgres({ dataDir, port: 0, database: 'fleetflow_test' }),
    startEmbeddedBroker({ port: 0 }),
    startTemporalDevServer({
      searchAttributes: searchAttributeDefinitions,
      cliPath,
      port: 0,
      namespace: 'default',
      dbFile: temporalDir && path.join(temporalDir, 'temporal.db'),
    }),
  ]);
  const orm = await connectOrm(postgres.url);
  await migrateDatabase(orm);
  await orm.close();
  process.env.DATABASE_URL = postgres.url;
  process.env.MQTT_URL = broker.url;
  process.env.TEMPORAL_ADDRESS = temporal.address;
  process.env.TEMPORAL_TEST_SERVER_PATH = testServerPath;
  return {
    databaseUrl: postgres.url,
    mqttUrl: broker.url,
    temporalAddress: temporal.address,
    testServerPath,
    async stop() {
      await Promise.allSettled([temporal.stop(), broker.stop()]);
      await postgres.stop();
      await fs.rm(dataDir, { recursive: true, force: true });
      if (temporalDir) await fs.rm(temporalDir, { recursive: true, force: true });
    },
  };
}
