// `npm start --temporal=cluster` (scripts/start.ts): the real Temporal server on the stack's PostgreSQL and
// the Temporal UI server beside it, each built once into the cache, stopped with the rest of the stack.
import path from 'node:path';
import type { FleetflowConfig } from '../platform/config.js';
import { isProvisioned } from '../platform/go-binaries.js';
import { freePort } from '../platform/net.js';
import type { ProcessGroup } from '../platform/process-group.js';
import { ensureTemporalCli } from '../platform/temporal-binaries.js';
import {
  clusterDatabaseOf,
  ensureTemporalClusterBinaries,
  ensureTemporalUiServer,
  startTemporalCluster,
  startTemporalUi,
  TEMPORAL_DATABASE,
  TEMPORAL_HISTORY_SHARDS,
  TEMPORAL_SERVER_VERSION,
  TEMPORAL_UI_SERVER_VERSION,
  TEMPORAL_VISIBILITY_DATABASE,
  temporalServerBuild,
  temporalUiServerBuild,
} from '../platform/temporal-cluster.js';
import { searchAttributeDefinitions } from '../workflows/search-attributes.js';

export interface ClusterTemporal {
  address: string;
  /** The UI's address, or undefined when the UI server could not be built (`uiUnavailable` says why). */
  uiUrl?: string;
  uiUnavailable?: string;
  /** What the banner says about the server. */
  summary: string;
}

/**
 * Builds what is missing (the server and its schema tool, the UI server: minutes, once, at the lowest CPU
 * priority) while PostgreSQL starts, then starts the cluster on `databaseUrl`'s server and the UI on
 * TEMPORAL_UI_PORT. A UI server that does not build leaves the cluster without a UI (the banner says how
 * to inspect workflows instead); a server that does not build or start fails the start.
 */
export async function startClusterTemporal(
  config: FleetflowConfig,
  databaseUrl: Promise<string>,
  group: ProcessGroup,
  log: (message: string) => void,
): Promise<ClusterTemporal> {
  for (const [spec, what, duration] of [
    [temporalServerBuild, 'the Temporal server and its schema tool', '7 to 35 minutes on 2 cores'],
    [temporalUiServerBuild, 'the Temporal UI server', 'a few minutes'],
  ] as const)
    if (!(await isProvisioned(spec, config.cacheDir)))
      log(
        `building ${what} ${spec.version} from the Go module proxy into ${path.join(config.cacheDir, spec.cacheName)} ` +
          `(once, at nice 19: ${duration} from an empty Go module cache, depending on the load)`,
      );
  const ui = ensureTemporalUiServer(config.cacheDir).then(
    (binary) => ({ binary }),
    (error: Error) => ({ error }),
  );
  const [binaries, cliPath, url] = await Promise.all([
    ensureTemporalClusterBinaries(config.cacheDir),
    ensureTemporalCli(config),
    databaseUrl,
  ]);
  const dataDir = path.join(config.dataDir, 'temporal-cluster');
  const cluster = await startTemporalCluster({
    server: binaries.server,
    sqlTool: binaries.sqlTool,
    cliPath,
    database: clusterDatabaseOf(url),
    port: config.temporalClusterPort,
    namespace: config.temporalNamespace,
    searchAttributes: searchAttributeDefinitions,
    dataDir,
    log: (line) => log(`Temporal cluster: ${line}`),
  });
  group.addCleanup(() => cluster.stop());
  const summary =
    `${cluster.address}  temporal-server v${TEMPORAL_SERVER_VERSION} (frontend, history, matching, worker; ` +
    `${TEMPORAL_HISTORY_SHARDS} history shards; PostgreSQL databases ${TEMPORAL_DATABASE}, ` +
    `${TEMPORAL_VISIBILITY_DATABASE}; log ${cluster.logFile})`;
  log(`Temporal cluster on ${cluster.address} (log ${cluster.logFile})`);

  const uiBinary = await ui;
  if ('error' in uiBinary) {
    log(`no Temporal UI: ${uiBinary.error.message.split('\n')[0]}`);
    return { address: cluster.address, uiUnavailable: uiBinary.error.message.split('\n')[0], summary };
  }
  const uiServer = await startTemporalUi({
    binary: uiBinary.binary,
    temporalAddress: cluster.address,
    port: config.temporalUiPort || (await freePort('127.0.0.1')),
    namespace: config.temporalNamespace,
    logFile: path.join(dataDir, 'ui.log'),
  });
  group.addCleanup(() => uiServer.stop());
  log(`Temporal UI (ui-server v${TEMPORAL_UI_SERVER_VERSION}) on ${uiServer.url}`);
  return { address: cluster.address, uiUrl: uiServer.url, summary };
}
