// GET /v1/{tenant}/mds/vehicles/status (pages of 1,000 of a 10,000-vehicle published fleet, an agency's
// token, validated against the MDS document, every id a UUIDv5) beside, in the same run, GET /health/live
// and a bare node:http server running the same two statements and writing their rows as JSON: requests/s
// and latency percentiles.
// Usage: npx tsx bench/mds-status.ts [seconds connections vehicles]   (defaults: 10 s, 10, 10000)
//
// The load generator runs in a worker thread so it does not share the server's event loop.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadInWorker, type LoadResult } from './http-load.js';

async function main(): Promise<void> {
  process.env.LOG_LEVEL ??= 'warn';
  const seconds = Number(process.argv[2] ?? 10);
  const connections = Number(process.argv[3] ?? 10);
  const vehicleCount = Number(process.argv[4] ?? 10_000);
  const { Client, Connection } = await import('@temporalio/client');
  const { serveApi, startBenchDatabase } = await import('./api-stack.js');
  const { demoMdsAgency } = await import('../db/seed/mds.js');
  const { publishedVehiclePage, statusExtras } = await import('../db/mds.js');
  const { tenantEm } = await import('../db/orm.js');

  const database = await startBenchDatabase();
  const { orm, seed } = database;
  // The provider never talks to Temporal; a lazy connection is never opened.
  const temporal = new Client({ connection: Connection.lazy({ address: '127.0.0.1:1' }) });
  try {
    // The demo seed publishes the city branch; the generated vehicles join the district under it, in mixed
    // states, each with a few telemetry messages and state events.
    await orm.em.getConnection().execute(
      `insert into vehicle (tenant_id, code, branch_id, category_id, rental_state, service_state_v2, battery_level,
         power_state, offline, locked, charging, tags, custom_properties, created_at, updated_at, virtual,
         state_of_charge, latitude, longitude, last_seen_at)
       select 'bench', 'BENCH-' || g, ?, (select min(id) from vehicle_category where tenant_id = 'bench'),
         (array['AVAILABLE','AVAILABLE','RESERVATION','DRIVING','PARKING'])[g % 5 + 1],
         (array['FUNCTIONAL','FUNCTIONAL','COLLECT','SERVICE_WORKSHOP'])[g % 4 + 1], 'HIGH', 'OFF', g % 7 = 0,
         true, false, '[]', '{}', now(), now(), false, 20 + g % 80, 52.5 + (g % 100) / 1000.0,
         13.4 + (g % 50) / 1000.0, now()
       from generate_series(1, ?) g`,
      [seed.branchId, Math.max(0, vehicleCount - 24)],
    );
    await orm.em.getConnection().execute(
      `insert into vehicle_telemetry (tenant_id, vehicle_id, reported_at, received_at, latitude, longitude,
         power_state, locked)
       select 'bench', v.id, now() - k * interval '1 minute', now(), v.latitude, v.longitude, 'OFF', true
         from vehicle v cross join generate_series(1, 3) k where v.tenant_id = 'bench'`,
    );
    await orm.em.getConnection().execute(
      `insert into event (tenant_id, created_at, type, branch_id, vehicle_id)
       select 'bench', now() - k * interval '1 hour', (array['VEHICLE_ONLINE', 'VEHICLE_COMMAND_LOCK',
              'VEHICLE_SERVICE_STATE_V2_FUNCTIONAL'])[k], v.branch_id, v.id
         from vehicle v cross join generate_series(1, 3) k where v.tenant_id = 'bench'`,
    );
    await orm.em.getConnection().execute('vacuum analyze vehicle, vehicle_telemetry, event');
    const { origin, close: closeApi } = await serveApi({
      orm,
      temporal,
      taskQueue: 'bench',
      tenant: 'bench',
    });
    const tokenReply = await fetch(`${origin}/v1/bench/mds/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        grant_type: 'client_credentials',
        client_id: demoMdsAgency.clientId,
        client_secret: demoMdsAgency.clientSecret,
      }),
    });
    const { access_token: token } = (await tokenReply.json()) as { access_token: string };
    const headers = { authorization: `Bearer ${token}`, accept: 'application/vnd.mds+json;version=2.0' };
    const statusUrl = `${origin}/v1/bench/mds/vehicles/status?size=1000&page=3`;
    const check = await fetch(statusUrl, { headers });
    const body = (await check.json()) as { vehicles_status?: unknown[] };
    if (check.status !== 200 || body.vehicles_status?.length !== 1000)
      throw new Error(`vehicles/status does not answer a page of 1,000: ${check.status}`);

    const health = await loadInWorker({ url: `${origin}/health/live`, headers: {}, seconds, connections });
    const status = await loadInWorker({ url: statusUrl, headers, seconds, connections });
    const vehicles = await loadInWorker({
      url: `${origin}/v1/bench/mds/vehicles?size=1000&page=3`,
      headers,
      seconds,
      connections,
    });
    // The floor: the same two statements, their rows written as JSON, nothing else.
    const bare = http.createServer((_request, response) => {
      const em = tenantEm(orm, 'bench');
      publishedVehiclePage(em, 'bench', { offset: 3000, size: 1000 })
        .then(async ({ rows }) => {
          const extras = await statusExtras(
            em,
            'bench',
            rows.map((row) => row.id),
          );
          response.writeHead(200, { 'content-type': 'application/json' });
          response.end(JSON.stringify(rows.map((row) => ({ row, extras: extras.get(row.id) }))));
        })
        .catch(() => response.writeHead(500).end());
    });
    await new Promise<void>((resolve) => bare.listen(0, '127.0.0.1', resolve));
    const floor = await loadInWorker({
      url: `http://127.0.0.1:${(bare.address() as AddressInfo).port}/`,
      headers: {},
      seconds,
      connections,
    });
    await new Promise((resolve) => bare.close(resolve));
    const line = (name: string, r: LoadResult) =>
      `  ${name.padEnd(44)} ${Math.round(r.requests / r.seconds)
        .toLocaleString('en-US')
        .padStart(
          6,
        )} req/s   p50 ${r.p50.toFixed(1).padStart(7)} ms   p99 ${r.p99.toFixed(1).padStart(7)} ms   errors ${r.errors}`;
    console.log(`${connections} connections, ${seconds} s each, ${vehicleCount} published vehicles`);
    console.log(line('GET /health/live (baseline)', health));
    console.log(line('GET /mds/vehicles/status?size=1000', status));
    console.log(line('GET /mds/vehicles?size=1000', vehicles));
    console.log(line('floor: bare node:http, same statements', floor));
    await closeApi();
  } finally {
    await database.stop();
  }
}

await main();
