// The HTTP API of the benchmarks that drive fleetflow through it: the app on a free port over a running test
// backend, with the demo operator client signed in.
import type { AddressInfo } from 'node:net';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Client } from '@temporalio/client';
import { createApp } from '../api/app.js';
import { demoOperatorClient } from '../db/seed.js';
import type { TestBackend } from '../tests/support/stack.js';

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
}): Promise<{ origin: string; token: string; close(): Promise<void> }> {
  const app = createApp({
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
  });
  return { base: `${origin}/v1/${backend.seed.tenant}`, token, close };
}
