// `npm start`: the whole stack on one machine. Each piece uses its environment variable when set
// (DATABASE_URL, MQTT_URL, TEMPORAL_ADDRESS, SMTP_URL, S3_ENDPOINT) and an embedded default otherwise
// (versitygw for the object store); then migrations,
// the demo seed, the worker, the API and the vehicle simulator. Ctrl-C stops everything it started.
// Two switches (scripts/stack-topology.ts): --temporal=cluster runs the real Temporal server on the same
// PostgreSQL instead of the dev server (scripts/stack-cluster.ts), --replicas=N runs N APIs and N workers;
// `npm run start:cluster` is both with N=2.
import fs from 'node:fs/promises';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { loadConfig, repoRoot } from '../platform/config.js';
import { ProcessGroup } from '../platform/process-group.js';
import { startEmbeddedPostgres } from '../platform/embedded-postgres.js';
import { startEmbeddedBroker } from '../platform/embedded-broker.js';
import { startTemporalDevServer } from '../platform/temporal-dev-server.js';
import { ensureTemporalCli } from '../platform/temporal-binaries.js';
import { migrateDatabase, tenantEm } from '../db/orm.js';
import { DEMO_TENANT } from '../db/seed.js';
import { Branch } from '../db/entities/Branch.js';
import { simulatorFleet } from '../db/fleet.js';
import { startMailCatcher } from '../platform/mail.js';
import { ensureVersitygw, startVersitygw } from '../platform/versitygw.js';
import { s3ObjectStore, s3SettingsOf, type S3Settings } from '../platform/object-store.js';
import { demoCustomer } from '../db/seed/customers.js';
import { connectOrm } from '../composition/orm.js';
import { seedDemoTenant } from '../composition/seed.js';
import { searchAttributeDefinitions } from '../workflows/search-attributes.js';
import { demoAdministratorClient, demoAppClient, demoOperatorClient } from '../db/seed/access.js';
import { DEMO_BRANCH_CODE } from '../db/seed/organisation.js';
import { demoFeedSystemId } from '../db/seed/feeds.js';
import { demoMdsAgency } from '../db/seed/mds.js';
import { processName, replicaPorts, stackTopology, type ReplicaPorts } from './stack-topology.js';
import { startClusterTemporal } from './stack-cluster.js';

const config = loadConfig();
const topology = stackTopology(process.argv.slice(2));
const replicas = replicaPorts(topology.replicas, config.apiPort);
const group = new ProcessGroup();
group.installSignalHandlers();
const log = (message: string) => console.log(`[stack] ${message}`);

interface TemporalEndpoint {
  address: string;
  uiUrl?: string;
  /** The banner's Temporal line (the cluster's), when there is more to say than the address. */
  summary?: string;
  uiUnavailable?: string;
}

/** The Temporal of this start: TEMPORAL_ADDRESS's, the real server (--temporal=cluster) or the dev server. */
function temporalServer(databaseUrl: Promise<string>): Promise<TemporalEndpoint> {
  if (config.temporalAddress) {
    if (topology.temporal === 'cluster')
      log(`TEMPORAL_ADDRESS is set: using ${config.temporalAddress}, no cluster`);
    return Promise.resolve({ address: config.temporalAddress, uiUrl: undefined });
  }
  if (topology.temporal === 'cluster') return startClusterTemporal(config, databaseUrl, group, log);
  return ensureTemporalCli(config).then(async (cliPath) => {
    const server = await startTemporalDevServer({
      searchAttributes: searchAttributeDefinitions,
      cliPath,
      port: config.temporalDevServerPort,
      uiPort: config.temporalUiPort,
      dbFile: path.join(config.dataDir, 'temporal', 'temporal.db'),
      logFile: path.join(config.dataDir, 'temporal', 'server.log'),
      namespace: config.temporalNamespace,
    });
    group.addCleanup(() => server.stop());
    log(`Temporal dev server on ${server.address}`);
    return { address: server.address, uiUrl: server.uiUrl };
  });
}

