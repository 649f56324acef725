// GET /kpis?branchId= (authenticated, validated against the OpenAPI document) for a branch of 10,000
// vehicles, once per KPI type and once for all eighteen, beside the bare SQL statement the route runs for
// the same answer (built by the same db/kpis.ts code, run as the same prepared statement on the same pool
// behind a bare node:http server) in the same run: p50/p99 of each and the ratio. A sibling branch of the
// tenant holds as many vehicles and rentals, so the branch condition filters; the branch has a city-sized
// business area (2,000 vertices with a hole), category areas, 30 no-parking zones, 350 return stations,
// 200,000 rentals over 60 days in the tenant, 500 delivered and ~7,000 finished bookings, damages and tasks.
// Usage: npm run bench:kpis [-- seconds connections vehicles]   (defaults: 4 s, 4, 10000)
//        add `--explain` to print each statement's plan (EXPLAIN (ANALYZE, BUFFERS)) first.
//
// The load generator runs in a worker thread so it does not share the server's event loop.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadInWorker, type LoadResult } from './http-load.js';

/** A closed ring of `points` vertices around a centre (degrees), radius in metres, star-shaped when `spikes`. */
function ring(lat: number, lng: number, metres: number, points: number, spikes = 0): number[][] {
  const coordinates: number[][] = [];
  for (let i = 0; i < points; i += 1) {
    const angle = (2 * Math.PI * i) / points;
    const r = metres * (spikes ? 1 + 0.15 * Math.sin(spikes * angle) : 1);
    coordinates.push([
      lng + (r * Math.cos(angle)) / (111_320 * Math.cos((lat * Math.PI) / 180)),
      lat + (r * Math.sin(angle)) / 110_540,
    ]);
  }
  coordinates.push(coordinates[0]!);
  return coordinates;
}

