// GET /vehicles?branchId= (50 per page, authenticated, validated against the OpenAPI document, with the
// ready-to-rent rules computed per vehicle) beside GET /health/live of the same server in the same run:
// requests/s and latency percentiles at 50 connections.
// Usage: npm run bench:vehicle-list [-- seconds connections vehicles]   (defaults: 10 s, 50, 500)
//
// The load generator runs in a worker thread so it does not share the server's event loop.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadInWorker as loadOnItsOwnThread, type LoadInput, type LoadResult } from './http-load.js';
import { cpuSnapshot, cpuSpent } from './process-cpu.js';

/** The server thread's CPU time so far (µs); the load generator runs on its own thread. */
function threadCpu(): number {
  const usage = process.threadCpuUsage();
  return usage.user + usage.system;
}

interface MeasuredLoad extends LoadResult {
  /** CPU time per request (µs) of the server's thread: robust to other processes competing for cores. */
  serverCpuUs: number;
  /** CPU time per request (µs) of the rest of this process: the load generator's thread, GC and JIT threads. */
  loadCpuUs: number;
  /** CPU time per request (µs) of PostgreSQL's processes. */
  postgresCpuUs: number;
}

/** The load on its own thread, with where each request's CPU time went. */
async function loadInWorker(input: LoadInput): Promise<MeasuredLoad> {
  const threadBefore = threadCpu();
  const processBefore = cpuSnapshot();
  const result = await loadOnItsOwnThread(input);
  const spent = cpuSpent(processBefore, cpuSnapshot());
  const perRequest = (us: number) => us / Math.max(1, result.requests);
  const serverUs = threadCpu() - threadBefore;
  return {
    ...result,
    serverCpuUs: perRequest(serverUs),
    loadCpuUs: perRequest(spent['bench process'] * 1e6 - serverUs),
    postgresCpuUs: perRequest(spent.PostgreSQL * 1e6),
  };
}

async function main(): Promise<void> {
  process.env.LOG_LEVEL ??= 'warn';
  const seconds = Number(process.argv[2] ?? 10);
  const connections = Number(process.argv[3] ?? 50);
  const vehicleCount = Number(process.argv[4] ?? 500);
  const { Client, Connection } = await import('@temporalio/client');
  const { serveApi, startBenchDatabase } = await import('./api-stack.js');

  const database = await startBenchDatabase();
  const { orm, seed } = database;
  // The list never talks to Temporal; a lazy connection is never opened.
  const temporal = new Client({ connection: Connection.lazy({ address: '127.0.0.1:1' }) });
  try {
    await orm.em.getConnection().execute(
      `insert into vehicle (tenant_id, code, branch_id, category_id, rental_state, service_state_v2, battery_level,
         power_state, offline, locked, charging, tags, custom_properties, created_at, updated_at, virtual,
         state_of_charge, latitude, longitude, last_seen_at)
       select 'bench', 'BENCH-' || g, ?, (select min(id) from vehicle_category where tenant_id = 'bench'),
         'AVAILABLE', 'FUNCTIONAL', 'HIGH', 'OFF', g % 7 = 0, true, false, '["bench"]', '{}', now(), now(), false,
         20 + g % 80, 52.5 + (g % 100) / 1000.0, 13.4 + (g % 50) / 1000.0, now()
       from generate_series(1, ?) g`,
      [seed.branchId, Math.max(0, vehicleCount - 24)],
    );
    // What autovacuum does to a table after a bulk load, a minute later in production: statistics for the
    // planner (without them it sorts the whole branch for every page) and the visibility map for index-only
    // counts. The bench's runs are shorter than autovacuum's nap.
    await orm.em.getConnection().execute('vacuum analyze vehicle');
    const {
      origin,
      token,
      close: closeApi,
    } = await serveApi({ orm, temporal, taskQueue: 'bench', tenant: 'bench' });
    const listUrl = `${origin}/v1/bench/back/vehicles?branchId=${seed.branchId}&size=50&page=3`;
    const check = await fetch(listUrl, { headers: { authorization: `Bearer ${token}` } });
    if (check.status !== 200 || ((await check.json()) as unknown[]).length !== 50)
      throw new Error(`the list does not answer a page of 50: ${check.status}`);

    const health = await loadInWorker({ url: `${origin}/health/live`, headers: {}, seconds, connections });
    const list = await loadInWorker({
      url: listUrl,
      headers: { authorization: `Bearer ${token}` },
      seconds,
      connections,
    });
    const us = (value: number) => Math.round(value).toString().padStart(5);
    const line = (name: string, r: MeasuredLoad) =>
      `  ${name.padEnd(34)} ${Math.round(r.requests / r.seconds)
        .toLocaleString('en-US')
        .padStart(
          6,
        )} req/s   p50 ${r.p50.toFixed(1).padStart(6)} ms   p99 ${r.p99.toFixed(1).padStart(6)} ms   ` +
      `CPU µs/req: server ${us(r.serverCpuUs)}, PostgreSQL ${us(r.postgresCpuUs)}, rest of process ${us(r.loadCpuUs)}   errors ${r.errors}`;
    // The floor of any list served from the database on this machine: a bare node:http server that runs the
    // same page statement (db/fleet.ts vehiclePage) and writes its rows as JSON, without authentication,
    // validation, DTOs or logging. The API cannot be faster than this; PostgreSQL's share is the same.
    const { vehiclePage } = await import('../db/fleet.js');
    const { tenantEm } = await import('../db/orm.js');
    const bare = http.createServer((_request, response) => {
      vehiclePage(
        tenantEm(orm, 'bench'),
        'bench',
        { branchIds: [seed.branchId] },
        { field: 'id', direction: 'asc' },
        { limit: 50, offset: 100 },
      ).then(
        (page) => {
          response.writeHead(200, { 'content-type': 'application/json' });
          response.end(JSON.stringify(page.vehicles));
        },
        () => response.writeHead(500).end(),
      );
    });
    await new Promise<void>((resolve) => bare.listen(0, '127.0.0.1', resolve));
    const floor = await loadInWorker({
      url: `http://127.0.0.1:${(bare.address() as AddressInfo).port}/`,
      headers: {},
      seconds,
      connections,
    });
    await new Promise((resolve) => bare.close(resolve));
    console.log(`${connections} connections, ${seconds} s each, ${vehicleCount} vehicles in the branch`);
    console.log(line('GET /health/live (baseline)', health));
    console.log(line('GET /vehicles?branchId=…&size=50', list));
    console.log(line('floor: bare node:http, same statement', floor));
    await closeApi();
  } finally {
    await database.stop();
  }
}

await main();
