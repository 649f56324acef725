// GET /vehicles?branchId= (50 per page, authenticated, validated against the OpenAPI document, with the
// ready-to-rent rules computed per vehicle) beside GET /health/live of the same server in the same run:
// requests/s and latency percentiles at 50 connections.
// Usage: npm run bench:vehicle-list [-- seconds connections vehicles]   (defaults: 10 s, 50, 500)
//
// The load generator runs in a worker thread so it does not share the server's event loop.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { loadInWorker as loadOnItsOwnThread, type LoadInput, type LoadResult } from './http-load.js';

/** The server thread's CPU time so far (µs); the load generator runs on its own thread. */
function threadCpu(): number {
  const usage = process.threadCpuUsage();
  return usage.user + usage.system;
}

/** The load on its own thread, with the CPU time of the server's thread per request (µs): robust to other processes competing for cores. */
async function loadInWorker(input: LoadInput): Promise<LoadResult & { serverCpuUs: number }> {
  const cpuBefore = threadCpu();
  const result = await loadOnItsOwnThread(input);
  return { ...result, serverCpuUs: (threadCpu() - cpuBefore) / Math.max(1, result.requests) };
}

async function main(): Promise<void> {
  process.env.LOG_LEVEL ??= 'warn';
  const seconds = Number(process.argv[2] ?? 10);
  const connections = Number(process.argv[3] ?? 50);
  const vehicleCount = Number(process.argv[4] ?? 500);
  const { Client, Connection } = await import('@temporalio/client');
  const { startEmbeddedPostgres } = await import('../platform/embedded-postgres.js');
  const { connectOrm, migrateDatabase } = await import('../db/orm.js');
  const { seedTenant } = await import('../db/seed.js');
  const { serveApi } = await import('./api-stack.js');

  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'fleetflow-bench-pg-'));
  await fs.chmod(dataDir, 0o755);
  const postgres = await startEmbeddedPostgres({ dataDir, port: 0, database: 'fleetflow_bench' });
  const orm = await connectOrm(postgres.url);
  // The list never talks to Temporal; a lazy connection is never opened.
  const temporal = new Client({ connection: Connection.lazy({ address: '127.0.0.1:1' }) });
  try {
    await migrateDatabase(orm);
    const seed = await seedTenant(orm.em, 'bench', 'Bench Mobility');
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
    const line = (name: string, r: LoadResult & { serverCpuUs: number }) =>
      `  ${name.padEnd(38)} ${Math.round(r.requests / r.seconds)
        .toLocaleString('en-US')
        .padStart(
          6,
        )} req/s   p50 ${r.p50.toFixed(1).padStart(6)} ms   p99 ${r.p99.toFixed(1).padStart(6)} ms   server CPU ${Math.round(
        r.serverCpuUs ?? 0,
      )
        .toString()
        .padStart(5)} µs/req   errors ${r.errors}`;
    console.log(`${connections} connections, ${seconds} s each, ${vehicleCount} vehicles in the branch`);
    console.log(line('GET /health/live (baseline)', health));
    console.log(line('GET /vehicles?branchId=…&size=50', list));
    await closeApi();
  } finally {
    await orm.close();
    await postgres.stop();
    await fs.rm(dataDir, { recursive: true, force: true });
  }
}

await main();
