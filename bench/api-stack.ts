// The HTTP API of the benchmarks that drive fleetflow through it: the app on a free port over a running test
// backend, with the demo operator client signed in.
import fs from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import type { Client } from '@temporalio/client';
import { migrateDatabase } from '../db/orm.js';
import { startEmbeddedPostgres } from '../platform/embedded-postgres.js';
import type { TestBackend } from '../tests/support/stack.js';
import { connectOrm } from '../composition/orm.js';
import { seedTenant } from '../composition/seed.js';
import { createApp } from '../composition/app.js';
import { demoOperatorClient } from '../db/seed/access.js';
import { Customer } from '../db/entities/Customer.js';
import { PaymentSource } from '../db/entities/PaymentSource.js';
import type { PaymentGateways } from '../platform/payment-gateway/port.js';

export interface BenchApi {
  /** `http://127.0.0.1:<port>/v1/<tenant>` */
  base: string;
  /** A bearer token of the demo operator client. */
  token: string;
  close(): Promise<void>;
}

/** The API on a free port: its origin, a bearer token of the demo operator client of `tenant`, and close. */
export async function serveApi(options: {
  orm: MikroORM;
  temporal: Client;
  taskQueue: string;
  tenant: string;
  paymentGateways?: PaymentGateways;
}): Promise<{ origin: string; token: string; close(): Promise<void> }> {
  const app = createApp({
    paymentGateways: options.paymentGateways,
    orm: options.orm,
    temporal: options.temporal,
    taskQueue: options.taskQueue,
    jwtSecret: 'bench',
    tokenTtlSeconds: 3600,
    readinessChecks: {},
  });
  const server = app.listen(0);
  await new Promise((resolve) => server.once('listening', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const tokenReply = await fetch(`${origin}/v1/${options.tenant}/auth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      grant_type: 'client_credentials',
      client_id: demoOperatorClient.clientId,
      client_secret: demoOperatorClient.clientSecret,
    }),
  });
  const { access_token: token } = (await tokenReply.json()) as { access_token: string };
  return { origin, token, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

/** Serves the API over `backend` on a free port and signs the demo operator client in. */
export async function startBenchApi(backend: TestBackend): Promise<BenchApi> {
  const { origin, token, close } = await serveApi({
    orm: backend.orm,
    temporal: backend.client,
    taskQueue: backend.taskQueue,
    tenant: backend.seed.tenant,
    paymentGateways: backend.paymentGateways,
  });
  return { base: `${origin}/v1/${backend.seed.tenant}`, token, close };
}

export interface BenchDatabase {
  orm: MikroORM;
  /** What the demo seed created for the `bench` tenant. */
  seed: Awaited<ReturnType<typeof seedTenant>>;
  /** Closes the ORM, stops PostgreSQL and removes its data directory. */
  stop(): Promise<void>;
}

/** A throwaway embedded PostgreSQL, migrated, with the demo seed as tenant `bench`. */
export async function startBenchDatabase(): Promise<BenchDatabase> {
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'fleetflow-bench-pg-'));
  await fs.chmod(dataDir, 0o755);
  const postgres = await startEmbeddedPostgres({ dataDir, port: 0, database: 'fleetflow_bench' });
  const stopPostgres = async () => {
    await postgres.stop();
    await fs.rm(dataDir, { recursive: true, force: true });
  };
  try {
    const orm = await connectOrm(postgres.url);
    try {
      await migrateDatabase(orm);
      const seed = await seedTenant(orm.em, 'bench', 'Bench Mobility');
      return {
        orm,
        seed,
        async stop() {
          await orm.close();
          await stopPostgres();
        },
      };
    } catch (error) {
      await orm.close();
      throw error;
    }
  } catch (error) {
    await stopPostgres();
    throw error;
  }
}

/**
 * A JSON call over one keep-alive agent with `node:http`: the lifecycle bench's client runs in the process
 * it measures, and `fetch` cost it about twice the CPU per call (web streams on top of the socket).
 */
export function jsonClient(base: string, token: string) {
  const agent = new http.Agent({ keepAlive: true });
  return (method: string, path: string, body?: unknown): Promise<{ status: number; json: unknown }> =>
    new Promise((resolve, reject) => {
      const payload = body === undefined ? undefined : JSON.stringify(body);
      const request = http.request(
        `${base}${path}`,
        {
          method,
          agent,
          headers: {
            authorization: `Bearer ${token}`,
            ...(payload === undefined
              ? {}
              : { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) }),
          },
        },
        (response) => {
          const chunks: Buffer[] = [];
          response.on('data', (chunk: Buffer) => chunks.push(chunk));
          response.on('end', () => {
            try {
              resolve({
                status: response.statusCode ?? 0,
                json: JSON.parse(Buffer.concat(chunks).toString()),
              });
            } catch (error) {
              reject(error as Error);
            }
          });
          response.on('error', reject);
        },
      );
      request.on('error', reject);
      request.end(payload);
    });
}

/**
 * A customer for a bench lane, with a card on file (the shipped start requirements ask for a payment
 * method, P104): a customer has one open rental at a time, so each concurrent lane needs its own.
 * `name` makes the email and card reference unique within the tenant.
 */
export async function benchCustomer(
  em: EntityManager,
  businessUnitId: number,
  name: string,
): Promise<number> {
  const customer = em.create(Customer, { email: `${name}@example.com`, firstName: 'Bench', lastName: name });
  em.create(PaymentSource, {
    customer,
    businessUnit: businessUnitId,
    type: 'CARD',
    provider: 'bench',
    providerReference: `pm_${name}`,
    label: 'Visa •••• 4242',
  });
  await em.flush();
  return customer.id;
}
