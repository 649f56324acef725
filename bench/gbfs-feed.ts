// GET /v1/{tenant}/gbfs/{systemId}/v3/vehicle_status.json for 10,000 vehicles under 200 concurrent
// pollers, beside a plain node:http server answering the same bytes in the same run (the floor of any
// server of that body on this machine): requests/s and latency percentiles, plus the same feed polled with
// If-None-Match (every answer a 304). The feed answers from its snapshot (api/feeds/gbfs-snapshots.ts):
// no query and no serialisation per request.
// Usage: npm run bench:gbfs [-- seconds connections vehicles]   (defaults: 10 s, 200, 10000)
//
// The load generator runs in a worker thread so it does not share the servers' event loop.
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
  serverCpuUs: number;
  postgresCpuUs: number;
}

async function measure(input: LoadInput): Promise<MeasuredLoad> {
  const threadBefore = threadCpu();
  const processBefore = cpuSnapshot();
  const result = await loadOnItsOwnThread(input);
  const spent = cpuSpent(processBefore, cpuSnapshot());
  const perRequest = (us: number) => us / Math.max(1, result.requests);
  return {
    ...result,
    serverCpuUs: perRequest(threadCpu() - threadBefore),
    postgresCpuUs: perRequest(spent.PostgreSQL * 1e6),
  };
}

async function main(): Promise<void> {
  process.env.LOG_LEVEL ??= 'warn';
  const seconds = Number(process.argv[2] ?? 10);
  const connections = Number(process.argv[3] ?? 200);
  const vehicleCount = Number(process.argv[4] ?? 10000);
  const { Client, Connection } = await import('@temporalio/client');
  const { serveApi, startBenchDatabase } = await import('./api-stack.js');
  const { demoFeedSystemId } = await import('../db/seed/feeds.js');

  const database = await startBenchDatabase();
  const { orm, seed } = database;
  // The feeds never talk to Temporal; a lazy connection is never opened.
  const temporal = new Client({ connection: Connection.lazy({ address: '127.0.0.1:1' }) });
  try {
    // A fleet in the published system's district: every category the seed maps, most ready, some reserved,
    // some flat or offline, all with a position and a recent report.
    await orm.em.getConnection().execute(
      `insert into vehicle (tenant_id, code, branch_id, category_id, rental_state, service_state_v2, battery_level,
         power_state, offline, locked, charging, tags, custom_properties, created_at, updated_at, virtual,
         state_of_charge, latitude, longitude, last_seen_at, last_report_at)
       select 'bench', 'GBFS-' || g, ?, (select category_id from feed_vehicle_type where tenant_id = 'bench'
                                          order by category_id offset (g % 3) limit 1),
         case when g % 20 = 0 then 'RESERVATION' else 'AVAILABLE' end, 'FUNCTIONAL', 'HIGH', 'OFF', g % 50 = 0,
         true, false, '[]', '{}', now(), now(), false, 20 + g % 80,
         52.45 + (g % 200) / 1000.0, 13.3 + (g % 300) / 1000.0, now(), now()
       from generate_series(1, ?) g`,
      [seed.branchId, vehicleCount],
    );
    await orm.em.getConnection().execute('vacuum analyze vehicle');
    const { origin, close: closeApi } = await serveApi({
      orm,
      temporal,
      taskQueue: 'bench',
      tenant: 'bench',
    });
    const feedUrl = `${origin}/v1/bench/gbfs/${demoFeedSystemId}/v3/vehicle_status.json`;
    const coldStart = performance.now();
    const first = await fetch(feedUrl, { headers: { 'accept-encoding': 'identity' } });
    const body = Buffer.from(await first.arrayBuffer());
    const coldMs = performance.now() - coldStart;
    const zipped = await new Promise<number>((resolve, reject) => {
      http
        .get(feedUrl, { headers: { 'accept-encoding': 'gzip' } }, (response) => {
          let size = 0;
          response.on('data', (chunk: Buffer) => (size += chunk.length));
          response.on('end', () => resolve(size));
        })
        .on('error', reject);
    });
    const etag = first.headers.get('etag') ?? '';
    const listed = (JSON.parse(body.toString()) as { data: { vehicles: unknown[] } }).data.vehicles.length;
    if (first.status !== 200 || listed < vehicleCount) throw new Error(`the feed lists ${listed} vehicles`);

    // The floor: a bare node:http server writing the same bytes with the same headers.
    const floorServer = http.createServer((_request, response) => {
      response.writeHead(200, {
        'content-type': 'application/json; charset=utf-8',
        'content-length': body.length,
        etag,
        'access-control-allow-origin': '*',
      });
      response.end(body);
    });
    await new Promise<void>((resolve) => floorServer.listen(0, '127.0.0.1', resolve));
    const floorUrl = `http://127.0.0.1:${(floorServer.address() as AddressInfo).port}/vehicle_status.json`;

    // Two rounds, alternating, so neither side always runs first on a machine whose load drifts.
    const floors: MeasuredLoad[] = [];
    const feeds: MeasuredLoad[] = [];
    for (let round = 0; round < 2; round += 1) {
      floors.push(await measure({ url: floorUrl, headers: {}, seconds, connections }));
      feeds.push(await measure({ url: feedUrl, headers: {}, seconds, connections }));
    }
    const conditional = await measure({
      url: feedUrl,
      headers: { 'if-none-match': etag },
      seconds,
      connections,
    });
    await new Promise((resolve) => floorServer.close(resolve));

    const us = (value: number) => Math.round(value).toString().padStart(6);
    const line = (name: string, r: MeasuredLoad, failures = 'errors') =>
      `  ${name.padEnd(44)} ${Math.round(r.requests / r.seconds)
        .toLocaleString('en-US')
        .padStart(
          7,
        )} req/s   p50 ${r.p50.toFixed(1).padStart(7)} ms   p99 ${r.p99.toFixed(1).padStart(7)} ms   ` +
      `CPU µs/req: server ${us(r.serverCpuUs)}, PostgreSQL ${us(r.postgresCpuUs)}   ${failures} ${r.errors}`;
    console.log(
      `${connections} connections, ${seconds} s each; vehicle_status.json lists ${listed} vehicles, ${(body.length / 1e6).toFixed(2)} MB`,
    );
    console.log(
      `  first request (builds the system's snapshot: every file of both versions): ${coldMs.toFixed(0)} ms`,
    );
    floors.forEach((floor, round) => {
      console.log(line(`floor: bare node:http, same bytes (round ${round + 1})`, floor));
      console.log(line(`GET vehicle_status.json, 200 (round ${round + 1})`, feeds[round]!));
    });
    // Not loaded with gzip: autocannon slows to a fraction when answers carry Content-Encoding (measured:
    // a bare server's 0.3 MB gzip body 81 req/s against 322 for 0.9 MB plain), so it would time the generator.
    console.log(`  gzip representation for pollers that accept it: ${(zipped / 1e6).toFixed(2)} MB`);
    // autocannon counts every answer outside 2xx: here each 304.
    console.log(line('GET vehicle_status.json, If-None-Match (304)', conditional, 'non-2xx (the 304s)'));
    console.log(
      `  feed / floor: ${feeds
        .map((feed, round) =>
          (feed.requests / feed.seconds / (floors[round]!.requests / floors[round]!.seconds)).toFixed(2),
        )
        .join('x, ')}x req/s by round`,
    );
    await closeApi();
  } finally {
    await database.stop();
  }
}

await main();
