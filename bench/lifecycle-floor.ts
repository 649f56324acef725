// The floor under the rental lifecycle bench: the least any implementation of this spec does per
// lifecycle on this machine, hand-written without the product's layers, so fleetflow's ratio to bare
// Temporal can be read against what is reachable at all. It runs the Temporal shape of
// bench/lifecycle-floor.workflows.ts (bare's shape plus the state search attribute, the reservation as a
// local activity and a payment workflow per invoice) and, by `parts`:
// - `sql`: each step's rows in PostgreSQL, through `pg` without an ORM, as few statements as the rows
//   allow: the reservation one, each vehicle step two (its command's record before the command is sent,
//   then the transition with its event and the command's answer), END's invoice, line and payment in its
//   transition's statement, the charge one (payment, attempt, invoice, event); every write keyed, so a
//   retried activity writes nothing twice;
// - `mqtt`: each vehicle step's command to a device over the broker (QoS 1, as fleetflow) and its reply;
// - `http`: each step one JSON call to a bare `node:http` server with a bearer token, as the API is called;
// - `reads`: the read before and the read after that each such call has to make (`FloorParts.reads`);
// - `obligations`: with all of the above, what the spec obliges beyond the rows, each in its least form
//   (bench/lifecycle-floor-obligations.ts: the token, the body's schema, the branch check, the customer's
//   facts, END's end requirement, price, invoice number, lines, ledger, events and outbox rows, the
//   gateway's book).
// Without `obligations`: no validation, no authorization, no pricing, no ledger, no answer beyond the state.
//
// bench/rental-lifecycle.ts runs it beside fleetflow and bare Temporal with BENCH_FLOOR=1.
import { createRequire } from 'node:module';
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { Client, Connection, WithStartWorkflowOperation } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import { DefaultLogger, NativeConnection, Worker, bundleWorkflowCode } from '@temporalio/worker';
import mqtt from 'mqtt';
import { activityIdempotencyKey } from '../activities/support.js';
import {
  createCallGuard,
  insideArea,
  obligationSchemaStatements,
  obligationStatements,
  priceOf,
} from './lifecycle-floor-obligations.js';
import { jsonClient } from './api-stack.js';
import { runLifecycles, type LifecycleBenchResult, type LifecycleOperation } from './lifecycle-stats.js';
import {
  FLOOR_PAYMENT_WORKFLOW_TYPE,
  FLOOR_RENTAL_WORKFLOW_TYPE,
  floorAwaitReservation,
  floorOperation,
  type FloorActivities,
  type FloorOperation,
} from './lifecycle-floor.workflows.js';

const workflowsPath = fileURLToPath(new URL('./lifecycle-floor.workflows.ts', import.meta.url));

/** What the floor's steps do besides Temporal's part. */
export interface FloorParts {
  sql: boolean;
  mqtt: boolean;
  http: boolean;
  /**
   * With `http` and `sql`: the two reads each call of the contract must make besides its writes, the
   * rental's branch before the operation (an operator's permission is branch-scoped) and the rental's
   * view after it (the answer the contract describes); a creation reads the vehicle before and the view
   * after.
   */
  reads?: boolean;
  /** With `sql`, `mqtt`, `http` and `reads`: the spec's obligations (lifecycle-floor-obligations.ts). */
  obligations?: boolean;
}

export interface LifecycleFloorOptions {
  /** host:port of the Temporal frontend. */
  address: string;
  databaseUrl: string;
  mqttUrl: string;
  durationMs: number;
  concurrency: number;
  parts: FloorParts;
}

/** The little of `pg` the floor uses (the project has no @types/pg). */
interface FloorPool {
  query(text: string, values?: unknown[]): Promise<{ rows: Record<string, unknown>[] }>;
  end(): Promise<void>;
}
const { Pool } = createRequire(import.meta.url)('pg') as {
  Pool: new (options: { connectionString: string; max: number }) => FloorPool;
};

