// Booking availability search for a station with 500 vehicles and 5,000 holding bookings in a 30-day
// window, over HTTP (authenticated, validated against the OpenAPI document) beside GET /health/live of the
// same server in the same run: GET /bookings/available-categories (one window) and GET /bookings/availability
// (seven availability days). Then the admission check itself (checkBookingAdmission in a rolled-back
// transaction, as booking creation runs it) in calls/s, sequentially and eight at a time.
// Usage: npm run bench:booking-availability [-- seconds connections]   (defaults: 10 s, 10)
//
// The load generator runs in a worker thread (bench/http-load.ts) so it does not share the server's event loop.
import { loadInWorker, type LoadResult } from './http-load.js';

await main();

async function main(): Promise<void> {
  process.env.LOG_LEVEL ??= 'warn';
  const seconds = Number(process.argv[2] ?? 10);
  const connections = Number(process.argv[3] ?? 10);
  const { Client, Connection } = await import('@temporalio/client');
  const { serveApi, startBenchDatabase } = await import('./api-stack.js');
  const { checkBookingAdmission, heldWindow } = await import('../db/booking-availability.js');
  const { isDomainError } = await import('../domain/errors.js');

  const database = await startBenchDatabase();
  const { orm, seed } = database;
  // Searches never talk to Temporal; a lazy connection is never opened.
  const temporal = new Client({ connection: Connection.lazy({ address: '127.0.0.1:1' }) });
  try {
    const [station, secondStation] = seed.bookingStationIds;
    const connection = orm.em.getConnection();
    const [{ id: carsId }] = await connection.execute<Array<{ id: number }>>(
      `select id from vehicle_category where tenant_id = 'bench' and name = 'Compact car'`,
    );
    const dayMs = 86_400_000;
    const windowStart = Math.ceil((Date.now() + 2 * dayMs) / dayMs) * dayMs;
    await connection.execute(`update booking_station set capacity = 1000 where tenant_id = 'bench'`);
    // 497 more cars at the station (three are seeded): 500.
    await connection.execute(
      `insert into vehicle (tenant_id, code, branch_id, category_id, rental_state, service_state_v2, battery_level,
         power_state, offline, locked, charging, tags, custom_properties, created_at, updated_at, virtual)
       select 'bench', 'BOOK-' || g, ?, ?, 'AVAILABLE', case when g % 50 = 0 then 'SERVICE_WORKSHOP' else 'FUNCTIONAL' end,
         'HIGH', 'OFF', true, true, false, '[]', '{}', now(), now(), false
       from generate_series(1, 497) g`,
      [station, carsId],
    );
    // 5,000 holding bookings in the 30 days: six delivered ones per car (never overlapping on a car: the
    // exclusion constraint), 2,000 without a vehicle yet, every tenth of those one-way to the second station.
    const bulk = (select: string, params: unknown[]) =>
      connection.execute(
        `insert into booking (id, tenant_id, workflow_id, state, customer_id, branch_id, end_branch_id,
           vehicle_category_id, vehicle_id, start_time, end_time, start_station_cooldown, end_station_cooldown,
           held_from, held_until, created_at, updated_at)
         select id, 'bench', 'booking:bench:' || id, state, ?, ?, end_branch_id, ?, vehicle_id, start_time, end_time,
           15, 30, start_time - interval '15 minutes', end_time + interval '30 minutes', now(), now()
         from (${select}) rows`,
        [seed.customerIds[0], station, carsId, ...params],
      );
    await bulk(
      `select nextval('booking_id_seq') as id, 'DELIVERED' as state, v.branch_id as end_branch_id, v.id as vehicle_id,
         to_timestamp(?::double precision / 1000) + (j * 5 * 24 + v.id % 24) * interval '1 hour' as start_time,
         to_timestamp(?::double precision / 1000) + (j * 5 * 24 + v.id % 24 + 20 + v.id % 30) * interval '1 hour' as end_time
       from vehicle v cross join generate_series(0, 5) j
       where v.tenant_id = 'bench' and v.branch_id = ?`,
      [windowStart, windowStart, station],
    );
    await bulk(
      `select nextval('booking_id_seq') as id, 'BOOKED' as state,
         case when g % 10 = 0 then ?::int else ?::int end as end_branch_id, null::int as vehicle_id,
         to_timestamp(?::double precision / 1000) + (g * 13 % 700) * interval '1 hour' as start_time,
         to_timestamp(?::double precision / 1000) + (g * 13 % 700 + 2 + g % 24) * interval '1 hour' as end_time
       from generate_series(1, 2000) g`,
      [secondStation, station, windowStart, windowStart],
    );
    await connection.execute('analyze');
    const [{ count }] = await connection.execute<Array<{ count: string }>>(
      `select count(*) as count from booking where tenant_id = 'bench' and held_from < ? and held_until > ?`,
      [new Date(windowStart + 30 * dayMs), new Date(windowStart)],
    );

    const {
      origin,
      token,
      close: closeApi,
    } = await serveApi({ orm, temporal, taskQueue: 'bench', tenant: 'bench' });
    const auth = { authorization: `Bearer ${token}` };
    const searchStart = new Date(windowStart + 13 * dayMs + 8 * 3_600_000).toISOString();
    const searchEnd = new Date(windowStart + 14 * dayMs + 14 * 3_600_000).toISOString();
    const categoriesUrl = `${origin}/v1/bench/back/bookings/available-categories?branchId=${station}&startTime=${searchStart}&endTime=${searchEnd}`;
    const firstDay = new Date(windowStart + 10 * dayMs).toISOString().slice(0, 10);
    const lastDay = new Date(windowStart + 16 * dayMs).toISOString().slice(0, 10);
    const daysUrl = `${origin}/v1/bench/back/bookings/availability?branchId=${station}&from=${firstDay}&to=${lastDay}`;
    for (const url of [categoriesUrl, daysUrl]) {
      const check = await fetch(url, { headers: auth });
      if (check.status !== 200) throw new Error(`${url} answers ${check.status}: ${await check.text()}`);
      console.log(`  ${url.replace(origin, '')}\n    -> ${(await check.text()).slice(0, 240)}`);
    }

    // BENCH_PROFILE=1: the parts of a search one by one, and the plan of the pool's holds query.
    if (process.env.BENCH_PROFILE) {
      const { bookableCategories, loadBookingStation } = await import('../db/booking-search.js');
      const { loadPool, loadStationFlows } = await import('../db/booking-availability.js');
      const em = orm.em.fork();
      em.setFilterParams('tenant', { tenantId: 'bench' });
      const stationRow = await loadBookingStation(em, station!);
      const span = { startMs: windowStart + 13 * dayMs, endMs: windowStart + 15 * dayMs };
      const time = async (name: string, work: () => Promise<unknown>) => {
        const begin = performance.now();
        for (let i = 0; i < 20; i += 1) await work();
        console.log(`  ${name}: ${((performance.now() - begin) / 20).toFixed(1)} ms`);
      };
      await time('bookableCategories', () =>
        bookableCategories(em.fork(), 'bench', stationRow, {
          withPricingOnly: true,
          withRentalRequirementsOnly: true,
          at: new Date(),
        }),
      );
      await time('loadPool 2 days', () =>
        loadPool(em.fork(), 'bench', { branchId: station!, vehicleCategoryId: carsId }, span),
      );
      await time('loadStationFlows', () => loadStationFlows(em.fork(), 'bench', secondStation!));
      const explain = await connection.execute<Array<Record<string, string>>>(
        `explain analyze select b.id, b.vehicle_id, b.held_from, b.held_until, b.start_time, b.end_time from booking b
          where b.tenant_id = ? and b.state in ('BOOKED', 'APPROVED', 'DELIVERED') and b.held_from < ? and b.held_until > ?
            and ((b.vehicle_id is null and b.branch_id = ? and b.vehicle_category_id = ?)
              or b.vehicle_id in (select v.id from vehicle v where v.tenant_id = ? and v.branch_id = ? and v.category_id = ?))`,
        ['bench', new Date(span.endMs), new Date(span.startMs), station, carsId, 'bench', station, carsId],
      );
      console.log(explain.map((row) => Object.values(row)[0]).join('\n'));
    }
    const health = await loadInWorker({ url: `${origin}/health/live`, headers: {}, seconds, connections });
    const categories = await loadInWorker({ url: categoriesUrl, headers: auth, seconds, connections });
    const days = await loadInWorker({ url: daysUrl, headers: auth, seconds, connections });
    const categoriesAlone = await loadInWorker({
      url: categoriesUrl,
      headers: auth,
      seconds,
      connections: 1,
    });
    const daysAlone = await loadInWorker({ url: daysUrl, headers: auth, seconds, connections: 1 });
    await closeApi();

    // The admission check as creation runs it: lock, conflicts, in a transaction (rolled back here).
    const rollback = new Error('rollback');
    let outcomes = { admitted: 0, refused: 0 };
    const admitOnce = async (index: number) => {
      const startMs = windowStart + ((index * 7919) % (29 * 24)) * 3_600_000;
      const window = { startMs, endMs: startMs + (2 + (index % 30)) * 3_600_000 };
      const endBranchId = index % 5 === 0 ? secondStation! : station!;
      try {
        await orm.em.fork().transactional(async (tx) => {
          tx.setFilterParams('tenant', { tenantId: 'bench' });
          const { held } = await heldWindow(tx, {
            ...window,
            branchId: station!,
            endBranchId,
            vehicleCategoryId: carsId,
          });
          try {
            await checkBookingAdmission(tx, {
              tenant: 'bench',
              branchId: station!,
              endBranchId,
              window,
              vehicleCategoryId: carsId,
              held,
            });
            outcomes.admitted += 1;
          } catch (error) {
            if (!isDomainError(error)) throw error;
            outcomes.refused += 1;
          }
          throw rollback;
        });
      } catch (error) {
        if (error !== rollback) throw error;
      }
    };
    const admissionRate = async (parallel: number) => {
      outcomes = { admitted: 0, refused: 0 };
      const latencies: number[] = [];
      const started = performance.now();
      const deadline = started + seconds * 1000;
      let next = 0;
      await Promise.all(
        Array.from({ length: parallel }, async () => {
          while (performance.now() < deadline) {
            const begin = performance.now();
            await admitOnce(next++);
            latencies.push(performance.now() - begin);
          }
        }),
      );
      latencies.sort((a, b) => a - b);
      const at = (q: number) =>
        latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * q))] ?? 0;
      return {
        perSecond: latencies.length / ((performance.now() - started) / 1000),
        p50: at(0.5),
        p99: at(0.99),
        ...outcomes,
      };
    };
    const sequential = await admissionRate(1);
    const eight = await admissionRate(8);

    const line = (name: string, r: LoadResult) =>
      `  ${name.padEnd(46)} ${Math.round(r.requests / r.seconds)
        .toLocaleString('en-US')
        .padStart(
          6,
        )} req/s   p50 ${r.p50.toFixed(1).padStart(6)} ms   p99 ${r.p99.toFixed(1).padStart(6)} ms   errors ${r.errors}`;
    console.log(
      `${connections} connections, ${seconds} s each; station with 500 cars, ${count} holding bookings in the 30-day window`,
    );
    console.log(line('GET /health/live (baseline)', health));
    console.log(line('GET /bookings/available-categories (1 window)', categories));
    console.log(line('GET /bookings/availability (7 days)', days));
    console.log(line('  the same, one connection: available-categories', categoriesAlone));
    console.log(line('  the same, one connection: availability', daysAlone));
    const admissionLine = (name: string, r: Awaited<ReturnType<typeof admissionRate>>) =>
      `  ${name.padEnd(46)} ${Math.round(r.perSecond).toLocaleString('en-US').padStart(6)} calls/s p50 ${r.p50
        .toFixed(1)
        .padStart(
          6,
        )} ms   p99 ${r.p99.toFixed(1).padStart(6)} ms   (${r.admitted} admitted, ${r.refused} refused)`;
    console.log(admissionLine('checkBookingAdmission, sequential', sequential));
    console.log(admissionLine('checkBookingAdmission, 8 at a time', eight));
  } finally {
    await database.stop();
  }
}