/**
 * Starts what the stack needs; Temporal is left starting (its promise in `temporal`), so migrations and the
 * seed run beside it (a new cluster waits a minute for its search attributes).
 */
async function infrastructure() {
  await fs.mkdir(config.dataDir, { recursive: true });
  const database =
    config.databaseUrl !== undefined
      ? Promise.resolve(config.databaseUrl)
      : startEmbeddedPostgres({
          dataDir: path.join(config.dataDir, 'postgres'),
          port: config.embeddedPostgresPort,
        }).then((pg) => {
          group.addCleanup(() => pg.stop());
          log(`embedded PostgreSQL on ${pg.url} (data in ${path.join(config.dataDir, 'postgres')})`);
          return pg.url;
        });
  const temporal = temporalServer(database);
  const [databaseUrl, mqttUrl, smtpUrl, s3] = await Promise.all([
    database,
    config.mqttUrl ??
      startEmbeddedBroker({ port: config.embeddedMqttPort, host: '0.0.0.0' }).then((broker) => {
        group.addCleanup(() => broker.stop());
        log(`embedded MQTT broker on ${broker.url}`);
        return broker.url;
      }),
    config.smtpUrl ??
      startMailCatcher({
        port: config.embeddedSmtpPort,
        host: '127.0.0.1',
        outboxDir: config.mailOutboxDir,
      }).then((catcher) => {
        group.addCleanup(() => catcher.stop());
        log(`local SMTP mail catcher on ${catcher.url} (mail kept in ${config.mailOutboxDir})`);
        return catcher.url;
      }),
    objectStore(),
  ]).catch(async (error: unknown) => {
    await temporal.catch(() => undefined);
    throw error;
  });
  return { databaseUrl, mqttUrl, smtpUrl, temporal, s3 };
}

/**
 * The object store files go to: S3_ENDPOINT's when set, else versitygw over `.data/objects` on
 * EMBEDDED_S3_PORT with credentials made for this run; its bucket is created when missing.
 */
async function objectStore(): Promise<S3Settings> {
  let settings = s3SettingsOf(config);
  if (!settings) {
    const binary = await ensureVersitygw(config);
    const dataDir = path.join(config.dataDir, 'objects');
    const gateway = await startVersitygw(binary, {
      dataDir,
      port: config.embeddedS3Port,
      accessKeyId: `FF${randomBytes(9).toString('hex').toUpperCase()}`,
      secretAccessKey: randomBytes(30).toString('base64url'),
    });
    group.addCleanup(() => gateway.stop());
    log(`embedded object store (versitygw) on ${gateway.endpoint} (objects in ${dataDir})`);
    settings = {
      endpoint: gateway.endpoint,
      region: config.s3Region,
      bucket: config.s3Bucket,
      accessKeyId: gateway.accessKeyId,
      secretAccessKey: gateway.secretAccessKey,
      forcePathStyle: true,
    };
  }
  const store = s3ObjectStore(settings);
  await store.ensureBucket();
  store.close();
  return settings;
}

async function prepareDatabase(
  databaseUrl: string,
  s3: S3Settings,
): Promise<{ fleetFile: string; demoBranchId: number }> {
  const orm = await connectOrm(databaseUrl);
  const objectStore = s3ObjectStore(s3);
  try {
    const applied = await migrateDatabase(orm);
    if (applied.length) log(`applied migrations: ${applied.join(', ')}`);
    const { created } = await seedDemoTenant(orm.em, { objectStore });
    log(created ? `seeded demo tenant "${DEMO_TENANT}"` : `demo tenant "${DEMO_TENANT}" already present`);
    const fleetFile = path.join(config.dataDir, 'simulator-fleet.json');
    const em = tenantEm(orm, DEMO_TENANT);
    await fs.writeFile(fleetFile, JSON.stringify(await simulatorFleet(em), null, 2));
    const demoBranch = await em.findOneOrFail(Branch, { code: DEMO_BRANCH_CODE });
    return { fleetFile, demoBranchId: demoBranch.id };
  } finally {
    objectStore.close();
    await orm.close();
  }
}

