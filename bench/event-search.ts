// GET /events (authenticated, validated against the OpenAPI document, visibility, paging headers with the
// bounded count) over a tenant holding 10 million events spread over the last year (monthly partitions,
// loaded with one INSERT … SELECT generate_series), for the typical searches — one vehicle's events, one
// type in a time range, the newest page (a branch operator, and a tenant-wide reader) and one customer's
// events — beside the bare statements the search runs for the same page (the page and the bounded count,
// built by db/event-search.ts with the same visibility, executed as the same prepared statements on the
// same pool behind a bare node:http server) in the same run: p50/p99 of each and the ratio.
// Usage: npm run bench:events [-- seconds connections events]   (defaults: 8 s, 10, 10000000)
//        add `--explain` to print each statement's plan (EXPLAIN ANALYZE) first.
//
// The load generator runs in a worker thread so it does not share the server's event loop.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import { loadInWorker, type LoadResult } from './http-load.js';

async function main(): Promise<void> {
  process.env.LOG_LEVEL ??= 'warn';
  const args = process.argv.slice(2).filter((arg) => !arg.startsWith('--'));
  const explain = process.argv.includes('--explain');
  const seconds = Number(args[0] ?? 8);
  const connections = Number(args[1] ?? 10);
  const eventCount = Number(args[2] ?? 10_000_000);
  const { Client, Connection } = await import('@temporalio/client');
  const { serveApi, startBenchDatabase } = await import('./api-stack.js');
  const { ensureEventPartitions } = await import('../db/event-partitions.js');
  const { eventSearchStatements } = await import('../db/event-search.js');
  const { branchWithDescendants } = await import('../db/branches.js');
  const { tenantEm } = await import('../db/orm.js');
  const { eventFamilies, eventPartitionsAhead, EVENT_SEARCH_COUNT_LIMIT } =
    await import('../domain/events.js');
  const { ApiClient } = await import('../db/entities/ApiClient.js');
  const { Role } = await import('../db/entities/Role.js');
  const { RoleAssignment } = await import('../db/entities/RoleAssignment.js');
  const { Branch } = await import('../db/entities/Branch.js');
  const { Setting } = await import('../db/entities/Setting.js');
  const { hashSecret } = await import('../platform/secrets.js');

  const database = await startBenchDatabase();
  const { orm, seed } = database;
  const temporal = new Client({ connection: Connection.lazy({ address: '127.0.0.1:1' }) });
  const connection = orm.em.getConnection();
  const pool = await connection.getNativeClient();
  try {
    const now = new Date();
    const yearAgo = new Date(now.getTime() - 365 * 86_400_000);
    // The partitions of the last year (the migration made this month's and the next three).
    await ensureEventPartitions(orm.em.fork(), eventPartitionsAhead(yearAgo, 12));
    const loadStarted = Date.now();
    // One statement: `eventCount` events evenly over the last year, oldest first (ids follow time, as
    // they do when events are appended), mostly telemetry-driven vehicle events of 10,000 vehicles, with
    // rental events of 100,000 customers; 80 % in Mitte, 10 % in a booking station, 5 % in Spandau (the
    // operator's other root), 5 % of no branch (app events).
    await connection.execute(
      `insert into event (tenant_id, type, created_at, branch_id, vehicle_id, rental_id, customer_id, position, vehicle_position)
       select 'bench',
         (array['VEHICLE_BATTERY_LEVEL_LOW', 'VEHICLE_BATTERY_LEVEL_MEDIUM', 'VEHICLE_OFFLINE', 'VEHICLE_ONLINE',
                'VEHICLE_COMMAND_LOCK', 'VEHICLE_COMMAND_UNLOCK', 'RENTAL_START', 'RENTAL_END', 'RENTAL_PARK',
                'RENTAL_DRIVE', 'VEHICLE_SERVICE_STATE_V2_FUNCTIONAL', 'APP_START', 'APP_MAP_NAVIGATION',
                'VEHICLE_UPDATE', 'VEHICLE_LOCATE', 'VEHICLE_BATTERY_LEVEL_HIGH', 'VEHICLE_COMMAND_LOCATE',
                'RENTAL_RESERVATION', 'VEHICLE_FAULT_STATE_FALLEN_OVER', 'NOTIFICATION'])[g % 20 + 1],
         ?::timestamptz + (g::float8 / ?) * interval '365 days',
         case when g % 20 in (11, 12) then null
              when g % 100 < 80 then ?::int when g % 100 < 90 then ?::int else ?::int end,
         case when g % 20 in (11, 12, 19) then null else g % 10000 + 1 end,
         case when g % 20 between 6 and 9 or g % 20 = 17 then g / 20 + 1 end,
         case when g % 20 between 6 and 12 or g % 20 = 17 then g % 100000 + 1 end,
         jsonb_build_object('lat', 52.5 + (g % 1000) / 10000.0, 'lng', 13.4 + (g % 997) / 10000.0),
         case when g % 20 not in (11, 12) then jsonb_build_object('lat', 52.5 + (g % 991) / 10000.0, 'lng', 13.4) end
       from generate_series(0, ? - 1) g`,
      [
        yearAgo.toISOString(),
        eventCount,
        seed.branchId,
        seed.bookingStationIds[0],
        seed.otherBranchId,
        eventCount,
      ],
    );
    const loadedMs = Date.now() - loadStarted;
    // What autovacuum does after a bulk load: planner statistics and the visibility map.
    await connection.execute('vacuum analyze event');
    console.log(
      `${eventCount.toLocaleString('en-US')} events loaded in ${loadedMs} ms (vacuum analyze ${Date.now() - loadStarted - loadedMs} ms)`,
    );

    // The searches are rate limited (120 a minute by default): the bench's callers may search freely.
    const em = tenantEm(orm, 'bench');
    em.create(Setting, {
      key: 'rateLimits.search',
      name: 'Search rate limit',
      area: 'CORE',
      valueType: 'JSON',
      value: { points: 1_000_000, durationSeconds: 1 },
    });
    // A tenant-wide reader of every event (roles on both roots), beside the demo operator (Berlin only).
    const clientId = `bench-events-${randomBytes(3).toString('hex')}`;
    const role = em.create(Role, {
      name: 'Event reader',
      permissions: [
        'EVENT_READ',
        'RENTAL_EVENT_READ',
        'BOOKING_EVENT_READ',
        'VEHICLE_EVENT_READ',
        'USER_EVENT_READ',
        'POSITION_LOG_READ',
      ],
    });
    em.create(ApiClient, {
      clientId,
      name: clientId,
      secretHash: await hashSecret('secret'),
      scopes: ['back'],
    });
    for (const branchId of [seed.cityBranchId, seed.otherBranchId])
      em.create(RoleAssignment, {
        subjectType: 'API_CLIENT',
        subjectId: clientId,
        role,
        branch: em.getReference(Branch, branchId),
      });
    await em.flush();

    const {
      origin,
      token,
      close: closeApi,
    } = await serveApi({ orm, temporal, taskQueue: 'bench', tenant: 'bench' });
    const tokenReply = await fetch(`${origin}/v1/bench/auth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        grant_type: 'client_credentials',
        client_id: clientId,
        client_secret: 'secret',
      }),
    });
    const { access_token: readerToken } = (await tokenReply.json()) as { access_token: string };

    // What the API computes for each caller (api/routes/back/event-visibility.ts): the demo operator reads
    // every family on Berlin's subtree and events of no branch; the reader everything.
    const berlin = await branchWithDescendants(orm.em.fork(), 'bench', seed.cityBranchId);
    const operatorVisibility = {
      everything: false,
      groups: [{ branchIds: berlin.sort((a, b) => a - b), families: [...eventFamilies] }],
      branchless: [...eventFamilies],
    };
    const everything = { everything: true, groups: [], branchless: [] };
    const weekAgo = new Date(now.getTime() - 7 * 86_400_000);
    const vehicleId = 4242;
    const customerId = 4711;
    const sort = { field: 'createdAt' as const, direction: 'desc' as const };
    const cases = [
      {
        name: 'vehicle.id (one vehicle, ~1,000 events)',
        query: `vehicle.id=${vehicleId}`,
        criteria: { vehicleIds: [vehicleId] },
        token,
        visibility: operatorVisibility,
      },
      {
        name: 'type + last 7 days',
        query: `type=RENTAL_START&createdAt.from=${weekAgo.toISOString()}&createdAt.to=${now.toISOString()}`,
        criteria: { types: ['RENTAL_START'], from: weekAgo, to: now },
        token,
        visibility: operatorVisibility,
      },
      {
        name: 'newest page (branch operator)',
        query: '',
        criteria: {},
        token,
        visibility: operatorVisibility,
      },
      {
        name: 'newest page (tenant-wide reader)',
        query: '',
        criteria: {},
        token: readerToken,
        visibility: everything,
      },
      {
        name: 'guser.id (one customer)',
        query: `guser.id=${customerId}`,
        criteria: { customerIds: [customerId] },
        token,
        visibility: operatorVisibility,
      },
    ];

    const rows: { name: string; api: LoadResult; bare: LoadResult; total: string | null }[] = [];
    for (const { name, query, criteria, token: caseToken, visibility } of cases) {
      const url = `${origin}/v1/bench/back/events?size=50${query ? `&${query}` : ''}`;
      const probe = await fetch(url, { headers: { authorization: `Bearer ${caseToken}` } });
      if (probe.status !== 200)
        throw new Error(`${name}: the search answered ${probe.status}: ${await probe.text()}`);
      const total = `${probe.headers.get('x-total-count')}${probe.headers.get('x-total-count-exact') === 'false' ? '+' : ''}`;
      const statements = eventSearchStatements(
        'bench',
        { ...criteria, sort, limit: 50, offset: 0, countLimit: EVENT_SEARCH_COUNT_LIMIT },
        visibility,
      );
      const pageValues = [...statements.values, 50, 0];
      const countValues = [...statements.values, EVENT_SEARCH_COUNT_LIMIT];
      if (explain)
        for (const [text, values] of [
          [statements.page, pageValues],
          [statements.count, countValues],
        ] as const) {
          const plan = await pool.query(`explain (analyze, buffers) ${text}`, [...values]);
          console.log(
            `\n${name}: ${text}\n${plan.rows.map((line: { 'QUERY PLAN': string }) => line['QUERY PLAN']).join('\n')}`,
          );
        }
      const api = await loadInWorker({
        url,
        headers: { authorization: `Bearer ${caseToken}` },
        seconds,
        connections,
      });
      // The floor: the same two prepared statements on the same pool behind a bare node:http server,
      // writing the page's rows as JSON, without authentication, validation, visibility or DTOs.
      const bare = http.createServer((_request, response) => {
        Promise.all([
          pool.query({ name: `bench-page-${rows.length}`, text: statements.page, values: pageValues }),
          pool.query({ name: `bench-count-${rows.length}`, text: statements.count, values: countValues }),
        ]).then(
          ([page]) => {
            response.writeHead(200, { 'content-type': 'application/json' });
            response.end(JSON.stringify(page.rows));
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
      rows.push({ name, api, bare: floor, total });
    }

    // What the bounded count saves: counting every event of the newest page's search exactly.
    const exactStarted = Date.now();
    const [{ count }] = (
      await pool.query(`select count(*)::int as count from event where tenant_id = 'bench'`)
    ).rows;
    const exactMs = Date.now() - exactStarted;

    console.log(
      `\n${connections} connections, ${seconds} s each, ${eventCount.toLocaleString('en-US')} events over the last year ` +
        `in monthly partitions, first page of 50 newest with X-Total-Count (bounded at ${EVENT_SEARCH_COUNT_LIMIT.toLocaleString('en-US')})`,
    );
    const ms = (value: number) => value.toFixed(1).padStart(6);
    for (const { name, api, bare, total } of rows) {
      console.log(
        `  ${name.padEnd(36)} total ${String(total).padStart(7)}  API p50 ${ms(api.p50)} p99 ${ms(api.p99)} ms ` +
          `(${Math.round(api.requests / api.seconds)} req/s, errors ${api.errors})   bare SQL p50 ${ms(bare.p50)} p99 ${ms(bare.p99)} ms ` +
          `(${Math.round(bare.requests / bare.seconds)} req/s)   ratio p50 ${(api.p50 / Math.max(bare.p50, 1)).toFixed(2)}× ` +
          `p99 ${(api.p99 / Math.max(bare.p99, 1)).toFixed(2)}×`,
      );
    }
    console.log(
      `\nexact count of the tenant's ${Number(count).toLocaleString('en-US')} events: ${exactMs} ms (once)`,
    );
    await closeApi();
  } finally {
    await database.stop();
  }
}

await main();
