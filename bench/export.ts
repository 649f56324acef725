// A 1,000,000-row export (the events report of one branch): the export's own path — `COPY (the report)
// TO STDOUT (FORMAT csv)` behind a csv-stringify header, piped into a multipart upload to the object
// store (versitygw) — beside the bare `COPY (the same query) TO STDOUT WITH (FORMAT csv, HEADER)` read
// to the end in the same run: rows per second and peak RSS growth of each (the goal: at least 0.8×
// COPY's rate, under 100 MB of growth). Then webhook deliveries per
// second against a local receiver: the signing and POST alone, and the whole delivery activity (its
// delivery row written and closed).
// Usage: npm run bench:export [-- rows deliveries]   (defaults: 1000000, 2000)
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';

/** Peak growth of RSS and of the V8 heap in use over a run, sampled every 10 ms. */
function rssSampler() {
  const start = process.memoryUsage();
  let peak = start.rss;
  let peakHeap = start.heapUsed;
  const sample = () => {
    const now = process.memoryUsage();
    peak = Math.max(peak, now.rss);
    peakHeap = Math.max(peakHeap, now.heapUsed);
  };
  const timer = setInterval(sample, 10);
  return {
    stop() {
      clearInterval(timer);
      sample();
      return { rssMb: (peak - start.rss) / 1024 / 1024, heapMb: (peakHeap - start.heapUsed) / 1024 / 1024 };
    },
  };
}