/** The floor's tables: the rows a lifecycle writes, with the keys that keep retried writes single. */
const schemaStatements = (schema: string) => [
  `create schema ${schema}`,
  `create table ${schema}.vehicle (id int primary key, rental_state text, locked boolean not null,
     updated_at timestamptz not null)`,
  `create table ${schema}.rental (id bigint primary key, vehicle_id int not null references ${schema}.vehicle,
     branch_id int not null default 1, state text not null, started_at timestamptz, ended_at timestamptz, updated_at timestamptz not null)`,
  `create table ${schema}.event (id bigserial primary key, rental_id bigint not null, type text not null,
     idempotency_key text not null unique, created_at timestamptz not null)`,
  `create table ${schema}.vehicle_command (command_id text primary key, vehicle_id int not null,
     rental_id bigint not null, command text not null, status text not null, sent_at timestamptz not null,
     answered_at timestamptz)`,
  `create table ${schema}.invoice (id bigserial primary key, rental_id bigint not null unique,
     state text not null, total_gross numeric(12, 2) not null)`,
  `create table ${schema}.invoice_line (id bigserial primary key, invoice_id bigint not null,
     code text not null, gross numeric(12, 2) not null)`,
  `create table ${schema}.payment (id bigserial primary key, invoice_id bigint not null unique,
     state text not null, amount numeric(12, 2) not null, paid_at timestamptz)`,
  `create table ${schema}.payment_attempt (payment_id bigint not null, number int not null,
     state text not null, primary key (payment_id, number))`,
];

/** The statements of the steps, in the floor's schema. */
function floorStatements(s: string) {
  const event = (type: string) =>
    `ev as (insert into ${s}.event (rental_id, type, idempotency_key, created_at)
              values ($1, '${type}', $2, now()) on conflict (idempotency_key) do nothing returning id)`;
  return {
    vehicleBefore: `select id, rental_state, locked from ${s}.vehicle where id = $1`,
    rentalBefore: `select branch_id, state from ${s}.rental where id = $1`,
    view: `select r.id, r.branch_id, r.state, r.started_at, r.ended_at, v.id as vehicle_id, v.locked, v.rental_state
      from ${s}.rental r join ${s}.vehicle v on v.id = r.vehicle_id where r.id = $1`,
    reserve: `with ${event('RENTAL_RESERVATION')},
      r as (insert into ${s}.rental (id, vehicle_id, state, updated_at)
              select $1, $3, 'RESERVATION', now() from ev on conflict (id) do nothing returning vehicle_id)
      update ${s}.vehicle set rental_state = 'RESERVED', updated_at = now() where id = (select vehicle_id from r)`,
    command: `insert into ${s}.vehicle_command (command_id, vehicle_id, rental_id, command, status, sent_at)
      select $1, vehicle_id, id, $2, 'SENT', now() from ${s}.rental where id = $3
      on conflict (command_id) do nothing`,
    // START, PARK, DRIVE: $3 the rental's new state, $4 the vehicle's lock, $5 the command (END: `end`).
    transition: `with ${event('RENTAL_TRANSITION')},
      r as (update ${s}.rental set state = $3, updated_at = now(), started_at = coalesce(started_at, now())
            where id = $1 and exists (select 1 from ev) returning vehicle_id),
      c as (update ${s}.vehicle_command set status = 'OK', answered_at = now() where command_id = $5)
      update ${s}.vehicle set rental_state = 'RENTED', locked = $4, updated_at = now()
       where id = (select vehicle_id from r)`,
    end: `with ${event('RENTAL_END')},
      r as (update ${s}.rental set state = 'ENDED', updated_at = now(), ended_at = now()
            where id = $1 and exists (select 1 from ev) returning vehicle_id),
      c as (update ${s}.vehicle_command set status = 'OK', answered_at = now() where command_id = $3),
      v as (update ${s}.vehicle set rental_state = null, locked = true, updated_at = now()
            where id = (select vehicle_id from r)),
      i as (insert into ${s}.invoice (rental_id, state, total_gross) select $1, 'BILLED', 4.20 from ev
            returning id),
      l as (insert into ${s}.invoice_line (invoice_id, code, gross) select id, 'RENTAL', 4.20 from i)
      insert into ${s}.payment (invoice_id, state, amount) select id, 'OPEN', 4.20 from i`,
    charge: `with ${event('PAYMENT_PAID')},
      p as (update ${s}.payment set state = 'PAID', paid_at = now()
            where invoice_id = (select id from ${s}.invoice where rental_id = $1) and state = 'OPEN'
              and exists (select 1 from ev) returning id, invoice_id),
      a as (insert into ${s}.payment_attempt (payment_id, number, state) select id, 1, 'SUCCEEDED' from p)
      update ${s}.invoice set state = 'PAID' where id = (select invoice_id from p)`,
  };
}

