// GET /tasks?branchId= (the first page of 50, authenticated, validated against the OpenAPI document, with
// X-Total-Count) over a branch holding 100,000 tasks, without a filter and with the list's filters, beside
// the bare statements the list runs for the same page (captured from the ORM while the API answered it,
// executed with their parameters straight on the connection pool) in the same run: p50/p99 of each and
// the ratio. A second branch of the tenant holds another 100,000 tasks, so the branch condition filters.
// Usage: npm run bench:task-list [-- seconds connections tasks]   (defaults: 8 s, 10, 100000)
//        add `--explain` to print each statement's plan (EXPLAIN ANALYZE) first.
//
// The load generator runs in a worker thread so it does not share the server's event loop.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { LogContext, Logger } from '@mikro-orm/core';
import { loadInWorker, type LoadResult } from './http-load.js';

interface Statement {
  query: string;
  params: readonly unknown[];
}

async function main(): Promise<void> {
  process.env.LOG_LEVEL ??= 'warn';
  const args = process.argv.slice(2).filter((arg) => !arg.startsWith('--'));
  const explain = process.argv.includes('--explain');
  const seconds = Number(args[0] ?? 8);
  const connections = Number(args[1] ?? 10);
  const taskCount = Number(args[2] ?? 100_000);
  const { Client, Connection } = await import('@temporalio/client');
  const { serveApi, startBenchDatabase } = await import('./api-stack.js');
  const { connectOrm } = await import('../composition/orm.js');

  const database = await startBenchDatabase();
  const { orm, seed } = database;
  // The list never talks to Temporal; a lazy connection is never opened.
  const temporal = new Client({ connection: Connection.lazy({ address: '127.0.0.1:1' }) });
  const connection = orm.em.getConnection();
  try {
    const loadStarted = Date.now();
    // One statement: `taskCount` tasks in the measured branch and as many in another branch of the
    // tenant, interleaved as a tenant's branches create them over time. Titles name the vehicle, one task
    // in a hundred mentions brakes, twenty assignees (five first names × four last names), three states.
    await connection.execute(
      `insert into task (tenant_id, title, description, priority, task_state, branch_id, assigned_to,
         assigned_to_name, tags, created_by, created_at, updated_at, completed_at, completed_by)
       select 'bench',
         (array['Clean', 'Inspect', 'Charge', 'Repair', 'Relocate'])[n % 5 + 1] || ' vehicle BENCH-' || n,
         'Reported on round ' || n / 7 || case when n % 100 = 0 then ': brake pads worn' else ': routine' end,
         (array['LOW', 'NORMAL', 'HIGH', 'SEVERE'])[n % 4 + 1],
         (array['NEW', 'IN_PROGRESS', 'COMPLETED'])[n % 3 + 1],
         case when g % 2 = 0 then ?::int else ?::int end, 'crew-' || n % 20,
         (array['Jana', 'Tomas', 'Ana', 'Lukas', 'Mia'])[n % 5 + 1] || ' ' ||
           (array['Novak', 'Schmidt', 'Weber', 'Fischer'])[n / 5 % 4 + 1],
         '[]', 'bench', now() - g * interval '1 minute', now(),
         case when n % 3 = 2 then now() - g * interval '30 seconds' end,
         case when n % 3 = 2 then 'crew-' || n % 20 end
       from generate_series(0, 2 * ? - 1) g, lateral (select g / 2 + 1 as n) number`,
      [seed.branchId, seed.otherBranchId, taskCount],
    );
    // What autovacuum does after a bulk load a minute later in production: planner statistics and the
    // visibility map (index-only counts). The bench's runs are shorter than autovacuum's nap.
    await connection.execute('vacuum analyze task');
    console.log(`${(2 * taskCount).toLocaleString('en-US')} tasks loaded in ${Date.now() - loadStarted} ms`);

    const {
      origin,
      token,
      close: closeApi,
    } = await serveApi({
      orm,
      temporal,
      taskQueue: 'bench',
      tenant: 'bench',
    });

    // A second ORM on the same database that records the statements it runs, behind its own app: one
    // request of each case through it gives the list's bare statements with their parameters.
    let recording: Statement[] | undefined;
    const recorder: Logger = {
      log: () => undefined,
      error: () => undefined,
      warn: () => undefined,
      logQuery: (context: LogContext) => {
        if (recording && context.query)
          recording.push({ query: context.query, params: context.params ?? [] });
      },
      setDebugMode: () => undefined,
      isEnabled: (namespace) => namespace === 'query',
    };
    const recordingOrm = await connectOrm(orm.config.get('clientUrl')!, {
      debug: ['query', 'query-params'],
      loggerFactory: () => recorder,
      pool: { min: 0, max: 2 },
    });
    const recordingApi = await serveApi({ orm: recordingOrm, temporal, taskQueue: 'bench', tenant: 'bench' });

    const cases: [string, string][] = [
      ['no filter', ''],
      ['searchText=brake (1 %)', '&searchText=brake'],
      ['searchText=BENCH-99999 (1 row)', '&searchText=BENCH-99999'],
      ['assignedTo.firstLastName=novak (25 %)', '&assignedTo.firstLastName=novak'],
      [
        'assignedTo.firstLastName=Ana Weber (5 %)',
        `&assignedTo.firstLastName=${encodeURIComponent('Ana Weber')}`,
      ],
    ];
    const rows: { name: string; api: LoadResult; bare: LoadResult; statements: Statement[] }[] = [];
    for (const [name, filter] of cases) {
      const path = `/v1/bench/back/tasks?branchId=${seed.branchId}${filter}`;
      recording = [];
      const recorded = await fetch(`${recordingApi.origin}${path}`, {
        headers: { authorization: `Bearer ${recordingApi.token}` },
      });
      const statements = recording.filter((statement) => /\bfrom "task"/.test(statement.query));
      recording = undefined;
      if (recorded.status !== 200) throw new Error(`${name}: the list answered ${recorded.status}`);
      if (statements.length !== 2) throw new Error(`${name}: expected the page and the count statements`);
      if (explain)
        for (const statement of statements) {
          const plan = await connection.execute<{ 'QUERY PLAN': string }[]>(
            `explain (analyze, buffers) ${statement.query}`,
            [...statement.params],
          );
          console.log(`\n${name}: ${statement.query}\n${plan.map((line) => line['QUERY PLAN']).join('\n')}`);
        }

      const api = await loadInWorker({
        url: `${origin}${path}`,
        headers: { authorization: `Bearer ${token}` },
        seconds,
        connections,
      });
      // The floor: a bare node:http server running the same two statements on the same pool and writing
      // the page's rows as JSON, without authentication, validation, DTOs or logging.
      const bare = http.createServer((_request, response) => {
        Promise.all(statements.map((s) => connection.execute(s.query, [...s.params]))).then(
          ([page]) => {
            response.writeHead(200, { 'content-type': 'application/json' });
            response.end(JSON.stringify(page));
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
      rows.push({ name, api, bare: floor, statements });
    }

    console.log(
      `\n${connections} connections, ${seconds} s each, ${taskCount.toLocaleString('en-US')} tasks in the branch ` +
        `(${(2 * taskCount).toLocaleString('en-US')} in the tenant), first page of 50 newest`,
    );
    const ms = (value: number) => value.toFixed(1).padStart(6);
    for (const { name, api, bare } of rows) {
      console.log(
        `  ${name.padEnd(42)} API p50 ${ms(api.p50)} p99 ${ms(api.p99)} ms (${Math.round(api.requests / api.seconds)} req/s, ` +
          `errors ${api.errors})   bare SQL p50 ${ms(bare.p50)} p99 ${ms(bare.p99)} ms (${Math.round(bare.requests / bare.seconds)} req/s)   ` +
          `ratio p50 ${(api.p50 / Math.max(bare.p50, 1)).toFixed(2)}× p99 ${(api.p99 / Math.max(bare.p99, 1)).toFixed(2)}×`,
      );
    }
    console.log('\nstatements (the page, then the count):');
    for (const { name, statements } of rows.slice(0, 2))
      for (const statement of statements)
        console.log(`  ${name}: ${statement.query}  ${JSON.stringify(statement.params)}`);
    await recordingApi.close();
    await recordingOrm.close();
    await closeApi();
  } finally {
    await database.stop();
  }
}

await main();
