// HTTP load for the benches: keeps N keep-alive GETs in flight for a while and reports requests/s and
// latency percentiles. `loadInWorker` runs it in a worker thread (this very module), so the load generator
// does not share the event loop of the server it measures.
import { Worker, isMainThread, parentPort, workerData } from 'node:worker_threads';
import autocannon from 'autocannon';

/** autocannon's own aggregation (exported, missing from its type declarations). */
type AggregateResult = (results: autocannon.Result[], options: autocannon.Options) => autocannon.Result;

export interface LoadInput {
  url: string;
  headers: Record<string, string>;
  seconds: number;
  connections: number;
}

export interface LoadResult {
  requests: number;
  errors: number;
  seconds: number;
  p50: number;
  p99: number;
}

/**
 * Keeps `connections` keep-alive requests in flight for the duration; latency percentiles in whole ms
 * (autocannon's resolution). autocannon reads answers without building response objects: half the CPU per
 * request of node's http client (49 against 105 µs on /health/live), CPU the server it measures gets back
 * on a two-core machine.
 */
export async function load(input: LoadInput): Promise<LoadResult> {
  const options = {
    url: input.url,
    headers: input.headers,
    connections: input.connections,
    duration: input.seconds,
    pipelining: 1,
  };
  // Off the main thread autocannon answers its raw histograms, for a parent to aggregate.
  const aggregate = (autocannon as unknown as { aggregateResult: AggregateResult }).aggregateResult;
  const result = aggregate([await autocannon(options)], options);
  return {
    requests: result.requests.total,
    errors: result.errors + result.timeouts + result.non2xx,
    seconds: result.duration,
    p50: result.latency.p50,
    p99: result.latency.p99,
  };
}

/** Runs `load` in a worker thread and answers its result. */
export function loadInWorker(input: LoadInput): Promise<LoadResult> {
  const worker = new Worker(new URL(import.meta.url), {
    workerData: { httpLoad: input },
    execArgv: ['--import', 'tsx'],
  });
  return new Promise((resolve, reject) => {
    worker.once('message', (result: LoadResult) => void worker.terminate().then(() => resolve(result)));
    worker.once('error', reject);
  });
}

if (!isMainThread && (workerData as { httpLoad?: LoadInput } | null)?.httpLoad)
  parentPort!.postMessage(await load((workerData as { httpLoad: LoadInput }).httpLoad));