/** One command client per worker: commands out on `<prefix>/<vehicle>/cmd`, replies matched by id. */
async function startCommandChannel(mqttUrl: string, prefix: string) {
  const client = await mqtt.connectAsync(mqttUrl, { clientId: `${prefix}-worker` });
  const pending = new Map<string, () => void>();
  client.on('message', (_topic, message) => {
    const { commandId } = JSON.parse(message.toString()) as { commandId: string };
    pending.get(commandId)?.();
    pending.delete(commandId);
  });
  await client.subscribeAsync(`${prefix}/+/reply`, { qos: 1 });
  // The devices: one client answering every command at once, as the simulator's vehicles do.
  const devices = await mqtt.connectAsync(mqttUrl, { clientId: `${prefix}-devices` });
  devices.on('message', (topic, message) => {
    const vehicle = topic.split('/')[1];
    const { commandId } = JSON.parse(message.toString()) as { commandId: string };
    devices.publish(`${prefix}/${vehicle}/reply`, JSON.stringify({ commandId, ok: true }), { qos: 1 });
  });
  await devices.subscribeAsync(`${prefix}/+/cmd`, { qos: 1 });
  return {
    send(vehicleId: number, commandId: string, command: string): Promise<void> {
      return new Promise((resolve, reject) => {
        pending.set(commandId, resolve);
        client.publish(
          `${prefix}/${vehicleId}/cmd`,
          JSON.stringify({ commandId, command }),
          { qos: 1 },
          (e) => {
            if (e) reject(e);
          },
        );
      });
    },
    async close() {
      await Promise.all([client.endAsync(), devices.endAsync()]);
    },
  };
}

const commandOf: Record<FloorOperation, string> = {
  START: 'UNLOCK',
  PARK: 'LOCK',
  DRIVE: 'UNLOCK',
  END: 'LOCK',
};
const stateOf: Record<Exclude<FloorOperation, 'END'>, string> = {
  START: 'ACTIVE',
  PARK: 'PARKING',
  DRIVE: 'ACTIVE',
};

/** A JSON answer of the floor's API. */
function answer(response: http.ServerResponse, status: number, body: unknown): void {
  const payload = JSON.stringify(body);
  response.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(payload),
  });
  response.end(payload);
}

