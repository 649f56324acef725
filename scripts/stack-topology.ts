// The two switches of `npm start` (scripts/start.ts) and where the processes they ask for listen.
//
//   --temporal=dev|cluster   (FLEETFLOW_TEMPORAL)  the Temporal dev server (default), or the real Temporal
//                                                  server on the stack's PostgreSQL (platform/temporal-cluster.ts)
//   --replicas=N             (FLEETFLOW_REPLICAS)  N API processes and N worker processes (default 1)
//
// A flag wins over its variable. `npm run start:cluster` is `--temporal=cluster --replicas=2`.
// API replica i (from 0) listens on API_PORT+i with its metrics on API_METRICS_PORT+2i; worker i serves its
// metrics on WORKER_METRICS_PORT+2i (defaults: APIs 3000, 3001 with metrics 9465, 9467; workers 9464, 9466),
// so replica 0 is exactly `npm start`'s single process. API_PORTS, API_METRICS_PORTS and WORKER_METRICS_PORTS
// (comma-separated, one per replica) name the ports instead, e.g. free ports picked by a test.
import { apiMetricsPort, workerMetricsPort } from '../workers/observability.js';

export type TemporalMode = 'dev' | 'cluster';

export interface StackTopology {
  temporal: TemporalMode;
  replicas: number;
}

/** The highest replica count accepted (each replica is a Node process with its own pools). */
export const MAX_REPLICAS = 8;

/** Reads the switches from the command line (`--temporal=…`, `--replicas=…`) and the environment. */
export function stackTopology(argv: readonly string[], env: NodeJS.ProcessEnv = process.env): StackTopology {
  const flags = new Map<string, string>();
  for (const arg of argv) {
    const match = /^--(temporal|replicas)=(.*)$/.exec(arg);
    if (match) flags.set(match[1]!, match[2]!);
    else if (arg.startsWith('--'))
      throw new Error(
        `Unknown option ${arg}: scripts/start.ts takes --temporal=dev|cluster and --replicas=N`,
      );
  }
  const temporal = flags.get('temporal') ?? env.FLEETFLOW_TEMPORAL ?? 'dev';
  if (temporal !== 'dev' && temporal !== 'cluster')
    throw new Error(`--temporal (FLEETFLOW_TEMPORAL) is dev or cluster, got "${temporal}"`);
  const replicasText = flags.get('replicas') ?? env.FLEETFLOW_REPLICAS ?? '1';
  const replicas = Number(replicasText);
  if (!Number.isInteger(replicas) || replicas < 1 || replicas > MAX_REPLICAS)
    throw new Error(
      `--replicas (FLEETFLOW_REPLICAS) is a whole number from 1 to ${MAX_REPLICAS}, got "${replicasText}"`,
    );
  return { temporal, replicas };
}

/** Where replica i of the API and of the worker listen. */
export interface ReplicaPorts {
  api: number;
  apiMetrics: number;
  workerMetrics: number;
}

/** The ports of each replica (see the header); a port variable of 0 (pick a free one) stays 0. */
export function replicaPorts(
  replicas: number,
  apiPort: number,
  env: NodeJS.ProcessEnv = process.env,
): ReplicaPorts[] {
  const listed = (name: string, derive: (index: number) => number): number[] => {
    const raw = env[name];
    if (!raw) return Array.from({ length: replicas }, (_, index) => derive(index));
    const ports = raw.split(',').map((part) => Number(part.trim()));
    if (
      ports.length !== replicas ||
      ports.some((port) => !Number.isInteger(port) || port < 0 || port > 65535)
    )
      throw new Error(`${name} must list ${replicas} port numbers (one per replica), got "${raw}"`);
    return ports;
  };
  const offset = (base: number, step: number) => (index: number) => (base === 0 ? 0 : base + step * index);
  const api = listed('API_PORTS', offset(apiPort, 1));
  const apiMetrics = listed('API_METRICS_PORTS', offset(apiMetricsPort(env), 2));
  const workerMetrics = listed('WORKER_METRICS_PORTS', offset(workerMetricsPort(env), 2));
  const all = [...api, ...apiMetrics, ...workerMetrics].filter((port) => port !== 0);
  const repeated = all.find((port, index) => all.indexOf(port) !== index);
  if (repeated !== undefined)
    throw new Error(
      `Port ${repeated} is given to two processes; see scripts/stack-topology.ts for the layout`,
    );
  return api.map((port, index) => ({
    api: port,
    apiMetrics: apiMetrics[index]!,
    workerMetrics: workerMetrics[index]!,
  }));
}

/** `api`, `worker` for one replica (as `npm start` has always named them); `api-1`, `api-2`, … for more. */
export function processName(kind: 'api' | 'worker', index: number, replicas: number): string {
  return replicas === 1 ? kind : `${kind}-${index + 1}`;
}