async function waitForApi(url: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const ready = await fetch(`${url}/health/ready`).then(
      (response) => response.ok,
      () => false,
    );
    if (ready) return;
    await new Promise((resolve) => setTimeout(resolve, 300));
  }
  throw new Error(`API not ready within ${timeoutMs / 1000} s`);
}

function run(name: string, script: string, env: NodeJS.ProcessEnv): number | undefined {
  const child = group.spawn(name, process.execPath, ['--import', 'tsx', script], { cwd: repoRoot, env });
  void child.exited.then((exit) => {
    if (exit.code !== 0 && exit.signal === null) {
      console.error(`[stack] ${name} failed; stopping the stack`);
      void group.stopAll().then(() => process.exit(1));
    }
  });
  return child.child.pid;
}

/** Starts replica `index`'s worker and API on their ports; their pids for the banner. */
function runReplica(index: number, ports: ReplicaPorts, env: NodeJS.ProcessEnv) {
  const n = replicas.length;
  const worker = run(processName('worker', index, n), 'composition/worker-main.ts', {
    ...env,
    WORKER_METRICS_PORT: String(ports.workerMetrics),
  });
  const api = run(processName('api', index, n), 'composition/api-server.ts', {
    ...env,
    API_PORT: String(ports.api),
    API_METRICS_PORT: String(ports.apiMetrics),
  });
  return { worker, api };
}

const metricsUrl = (port: number) => (port ? `http://localhost:${port}/metrics` : '(a free port)');

/** The banner's lines on Temporal and, with replicas, on each process. */
function topologyLines(temporal: TemporalEndpoint, pids: Array<{ worker?: number; api?: number }>): string {
  const lines: string[] = [];
  if (temporal.summary) lines.push(`  Temporal       ${temporal.summary}`);
  const ui =
    temporal.uiUrl ??
    (temporal.uiUnavailable
      ? `(none: ${temporal.uiUnavailable}) list workflows with: temporal workflow list --address ${temporal.address}`
      : '(external Temporal: use its UI)');
  lines.push(`  Temporal UI    ${ui}`);
  if (replicas.length === 1) {
    const [ports] = replicas;
    lines.push(
      `  Metrics        ${metricsUrl(ports!.apiMetrics)} (API)   ${metricsUrl(ports!.workerMetrics)} (worker)`,
    );
    return lines.join('\n');
  }
  replicas.forEach((ports, index) => {
    const api = processName('api', index, replicas.length);
    lines.push(
      `  ${api.padEnd(15)}http://localhost:${ports.api}   metrics ${metricsUrl(ports.apiMetrics)}   pid ${pids[index]?.api}`,
    );
  });
  replicas.forEach((ports, index) => {
    const worker = processName('worker', index, replicas.length);
    lines.push(
      `  ${worker.padEnd(15)}metrics ${metricsUrl(ports.workerMetrics)}   pid ${pids[index]?.worker}`,
    );
  });
  return lines.join('\n');
}

/**
 * The token-signing secret: JWT_SECRET when set, otherwise one generated on first start and kept in the
 * data directory (readable by this user only), so tokens survive restarts and no secret ships in code.
 */
async function jwtSecret(): Promise<string> {
  if (config.jwtSecret) return config.jwtSecret;
  const file = path.join(config.dataDir, 'jwt-secret');
  const existing = await fs.readFile(file, 'utf8').catch(() => '');
  if (existing.trim().length >= 32) return existing.trim();
  const secret = randomBytes(48).toString('base64url');
  await fs.writeFile(file, `${secret}\n`, { mode: 0o600 });
  log(`generated a token-signing secret in ${file}`);
  return secret;
}

