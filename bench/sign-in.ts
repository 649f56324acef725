// Customer sign-in and customer search through the real HTTP app and PostgreSQL (no Temporal or MQTT
// needed): password sign-in throughput and latency with the chosen scrypt parameters, beside a baseline
// measured in the same run (an authenticated token-only request: GET /front/account with a customer
// token), and customer search p99 over 100,000 customers.
// Usage: npm run bench:sign-in [-- signIns concurrency searches]   (defaults: 200, 8, 300)
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { Client } from '@temporalio/client';
import { migrateDatabase, tenantEm } from '../db/orm.js';
import { Setting } from '../db/entities/Setting.js';
import { rateLimitSettingKey } from '../domain/rate-limits.js';
import { demoCustomer } from '../db/seed/customers.js';
import { startEmbeddedPostgres } from '../platform/embedded-postgres.js';
import { hashPassword, passwordHashParameters } from '../platform/passwords.js';
import { percentile } from './lifecycle-stats.js';
import { connectOrm } from '../composition/orm.js';
import { seedTenant } from '../composition/seed.js';
import { createApp } from '../composition/app.js';
import { demoOperatorClient } from '../db/seed/access.js';

process.env.LOG_LEVEL ??= 'warn';
const signIns = Number(process.argv[2] ?? 200);
const concurrency = Number(process.argv[3] ?? 8);
const searches = Number(process.argv[4] ?? 300);
const population = 100_000;

const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'fleetflow-bench-sign-in-'));
const pg = await startEmbeddedPostgres({ dataDir, port: 0 });
const orm = await connectOrm(pg.url);
try {
  await migrateDatabase(orm);
  const seed = await seedTenant(orm.em, 'bench', 'Bench Mobility');
  const app = createApp({
    orm,
    // Never connected: no route of this benchmark starts a workflow.
    temporal: new Client(),
    taskQueue: 'bench',
    jwtSecret: 'bench-secret-of-at-least-32-characters!',
    tokenTtlSeconds: 3600,
    readinessChecks: {},
    mail: { send: async () => undefined },
    sms: { send: async () => undefined },
  });
  const server = app.listen(0);
  await new Promise((resolve) => server.once('listening', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/bench`;

  const post = (url: string, body: unknown) =>
    fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });

  /** Runs `count` calls, `lanes` at a time; latencies in ms and calls per second. */
  async function measure(count: number, lanes: number, once: (index: number) => Promise<Response>) {
    const latencies: number[] = [];
    let next = 0;
    const started = performance.now();
    await Promise.all(
      Array.from({ length: lanes }, async () => {
        while (next < count) {
          const index = next++;
          const t0 = performance.now();
          const response = await once(index);
          if (!response.ok) throw new Error(`call ${index}: ${response.status} ${await response.text()}`);
          await response.arrayBuffer();
          latencies.push(performance.now() - t0);
        }
      }),
    );
    const seconds = (performance.now() - started) / 1000;
    return { perSecond: count / seconds, p50: percentile(latencies, 50), p99: percentile(latencies, 99) };
  }
  const line = (name: string, r: { perSecond: number; p50: number; p99: number }) =>
    console.log(
      `${name.padEnd(44)} ${r.perSecond.toFixed(1).padStart(8)} /s   p50 ${r.p50.toFixed(1).padStart(7)} ms   p99 ${r.p99.toFixed(1).padStart(7)} ms`,
    );

  const hashes: number[] = [];
  for (let i = 0; i < 10; i++) {
    const t0 = performance.now();
    await hashPassword('correct horse battery 1');
    hashes.push(performance.now() - t0);
  }

  const session = (await (await post(`${base}/auth/customer/sign-in`, demoCustomer)).json()) as {
    access_token: string;
  };
  const account = () =>
    fetch(`${base}/front/account`, { headers: { authorization: `Bearer ${session.access_token}` } });
  await measure(50, concurrency, account);
  const baseline = await measure(signIns * 5, concurrency, account);
  const signIn = await measure(signIns, concurrency, () =>
    post(`${base}/auth/customer/sign-in`, demoCustomer),
  );

  // 100,000 customers in one statement (birth dates over 60 years, a quarter with settled sign-up).
  const t0 = performance.now();
  await orm.em.getConnection().execute(
    `insert into customer (tenant_id, email, first_name, last_name, phone_number, birth_date, signup_settled, created_at, tags)
     select 'bench', 'customer' || n || '@bench.example', 'First' || (n % 5000), 'Last' || (n % 7919), '+49170' || lpad(n::text, 7, '0'),
            date '1950-01-01' + (n % 21900), n % 4 = 0, now(), '[]'
       from generate_series(1, ${population}) as n`,
  );
  await orm.em.getConnection().execute('analyze customer');
  const loadSeconds = (performance.now() - t0) / 1000;
  const token = (
    (await (
      await post(`${base}/auth/token`, {
        grant_type: 'client_credentials',
        ...{ client_id: demoOperatorClient.clientId, client_secret: demoOperatorClient.clientSecret },
      })
    ).json()) as { access_token: string }
  ).access_token;
  // The search rate limit (docs/observability.md) would answer 429 past 120 a minute: the bench measures
  // the search, so its tenant lifts the limit.
  const settings = tenantEm(orm, seed.tenant);
  settings.create(Setting, {
    key: rateLimitSettingKey('search'),
    name: 'Search rate limit',
    area: 'CORE',
    valueType: 'JSON',
    branchIds: [0],
    value: { points: 1_000_000, durationSeconds: 60 },
  });
  await settings.flush();
  const search = (query: string) =>
    fetch(`${base}/back/customers?branchId=${seed.branchId}&${query}`, {
      headers: { authorization: `Bearer ${token}` },
    });
  await measure(30, concurrency, () => search('size=20'));
  const byEmail = await measure(searches, concurrency, (i) =>
    search(`email=customer${(i * 7919) % population}@bench.example`),
  );
  const byRange = await measure(searches, concurrency, (i) =>
    search(`birthDateFrom=${1950 + (i % 50)}-01-01&birthDateTo=${1950 + (i % 50)}-01-31&signupSettled=true`),
  );
  const byText = await measure(searches, concurrency, (i) => search(`searchText=Last${(i * 13) % 7919}`));
  const page = await measure(searches, concurrency, (i) => search(`page=${i % 100}&size=50`));

  console.log(`
fleetflow customer identity bench (${os.cpus().length} cores, concurrency ${concurrency})
scrypt N=${passwordHashParameters.N} r=${passwordHashParameters.r} p=${passwordHashParameters.p}: one hash p50 ${percentile(hashes, 50).toFixed(1)} ms (single call)
`);
  line('baseline: GET /front/account (token only)', baseline);
  line('POST /auth/customer/sign-in (password)', signIn);
  console.log(
    `  sign-in costs ${(baseline.perSecond / signIn.perSecond).toFixed(1)}x the baseline per request\n`,
  );
  console.log(
    `customer search over ${population.toLocaleString('en')} customers (loaded in ${loadSeconds.toFixed(1)} s):`,
  );
  line('  exact e-mail', byEmail);
  line('  birth date month + signupSettled', byRange);
  line('  searchText (name prefix)', byText);
  line('  plain paging (page 0-99, size 50)', page);
  server.close();
} finally {
  await orm.close();
  await pg.stop();
  await fs.rm(dataDir, { recursive: true, force: true });
}