async function main(): Promise<void> {
  process.env.LOG_LEVEL ??= 'warn';
  const args = process.argv.slice(2).filter((arg) => !arg.startsWith('--'));
  const explain = process.argv.includes('--explain');
  const seconds = Number(args[0] ?? 4);
  const connections = Number(args[1] ?? 4);
  const vehicleCount = Number(args[2] ?? 10_000);
  const { Client, Connection } = await import('@temporalio/client');
  const { serveApi, startBenchDatabase } = await import('./api-stack.js');
  const { tenantEm } = await import('../db/orm.js');
  const { kpiInputs, kpiStatement, runKpiStatement } = await import('../db/kpis.js');
  const { kpiTypes } = await import('../domain/insight.js');

  const database = await startBenchDatabase();
  const { orm, seed } = database;
  const temporal = new Client({ connection: Connection.lazy({ address: '127.0.0.1:1' }) });
  const connection = orm.em.getConnection();
  const tenant = 'bench';
  try {
    const loadStarted = Date.now();
    const [{ id: branchId }] = await connection.execute<[{ id: number }]>(
      `insert into branch (tenant_id, name, code, state, parent_id, business_unit_id, operation_mode, visibility,
         time_zone_id, is_billable)
       values ('bench', 'KPI bench', 'KPI-BENCH', 'OPERATIONAL', ?, ?, 'ON_DEMAND', 'public', 'Europe/Berlin', false)
       returning id`,
      [seed.cityBranchId, seed.businessUnitId],
    );
    const [{ id: otherId }] = await connection.execute<[{ id: number }]>(
      `insert into branch (tenant_id, name, code, state, parent_id, business_unit_id, operation_mode, visibility,
         time_zone_id, is_billable)
       values ('bench', 'KPI bench sibling', 'KPI-BENCH-2', 'OPERATIONAL', ?, ?, 'ON_DEMAND', 'public', 'Europe/Berlin', false)
       returning id`,
      [seed.cityBranchId, seed.businessUnitId],
    );
    // Vehicles on a 100 × (n/100) grid over Berlin (≈ 165 m × 170 m cells), in both branches; states mixed.
    for (const branch of [branchId, otherId])
      await connection.execute(
        `insert into vehicle (tenant_id, code, branch_id, category_id, rental_state, service_state_v2,
           state_of_charge, battery_level, offline, charging, latitude, longitude, last_seen_at, tags,
           custom_properties, created_at, updated_at)
         select 'bench', 'KPI-' || ?::int || '-' || n, ?::int,
           (select id from vehicle_category where tenant_id = 'bench' order by id limit 1 offset (n % 2)),
           case when n % 10 = 0 then 'DRIVING' when n % 10 = 1 then 'RESERVATION' else 'AVAILABLE' end,
           case when n % 200 = 2 then 'RETIRED' when n % 50 = 0 then 'SERVICE_WORKSHOP'
                when n % 50 = 1 then 'RELOCATE' else 'FUNCTIONAL' end,
           (n * 37) % 100,
           case when (n * 37) % 100 >= 60 then 'HIGH' when (n * 37) % 100 >= 25 then 'MEDIUM'
                when (n * 37) % 100 >= 10 then 'LOW' else 'CRITICAL' end,
           n % 25 = 0, n % 7 = 0,
           52.45 + (n % 100) * 0.0015, 13.25 + (n / 100) * 0.0025 * 100.0 / greatest(?::int / 100, 1),
           now(), '[]', '{}', now() - interval '30 days', now()
         from generate_series(0, ?::int - 1) n`,
        [branch, branch, vehicleCount, vehicleCount],
      );
    const centre = { lat: 52.525, lng: 13.375 };
    const [{ id: areaType }] = await connection.execute<[{ id: string }]>(
      `insert into area_type (id, tenant_id, name, style, policy_types, tags, labels)
       values (gen_random_uuid(), 'bench', 'Bench', '{}', '["ALLOW_END_RENTAL_POLICY","NO_PARKING_POLICY"]', '[]', '[]')
       returning id`,
    );
    const areas: { geofence: unknown; policies: unknown; vehicleTypeIds: number[] }[] = [
      {
        geofence: {
          type: 'MultiPolygon',
          coordinates: [
            [ring(centre.lat, centre.lng, 8000, 2000, 40), ring(centre.lat, centre.lng, 600, 200)],
          ],
        },
        policies: [{ type: 'ALLOW_END_RENTAL_POLICY' }],
        vehicleTypeIds: [],
      },
    ];
    const [category] = await connection.execute<[{ id: number }]>(
      `select id from vehicle_category where tenant_id = 'bench' order by id limit 1`,
    );
    for (let i = 0; i < 4; i += 1)
      areas.push({
        geofence: {
          type: 'MultiPolygon',
          coordinates: [[ring(centre.lat - 0.06 + 0.03 * i, centre.lng + 0.16, 1500, 300, 7)]],
        },
        policies: [{ type: 'ALLOW_END_RENTAL_POLICY' }],
        vehicleTypeIds: [category.id],
      });
    for (let i = 0; i < 30; i += 1)
      areas.push({
        geofence: {
          type: 'MultiPolygon',
          coordinates: [[ring(centre.lat - 0.07 + 0.005 * i, centre.lng - 0.1 + 0.007 * i, 150, 40)]],
        },
        policies: [{ type: 'NO_PARKING_POLICY' }],
        vehicleTypeIds: [],
      });
    for (const area of areas)
      await connection.execute(
        `insert into area (id, tenant_id, name, branch_id, area_type_id, status, vehicle_type_ids, geofence,
           policies, tags, labels, created_at, updated_at)
         values (gen_random_uuid(), 'bench', 'Bench area', ?, ?, 'ACTIVE', ?, ?, ?, '[]', '[]', now(), now())`,
        [
          branchId,
          areaType,
          JSON.stringify(area.vehicleTypeIds),
          JSON.stringify(area.geofence),
          JSON.stringify(area.policies),
        ],
      );
    // 300 virtual stations (50 m radius) and 50 docking stations with a drawn area, capacity 5.
    await connection.execute(
      `insert into station (tenant_id, branch_id, name, type, capacity, latitude, longitude, radius, area)
       select 'bench', ?::int, 'Station ' || s, case when s < 300 then 'VIRTUAL' else 'DOCKING' end, 5,
         52.45 + (s % 20) * 0.0075, 13.25 + (s / 20) * 0.014,
         case when s < 300 then 50 end,
         case when s >= 300 then jsonb_build_object('type', 'MultiPolygon', 'coordinates', jsonb_build_array(
           jsonb_build_array(jsonb_build_array(
             jsonb_build_array(13.25 + (s / 20) * 0.014 - 0.0005, 52.45 + (s % 20) * 0.0075 - 0.0003),
             jsonb_build_array(13.25 + (s / 20) * 0.014 + 0.0005, 52.45 + (s % 20) * 0.0075 - 0.0003),
             jsonb_build_array(13.25 + (s / 20) * 0.014 + 0.0005, 52.45 + (s % 20) * 0.0075 + 0.0003),
             jsonb_build_array(13.25 + (s / 20) * 0.014 - 0.0005, 52.45 + (s % 20) * 0.0075 + 0.0003),
             jsonb_build_array(13.25 + (s / 20) * 0.014 - 0.0005, 52.45 + (s % 20) * 0.0075 - 0.0003))))) end
       from generate_series(0, 349) s`,
      [branchId],
    );
    // Customers for the open rentals (one open rental per customer).
    await connection.execute(
      `insert into customer (tenant_id, email, first_name, last_name, created_at)
       select 'bench', 'kpi-' || n || '@bench.test', 'Kpi', 'Customer ' || n, now()
       from generate_series(0, ?::int / 5) n`,
      [vehicleCount],
    );
    // Ten finished rentals per vehicle over 60 days in both branches (some today, some cancelled before the
    // start), and the open rentals of the DRIVING and RESERVATION vehicles of the measured branch.
    await connection.execute(
      `insert into rental (id, tenant_id, workflow_id, state, branch_id, vehicle_id, customer_id, reserved_at,
         started_at, ended_at, start_position, created_at, updated_at)
       select nextval('rental_id_seq'), 'bench', 'bench-kpi-' || v.id || '-' || k,
         case when k = 3 then 'CANCELLED' when k = 4 then 'ENDED_NO_MOVEMENT' else 'ENDED' end,
         v.branch_id, v.id, c.id, t.ended - interval '40 minutes',
         case when k <> 3 then t.ended - interval '30 minutes' end, t.ended,
         jsonb_build_object('lat', v.latitude, 'lng', v.longitude), now(), now()
       from vehicle v
       cross join generate_series(0, 9) k
       cross join lateral (select now() - ((v.id * 7 + k * 131) % 1440) * interval '1 hour' as ended) t
       cross join lateral (select id from customer where tenant_id = 'bench' order by id limit 1) c
       where v.tenant_id = 'bench' and v.branch_id in (?, ?)`,
      [branchId, otherId],
    );
    await connection.execute(
      `insert into rental (id, tenant_id, workflow_id, state, branch_id, vehicle_id, customer_id, reserved_at,
         started_at, created_at, updated_at)
       select nextval('rental_id_seq'), 'bench', 'bench-kpi-open-' || v.id,
         case when v.rental_state = 'DRIVING' then 'ACTIVE' else 'RESERVATION' end,
         v.branch_id, v.id, c.id, now() - interval '20 minutes',
         case when v.rental_state = 'DRIVING' then now() - interval '10 minutes' end, now(), now()
       from (select v.*, row_number() over (order by v.id) as rn from vehicle v
              where v.tenant_id = 'bench' and v.branch_id = ? and v.rental_state in ('DRIVING', 'RESERVATION')) v
       join (select id, row_number() over (order by id) as rn from customer
              where tenant_id = 'bench' and email like 'kpi-%') c on c.rn = v.rn`,
      [branchId],
    );
    // Delivered bookings (one in five overdue) on AVAILABLE vehicles, and a finished one on each other one.
    await connection.execute(
      `insert into booking (id, tenant_id, workflow_id, state, customer_id, branch_id, end_branch_id,
         vehicle_category_id, vehicle_id, start_time, end_time, held_from, held_until, overdue_since,
         created_at, updated_at)
       select nextval('booking_id_seq'), 'bench', 'bench-kpi-booking-' || v.id,
         case when v.n < ?::int then 'DELIVERED' else 'SUCCESSFUL' end,
         (select id from customer where tenant_id = 'bench' order by id limit 1), v.branch_id, v.branch_id,
         v.category_id, v.id, now() - interval '1 hour' - (v.n / 500) * interval '1 day', now() + interval '2 hours' - (v.n / 500) * interval '1 day',
         now() - interval '1 hour' - (v.n / 500) * interval '1 day', now() + interval '2 hours' - (v.n / 500) * interval '1 day',
         case when v.n < ?::int and v.n % 5 = 0 then now() end, now(), now()
       from (select v.*, row_number() over (order by v.id) - 1 as n from vehicle v
              where v.tenant_id = 'bench' and v.branch_id = ? and v.rental_state = 'AVAILABLE') v`,
      [vehicleCount / 20, vehicleCount / 20, branchId],
    );
    await connection.execute(
      `insert into damage (tenant_id, vehicle_id, branch_id, part, reported_by, state, severity, created_at, updated_at)
       select 'bench', v.id, v.branch_id, 'deck', 'bench',
         (array['NEW', 'APPROVED', 'UNDER_REPAIR', 'REPAIRED', 'IGNORED'])[v.id % 5 + 1],
         (array['MINOR', 'MEDIUM', 'HIGH', 'CRITICAL'])[v.id % 4 + 1], now(), now()
       from vehicle v where v.tenant_id = 'bench' and v.id % 3 = 0`,
    );
    await connection.execute(
      `insert into task (tenant_id, title, priority, task_state, branch_id, vehicle_id, tags, created_at, updated_at)
       select 'bench', 'Task ' || v.id || '-' || k, 'NORMAL',
         (array['NEW', 'IN_PROGRESS', 'COMPLETED', 'COMPLETED', 'COMPLETED'])[(v.id + k) % 5 + 1],
         v.branch_id, v.id, '[]', now(), now()
       from vehicle v cross join generate_series(0, 1) k where v.tenant_id = 'bench'`,
    );
    await connection.execute('vacuum analyze');
    const counts = await connection.execute<{ name: string; rows: string }[]>(
      `select 'vehicles' as name, count(*) as rows from vehicle where tenant_id = 'bench'
       union all select 'rentals', count(*) from rental where tenant_id = 'bench'
       union all select 'bookings', count(*) from booking where tenant_id = 'bench'
       union all select 'damages', count(*) from damage where tenant_id = 'bench'
       union all select 'tasks', count(*) from task where tenant_id = 'bench'
       union all select 'areas', count(*) from area where tenant_id = 'bench'
       union all select 'stations', count(*) from station where tenant_id = 'bench'`,
    );
    console.log(
      `loaded in ${Date.now() - loadStarted} ms: ${counts.map((row) => `${Number(row.rows).toLocaleString('en-US')} ${row.name}`).join(', ')} (tenant)`,
    );

    const { origin, token, close: closeApi } = await serveApi({ orm, temporal, taskQueue: 'bench', tenant });
    const em = tenantEm(orm, tenant);
    const inputs = await kpiInputs(em, tenant, branchId, false);
    const cases: [string, readonly (typeof kpiTypes)[number][]][] = [
      ['all eighteen', kpiTypes],
      ...kpiTypes.map((type): [string, (typeof kpiTypes)[number][]] => [type, [type]]),
    ];
    const pool = await connection.getNativeClient();
    const rows: { name: string; api: LoadResult; bare: LoadResult; values: string }[] = [];
    for (const [name, types] of cases) {
      const statement = kpiStatement(types, inputs);
      const query = types.length === kpiTypes.length ? '' : types.map((type) => `&type=${type}`).join('');
      const url = `${origin}/v1/${tenant}/back/kpis?branchId=${branchId}${query}`;
      // The API answers what the bare statement answers.
      const answer = (await (await fetch(url, { headers: { authorization: `Bearer ${token}` } })).json()) as {
        type: string;
        value: number | null;
        total: number;
      }[];
      const bareAnswer = await runKpiStatement(em, statement);
      if (
        JSON.stringify(answer.map((kpi) => [kpi.type, kpi.value, kpi.total])) !==
        JSON.stringify(bareAnswer.map((kpi) => [kpi.type, kpi.value, kpi.total]))
      )
        throw new Error(`${name}: the API and the bare statement disagree`);
      if (explain) {
        // The plan of the statement with its parameters bound (as the prepared statement runs it).
        const plan = (await pool.query({
          text: `explain (analyze, buffers) ${statement.text}`,
          values: statement.values,
        })) as { rows: { 'QUERY PLAN': string }[] };
        console.log(`\n${name}:\n${plan.rows.map((line) => line['QUERY PLAN']).join('\n')}`);
      }
      const api = await loadInWorker({
        url,
        headers: { authorization: `Bearer ${token}` },
        seconds,
        connections,
      });
      // The floor: a bare node:http server running the same prepared statement on the same pool and writing
      // its rows as JSON, without authentication, validation, settings, categories or DTOs.
      const bare = http.createServer((_request, response) => {
        pool.query({ name: `bench_${name}`, text: statement.text, values: statement.values }).then(
          (result: { rows: unknown[] }) => {
            response.writeHead(200, { 'content-type': 'application/json' });
            response.end(JSON.stringify(result.rows));
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
      const values = answer.map((kpi) => `${kpi.value}/${kpi.total}`).join(' ');
      rows.push({ name, api, bare: floor, values });
    }

    console.log(
      `\n${connections} connections, ${seconds} s each, ${vehicleCount.toLocaleString('en-US')} vehicles in the branch ` +
        `(${(2 * vehicleCount).toLocaleString('en-US')} in the tenant)`,
    );
    const ms = (value: number) => value.toFixed(1).padStart(6);
    for (const { name, api, bare, values } of rows)
      console.log(
        `  ${name.padEnd(38)} API p50 ${ms(api.p50)} p99 ${ms(api.p99)} ms (${Math.round(api.requests / api.seconds)} req/s, ` +
          `errors ${api.errors})   bare SQL p50 ${ms(bare.p50)} p99 ${ms(bare.p99)} ms ` +
          `(${Math.round(bare.requests / bare.seconds)} req/s)   ratio p99 ${(api.p99 / Math.max(bare.p99, 1)).toFixed(2)}×` +
          (name === 'all eighteen' ? '' : `   value/total ${values}`),
      );
    await closeApi();
  } finally {
    await database.stop();
  }
}

await main();
