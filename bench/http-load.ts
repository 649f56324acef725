// HTTP load for the benches: keeps N keep-alive GETs in flight for a while and reports requests/s and
// latency percentiles. `loadInWorker` runs it in a worker thread (this very module), so the load generator
// does not share the event loop of the server it measures.
import { Worker, isMainThread, parentPort, workerData } from 'node:worker_threads';
import http from 'node:http';

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

/** Keeps `connections` keep-alive requests in flight for the duration; latency percentiles in ms. */
export async function load(input: LoadInput): Promise<LoadResult> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: input.connections });
  const latencies: number[] = [];
  let errors = 0;
  const started = performance.now();
  const deadline = started + input.seconds * 1000;
  const one = () =>
    new Promise<void>((resolve) => {
      const begin = performance.now();
      const request = http.get(input.url, { agent, headers: input.headers }, (response) => {
        response.resume();
        response.on('end', () => {
          if (response.statusCode !== 200) errors += 1;
          latencies.push(performance.now() - begin);
          resolve();
        });
      });
      request.on('error', () => {
        errors += 1;
        resolve();
      });
    });
  await Promise.all(
    Array.from({ length: input.connections }, async () => {
      while (performance.now() < deadline) await one();
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  agent.destroy();
  latencies.sort((a, b) => a - b);
  const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * q))] ?? 0;
  return { requests: latencies.length, errors, seconds, p50: at(0.5), p99: at(0.99) };
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
