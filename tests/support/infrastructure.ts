// Throwaway real infrastructure (PostgreSQL in a temp dir, MQTT broker, Temporal dev server, versitygw as
// the object store) on free ports, migrated; shared by the jest global setup and the benchmarks.
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
import { ensureVersitygw, startVersitygw } from '../../platform/versitygw.js';
import { s3ObjectStore } from '../../platform/object-store.js';

export interface ThrowawayInfrastructure {
  databaseUrl: string;
  mqttUrl: string;
  temporalAddress: string;
  testServerPath: string;
  /** The object store (versitygw), also exported as S3_ENDPOINT, S3_ACCESS_KEY_ID, S3_SECRET_ACCESS_KEY. */
  s3Endpoint: string;
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
  const [cliPath, testServerPath, versitygwPath] = await Promise.all([
    ensureTemporalCli(config),
    ensureTemporalTestServer(config),
    ensureVersitygw(config),
  ]);
  const objectsDir = await fs.mkdtemp(path.join(os.tmpdir(), 'fleetflow-objects-'));
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'fleetflow-pg-'));
  await fs.chmod(dataDir, 0o755); // the embedded server runs as the postgres user
  const temporalDir =
    options.temporalStore === 'sqlite-file'
      ? await fs.mkdtemp(path.join(os.tmpdir(), 'fleetflow-temporal-'))
      : undefined;
  const [postgres, broker, temporal, objects] = await Promise.all([
    startEmbeddedPostgres({ dataDir, port: 0, database: 'fleetflow_test' }),
    startEmbeddedBroker({ port: 0 }),
    startTemporalDevServer({
      searchAttributes: searchAttributeDefinitions,
      cliPath,
      port: 0,
      namespace: 'default',
      dbFile: temporalDir && path.join(temporalDir, 'temporal.db'),
    }),
    startVersitygw(versitygwPath, {
      dataDir: objectsDir,
      accessKeyId: 'FLEETFLOWTEST',
      secretAccessKey: 'fleetflow-test-object-store-secret',
    }),
  ]);
  const store = s3ObjectStore({
    endpoint: objects.endpoint,
    region: config.s3Region,
    bucket: config.s3Bucket,
    accessKeyId: objects.accessKeyId,
    secretAccessKey: objects.secretAccessKey,
    forcePathStyle: true,
  });
  await store.ensureBucket();
  store.close();
  const orm = await connectOrm(postgres.url);
  await migrateDatabase(orm);
  await orm.close();
  process.env.DATABASE_URL = postgres.url;
  process.env.MQTT_URL = broker.url;
  process.env.TEMPORAL_ADDRESS = temporal.address;
  process.env.TEMPORAL_TEST_SERVER_PATH = testServerPath;
  process.env.S3_ENDPOINT = objects.endpoint;
  process.env.S3_ACCESS_KEY_ID = objects.accessKeyId;
  process.env.S3_SECRET_ACCESS_KEY = objects.secretAccessKey;
  return {
    databaseUrl: postgres.url,
    mqttUrl: broker.url,
    temporalAddress: temporal.address,
    testServerPath,
    s3Endpoint: objects.endpoint,
    async stop() {
      await Promise.allSettled([temporal.stop(), broker.stop(), objects.stop()]);
      await fs.rm(objectsDir, { recursive: true, force: true });
      await postgres.stop();
      await fs.rm(dataDir, { recursive: true, force: true });
      if (temporalDir) await fs.rm(temporalDir, { recursive: true, force: true });
    },
  };
}