/** Runs floor lifecycles, `concurrency` at a time for `durationMs`, and measures them. */
export async function runLifecycleFloor(options: LifecycleFloorOptions): Promise<LifecycleBenchResult> {
  const { parts } = options;
  const tag = randomBytes(3).toString('hex');
  const taskQueue = `floor-${tag}`;
  const schema = `bench_floor_${tag}`;
  const pool = parts.sql ? new Pool({ connectionString: options.databaseUrl, max: 10 }) : undefined;
  if (pool) {
    for (const statement of schemaStatements(schema)) await pool.query(statement);
    await pool.query(
      `insert into ${schema}.vehicle (id, locked, updated_at) select n, true, now() from generate_series(1, $1) n`,
      [options.concurrency],
    );
    if (parts.obligations)
      for (const statement of obligationSchemaStatements(schema, options.concurrency))
        await pool.query(statement);
  }
  const statements = floorStatements(schema);
  const obliged = parts.obligations ? obligationStatements(schema) : undefined;
  const commands = parts.mqtt ? await startCommandChannel(options.mqttUrl, `floor-${tag}`) : undefined;
  const workerConnection = await NativeConnection.connect({ address: options.address });
  const clientConnection = await Connection.connect({ address: options.address });
  const client = new Client({ connection: clientConnection });
  // A rental id carries its lane (one vehicle per lane, as the bench's lanes have): sequence × 1000 + lane.
  const vehicleOf = (rentalId: number) => (rentalId % 1000) + 1;
  const keyOf = activityIdempotencyKey;
  const activities: FloorActivities = {
    async reserve(rentalId) {
      if (obliged) {
        // The lane's customer is numbered as its vehicle.
        const { rows } = await pool!.query(obliged.reserve, [
          rentalId,
          keyOf(),
          vehicleOf(rentalId),
          vehicleOf(rentalId),
        ]);
        const facts = rows[0] ?? {};
        const failed = ['active', 'payable', 'free', 'clear'].find((fact) => facts[fact] !== true);
        if (failed) throw ApplicationFailure.nonRetryable(`customer not ${failed}`, 'R102');
      } else await pool?.query(statements.reserve, [rentalId, keyOf(), vehicleOf(rentalId)]);
    },
    async operate(rentalId, operation) {
      const key = keyOf();
      const commandId = `${key}/command`;
      // END's requirement and price come before its LOCK.
      const priced = operation === 'END' && obliged ? await endPrice(rentalId) : undefined;
      await pool?.query(statements.command, [commandId, commandOf[operation], rentalId]);
      await commands?.send(vehicleOf(rentalId), commandId, commandOf[operation]);
      if (operation === 'END') {
        if (obliged && priced) {
          const { customer, total, unlockLine, rideLine } = priced;
          await pool!.query(obliged.end, [
            rentalId,
            key,
            commandId,
            customer,
            ...total,
            ...unlockLine,
            ...rideLine,
          ]);
        } else await pool?.query(statements.end, [rentalId, key, commandId]);
        await client.workflow
          .start(FLOOR_PAYMENT_WORKFLOW_TYPE, {
            workflowId: `${taskQueue}:payment:${rentalId}`,
            taskQueue,
            args: [rentalId],
          })
          .catch((error: unknown) => {
            if ((error as Error).name !== 'WorkflowExecutionAlreadyStartedError') throw error;
          });
      } else {
        const locked = operation === 'PARK';
        await pool?.query(statements.transition, [rentalId, key, stateOf[operation], locked, commandId]);
      }
    },
    async charge(rentalId) {
      if (obliged) {
        const key = keyOf();
        await pool!.query(obliged.gatewayCharge, [rentalId, `${key}/gateway`]);
        await pool!.query(obliged.charged, [rentalId, key]);
      } else await pool?.query(statements.charge, [rentalId, keyOf()]);
    },
  };
  async function endPrice(rentalId: number) {
    const { rows } = await pool!.query(obliged!.endInputs, [rentalId]);
    const inputs = rows[0] as unknown as Parameters<typeof priceOf>[0] & {
      customer_id: number;
      lat: number;
      lon: number;
    };
    if (!insideArea(inputs.lat, inputs.lon))
      throw ApplicationFailure.nonRetryable('the vehicle is outside the business area', 'R301');
    return { customer: inputs.customer_id, ...priceOf(inputs) };
  }
  const worker = await Worker.create({
    connection: workerConnection,
    taskQueue,
    workflowBundle: await bundleWorkflowCode({ workflowsPath, logger: new DefaultLogger('ERROR') }),
    activities,
    maxConcurrentActivityTaskExecutions: 100, // as createFleetflowWorker
  });
  const running = worker.run();

  let sequence = 0;
  const create = async (lane: number) => {
    sequence += 1;
    const rentalId = sequence * 1000 + lane;
    await client.workflow.executeUpdateWithStart(floorAwaitReservation, {
      startWorkflowOperation: new WithStartWorkflowOperation(FLOOR_RENTAL_WORKFLOW_TYPE, {
        workflowId: `${taskQueue}:rental:${rentalId}`,
        taskQueue,
        args: [rentalId],
        workflowIdConflictPolicy: 'FAIL',
      }),
    });
    return rentalId;
  };
  const operate = (rentalId: number, operation: LifecycleOperation) =>
    client.workflow
      .getHandle(`${taskQueue}:rental:${rentalId}`)
      .executeUpdate(floorOperation, { args: [operation] });

  // The API: a bearer token, a JSON body, the workflow call, the state (or with `reads` the view) as the
  // answer; with `obligations` the token is a signed one and the call passes the guard first.
  const guard = parts.obligations ? await createCallGuard() : undefined;
  const token = guard?.token ?? randomBytes(16).toString('hex');
  const read = (text: string, id: number) =>
    parts.reads && pool ? pool.query(text, [id]).then(({ rows }) => rows[0]) : Promise.resolve(undefined);
  const serve = async (
    url: string,
    authorization: string | undefined,
    body: { operationType?: LifecycleOperation; lane?: number; vehicleId?: number },
  ): Promise<{ status: number; body: unknown }> => {
    const match = /^\/rentals\/(\d+)\/operation$/.exec(url);
    const admitted = guard ? await guard.admit(authorization, match ? 'operate' : 'create', body) : undefined;
    if (admitted && 'status' in admitted) return admitted;
    if (!guard && authorization !== `Bearer ${token}`) return { status: 401, body: { errorCode: 'AUTH001' } };
    if (match) {
      const id = Number(match[1]);
      const before = await read(statements.rentalBefore, id);
      if (admitted && !admitted.branches.includes(Number(before?.branch_id)))
        return guard!.refuse(admitted.traceId, 404, 'R001', 'no such rental');
      const state = await operate(id, body.operationType!);
      return { status: 200, body: (await read(statements.view, id)) ?? { id, state } };
    }
    const lane = body.vehicleId === undefined ? (body.lane ?? 0) : body.vehicleId - 1;
    await read(statements.vehicleBefore, lane + 1);
    const id = await create(lane);
    return { status: 201, body: (await read(statements.view, id)) ?? { id, state: 'RESERVATION' } };
  };
  const server = parts.http
    ? http.createServer((request, response) => {
        const startedAt = process.hrtime.bigint();
        const chunks: Buffer[] = [];
        request.on('data', (chunk: Buffer) => chunks.push(chunk));
        request.on('end', () => {
          let body: Parameters<typeof serve>[2];
          try {
            body = JSON.parse(Buffer.concat(chunks).toString() || '{}') as typeof body;
          } catch {
            return answer(response, 400, { errorCode: 'AUTH001' });
          }
          serve(request.url ?? '', request.headers.authorization, body).then(
            (result) => {
              // Labelled by route, not by URL, as the API's metrics are (a rental id is no label).
              guard?.observe(
                /\/operation$/.test(request.url ?? '') ? 'operate' : 'create',
                result.status,
                startedAt,
              );
              answer(response, result.status, result.body);
            },
            (error: unknown) => answer(response, 409, { errorCode: 'R201', userMessage: String(error) }),
          );
        });
      })
    : undefined;
  if (server) await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const request = server
    ? jsonClient(`http://127.0.0.1:${(server.address() as AddressInfo).port}`, token)
    : undefined;
  const call = async (path: string, body: unknown) => {
    const { status, json } = await request!('POST', path, body);
    if (status >= 400) throw new Error(`POST ${path}: ${status} ${JSON.stringify(json)}`);
    return json as { id: number };
  };

  try {
    return await runLifecycles(
      {
        create: async (lane) =>
          request
            ? (
                await call(
                  '/rentals',
                  parts.obligations ? { guserId: lane + 1, vehicleId: lane + 1 } : { lane },
                )
              ).id
            : create(lane),
        operate: async (id, operation) => {
          if (request) await call(`/rentals/${id}/operation`, { operationType: operation });
          else await operate(Number(id), operation);
        },
      },
      options.durationMs,
      options.concurrency,
    );
  } finally {
    server?.close();
    worker.shutdown();
    await running;
    await commands?.close();
    await clientConnection.close();
    await workerConnection.close();
    if (pool) {
      await pool.query(`drop schema ${schema} cascade`);
      await pool.end();
    }
  }
}