async function main(): Promise<void> {
  process.env.LOG_LEVEL ??= 'warn';
  // The receiver listens on 127.0.0.1, a target the sender refuses unless allowed.
  process.env.WEBHOOK_ALLOW_PRIVATE_TARGETS ??= 'true';
  const args = process.argv.slice(2);
  const rows = Number(args[0] ?? 1_000_000);
  const deliveries = Number(args[1] ?? 2_000);
  const { startThrowawayInfrastructure } = await import('../tests/support/infrastructure.js');
  const { connectOrm } = await import('../composition/orm.js');
  const { seedTenant } = await import('../composition/seed.js');
  const { tenantEm } = await import('../db/orm.js');
  const { streamReportCsv } = await import('../db/exports.js');
  const { reportCopySql } = await import('../db/export-queries.js');
  const { configuredObjectStore } = await import('../composition/object-store.js');
  const { to: copyTo } = await import('pg-copy-streams');
  const { webhookHeaders, postWebhook, newWebhookSecret } = await import('../platform/standard-webhooks.js');
  const { createExportActivities, newDownloadKey } = await import('../activities/exports.js');
  const { MockActivityEnvironment } = await import('@temporalio/testing');
  const { DataExport } = await import('../db/entities/DataExport.js');
  const { ExportRun } = await import('../db/entities/ExportRun.js');
  const { ExportWebhookAuthentication } = await import('../db/entities/ExportWebhookAuthentication.js');

  const infrastructure = await startThrowawayInfrastructure();
  const orm = await connectOrm(infrastructure.databaseUrl, { pool: { min: 0, max: 6 } });
  const receiver = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(204).end());
  });
  try {
    const seed = await seedTenant(orm.em, 'bench', 'Bench Mobility');
    const em = tenantEm(orm, seed.tenant);
    await em.execute(
      `insert into event (tenant_id, type, created_at, branch_id, vehicle_id, customer_id, admin_subject, description, payload)
       select 'bench', (array['RENTAL_START', 'RENTAL_END', 'VEHICLE_LOCK', 'TASK_CREATED'])[g % 4 + 1],
         now() - g * interval '1 second', ?, null, null, 'bench-operator', 'Bench event number ' || g,
         jsonb_build_object('n', g, 'note', 'x')
       from generate_series(1, ?) g`,
      [seed.branchId, rows],
    );
    await em.execute('vacuum analyze event');
    const parameters = {
      tenant: seed.tenant,
      branchIds: [seed.branchId],
      from: new Date(Date.now() - 400 * 86_400_000),
      to: new Date(Date.now() + 86_400_000),
    };
    const copy = async () => {
      const pool = (await em.getConnection().getNativeClient()) as unknown as {
        connect(): Promise<{ query<T>(q: T): T; escapeLiteral(value: string): string; release(): void }>;
      };
      const client = await pool.connect();
      // The export's own statement (its parameters written in as quoted literals), with PostgreSQL's header.
      const sql = reportCopySql('events', parameters, (value) => client.escapeLiteral(value)).replace(
        /to stdout \(format csv\)$/,
        'to stdout (format csv, header)',
      );
      const rss = rssSampler();
      const started = performance.now();
      let bytes = 0;
      try {
        await pipeline(
          client.query(copyTo(sql)),
          new Writable({
            write(chunk: Buffer, _encoding, done) {
              bytes += chunk.length;
              done();
            },
          }),
        );
      } finally {
        client.release();
      }
      const seconds = (performance.now() - started) / 1000;
      return { seconds, rowsPerSecond: rows / seconds, mb: bytes / 1024 / 1024, ...rss.stop(), bytes };
    };

    const exportTo = async (sink: 'object store' | 'discard') => {
      const store = configuredObjectStore();
      const rss = rssSampler();
      const started = performance.now();
      const result = await streamReportCsv(em, 'events', parameters, (csv) =>
        sink === 'object store'
          ? store.putStream('exports/bench/bench.csv', csv, { contentType: 'text/csv' })
          : (async () => {
              let size = 0;
              for await (const chunk of csv) size += (chunk as Buffer).length;
              return { size };
            })(),
      );
      const seconds = (performance.now() - started) / 1000;
      // The seed's own few events of the branch come on top.
      if (result.rows < rows) throw new Error(`exported ${result.rows} rows, expected ${rows}`);
      if (result.size !== expectedBytes)
        throw new Error(`exported ${result.size} bytes, COPY … (header) wrote ${expectedBytes}`);
      return {
        seconds,
        rowsPerSecond: rows / seconds,
        mb: result.size / 1024 / 1024,
        ...rss.stop(),
      };
    };

    const line = (
      name: string,
      r: { seconds: number; rowsPerSecond: number; mb: number; rssMb: number; heapMb: number },
    ) =>
      console.log(
        `${name.padEnd(52)} ${r.seconds.toFixed(2).padStart(6)} s  ${Math.round(r.rowsPerSecond).toLocaleString('en').padStart(9)} rows/s  ${r.mb.toFixed(1).padStart(6)} MB  peak RSS +${r.rssMb.toFixed(1)} MB (heap +${r.heapMb.toFixed(1)} MB)`,
      );
    console.log(`export of ${rows.toLocaleString('en')} event rows (warm-up run first)`);
    await copy();
    const copied = await copy();
    // The export writes the same bytes: csv-stringify's header line and PostgreSQL's rows.
    const expectedBytes = copied.bytes;
    line('COPY … TO STDOUT (csv), read and discarded', copied);
    // The process's first upload also loads and compiles the S3 client's code: shown apart, as the
    // COPY's warm-up run is not counted either.
    line('the export, first upload of the process', await exportTo('object store'));
    const discarded = await exportTo('discard');
    line('the export stream (COPY + header), discarded', discarded);
    const uploaded = await exportTo('object store');
    line('the export: COPY + header + multipart upload', uploaded);
    console.log(
      `ratio to COPY: ${(discarded.rowsPerSecond / copied.rowsPerSecond).toFixed(2)}× (discarded), ${(uploaded.rowsPerSecond / copied.rowsPerSecond).toFixed(2)}× (uploaded)`,
    );

    // Webhook deliveries against a local receiver.
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
    const secret = newWebhookSecret();
    const body = JSON.stringify({
      id: 1,
      queryId: 8,
      queryName: 'Events',
      exportUrl: url,
      expirationDate: new Date().toISOString(),
    });
    const concurrency = 20;
    const measure = async (name: string, one: (i: number) => Promise<void>) => {
      let next = 0;
      const started = performance.now();
      await Promise.all(
        Array.from({ length: concurrency }, async () => {
          while (next < deliveries) await one(next++);
        }),
      );
      const seconds = (performance.now() - started) / 1000;
      console.log(
        `${name.padEnd(44)} ${(deliveries / seconds).toFixed(0).padStart(6)} deliveries/s (${deliveries}, ${concurrency} at once)`,
      );
    };
    await measure('webhook: sign + POST', async (i) => {
      const headers = webhookHeaders({
        webhookId: `bench-${i}`,
        attempt: 1,
        body,
        authentication: { apiKey: 'bench-key', secret },
      });
      const result = await postWebhook(url, body, headers, 10_000);
      if (result.outcome !== 'DELIVERED') throw new Error(JSON.stringify(result));
    });
    // The whole activity: delivery row opened and closed around the signed POST.
    const definition = em.create(DataExport, {
      name: 'Bench',
      queryId: 8,
      branchIds: [seed.branchId],
      periodLastDays: 1,
      retentionDays: 1,
      webhookUrl: url,
      ownerSubjectType: 'API_CLIENT',
      ownerSubjectId: 'demo-operator',
      createdBy: 'bench',
    });
    em.create(ExportWebhookAuthentication, { enabled: true, apiKey: 'bench-key', signingSecret: secret });
    await em.flush();
    const run = em.create(ExportRun, {
      exportId: definition.id,
      queryId: 8,
      trigger: 'MANUAL',
      state: 'SUCCEEDED',
      workflowId: 'bench',
      createdBy: 'bench',
      downloadKey: newDownloadKey(),
      expiresAt: new Date(Date.now() + 86_400_000),
    });
    await em.flush();
    const activities = createExportActivities({
      orm,
      objectStore: configuredObjectStore(),
      mail: { send: async () => undefined },
      publicBaseUrl: 'http://localhost:3000',
    });
    const environment = new MockActivityEnvironment();
    await measure('webhook: the delivery activity (rows + POST)', async (i) => {
      const result = (await environment.run(activities.deliverExportWebhook, {
        tenant: seed.tenant,
        runId: run.id,
        url,
        attempt: 1,
        dispatchKey: `bench/${i}`,
        manual: false,
      })) as { outcome: string };
      if (result.outcome !== 'DELIVERED') throw new Error(JSON.stringify(result));
    });
  } finally {
    receiver.close();
    await orm.close();
    await infrastructure.stop();
  }
}

await main();
process.exit(0);