try {
  const infra = await infrastructure();
  const [temporal, { fleetFile, demoBranchId }] = await Promise.all([
    infra.temporal,
    prepareDatabase(infra.databaseUrl, infra.s3),
  ]);
  const env = {
    ...process.env,
    DATABASE_URL: infra.databaseUrl,
    MQTT_URL: infra.mqttUrl,
    TEMPORAL_ADDRESS: temporal.address,
    // Every replica names the same public address (the sandbox gateway's challenge links point there).
    PUBLIC_BASE_URL: config.publicBaseUrl,
    SMTP_URL: infra.smtpUrl,
    S3_ENDPOINT: infra.s3.endpoint,
    S3_BUCKET: infra.s3.bucket,
    S3_REGION: infra.s3.region,
    S3_FORCE_PATH_STYLE: String(infra.s3.forcePathStyle),
    ...(infra.s3.accessKeyId && infra.s3.secretAccessKey
      ? { S3_ACCESS_KEY_ID: infra.s3.accessKeyId, S3_SECRET_ACCESS_KEY: infra.s3.secretAccessKey }
      : {}),
    JWT_SECRET: await jwtSecret(),
    SIMULATOR_FLEET_FILE: fleetFile,
    SIMULATOR_TENANT: DEMO_TENANT,
  };
  const pids = replicas.map((ports, index) => runReplica(index, ports, env));
  if (config.simulatorEnabled) run('simulator', 'devices/simulator-main.ts', env);
  await Promise.all(
    replicas.map((ports) => waitForApi(`http://127.0.0.1:${ports.api}`, 90_000 * replicas.length)),
  );
  const base = config.publicBaseUrl;
  console.log(`
fleetflow is running (Ctrl-C stops everything)

  Operator API   ${base}/v1/${DEMO_TENANT}/back
  App API        ${base}/v1/${DEMO_TENANT}/front
  API docs       ${base}/docs/back   ${base}/docs/front   ${base}/docs/maintenance   ${base}/docs/mds
  GBFS feeds     ${base}/v1/${DEMO_TENANT}/gbfs/${demoFeedSystemId}/v3/gbfs.json   ${base}/v1/${DEMO_TENANT}/gbfs/${demoFeedSystemId}/v2/gbfs.json
  MDS provider   ${base}/v1/${DEMO_TENANT}/mds  (token: POST ${base}/v1/${DEMO_TENANT}/mds/token, client_id=${demoMdsAgency.clientId} client_secret=${demoMdsAgency.clientSecret} scope=mds)
${topologyLines(temporal, pids)}
  MQTT broker    ${infra.mqttUrl}
  Demo operator  client_id=${demoOperatorClient.clientId} client_secret=${demoOperatorClient.clientSecret}
  Demo admin     client_id=${demoAdministratorClient.clientId} client_secret=${demoAdministratorClient.clientSecret}
  Demo app       client_id=${demoAppClient.clientId} client_secret=${demoAppClient.clientSecret}
  Demo customer  ${demoCustomer.email} / ${demoCustomer.password}  (POST ${base}/v1/${DEMO_TENANT}/auth/customer/sign-in)
  Object store   ${infra.s3.endpoint} bucket ${infra.s3.bucket}${config.s3Endpoint ? '' : ` (versitygw, objects in ${path.join(config.dataDir, 'objects')})`}
  Mail (SMTP)    ${infra.smtpUrl}${config.smtpUrl ? '' : `   received mail: ${config.mailOutboxDir}/*.eml`}
  SMS outbox     ${config.smsOutboxDir}/*.json

  Try:
    TOKEN=$(curl -s -X POST ${base}/v1/${DEMO_TENANT}/auth/token -d grant_type=client_credentials \\
      -d client_id=${demoOperatorClient.clientId} -d client_secret=${demoOperatorClient.clientSecret} | sed -E 's/.*"access_token":"([^"]+)".*/\\1/')
    curl -s -H "Authorization: Bearer $TOKEN" "${base}/v1/${DEMO_TENANT}/back/rentals?branchId=${demoBranchId}"
`);
} catch (error) {
  console.error(`[stack] start failed: ${(error as Error).stack ?? String(error)}`);
  await group.stopAll();
  process.exit(1);
}
