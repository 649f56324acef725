// Commands to a vehicle: one command (SYNC waits for its answer, ASYNC only ensures it is sent or, asked
// to, queues it for an offline vehicle), the deprecated per-vehicle form and the debug console, each run by
// the vehicle command workflow (workflows/fleet.ts), whose id allows one command per vehicle at a time.
import { randomUUID } from 'node:crypto';
import { Type, type Static } from '@sinclair/typebox';
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import { IotModule } from '../../../db/entities/IotModule.js';
import { Vehicle } from '../../../db/entities/Vehicle.js';
import { VehicleCommand } from '../../../db/entities/VehicleCommand.js';
import type { EntityManager } from '../../../db/orm.js';
import { resolvedCategories } from '../../../db/categories.js';
import { DomainError } from '../../../domain/errors.js';
import {
  commandProcesses,
  commandRefusal,
  commandReturns,
  predefinedVehicleCommands,
  type PredefinedVehicleCommand,
  type VehicleOperationStep,
} from '../../../domain/vehicle.js';
import {
  VEHICLE_COMMAND_WORKFLOW_TYPE,
  vehicleCommandWorkflowStartOptions,
} from '../../../workflows/fleet.messages.js';
import type { ExecutedVehicleCommand } from '../../../activities/fleet.js';
import { debugCommandName } from '../../../devices/protocol.js';
import { defineRoute, ok, type RouteContext } from '../../kernel/route.js';
import { component, Id, Int, Nullable, Str, StringEnum, Dictionary } from '../../kernel/schemas.js';
import { IdParams, onTheVehicle, vehicleById, vehicleByQuery } from './vehicle-representation.js';

const commandTags = ['Vehicle Commands'];

const CommandRequest = component(
  'VehicleCommandRequest',
  Type.Object(
    {
      command: StringEnum(predefinedVehicleCommands),
      customCommandName: Type.Optional(Str(100, { minLength: 1, pattern: '^[A-Za-z0-9_.-]+$' })),
      namedParameters: Type.Optional(
        Dictionary(
          Str(64),
          Type.Union([Str(500), Type.Number({ minimum: -1e9, maximum: 1e9 }), Type.Boolean()]),
          {
            maxProperties: 20,
          },
        ),
      ),
      queueIfOffline: Type.Optional(
        Type.Boolean({
          description: 'ASYNC only: queue the command for an offline vehicle instead of refusing it.',
        }),
      ),
      queueExpiresInSeconds: Type.Optional(Int(10, 7 * 86400, { default: 3600 })),
    },
    {
      additionalProperties: false,
      description:
        'A predefined command, or CUSTOM_COMMAND with customCommandName and namedParameters. Parameters of predefined commands (e.g. SET_MAX_SPEED maxSpeedKmh) go in namedParameters.',
    },
  ),
);

const CommandResponse = component(
  'VehicleCommandResponse',
  Type.Object(
    {
      commandId: Type.String(),
      vehicleId: Id(),
      command: StringEnum(predefinedVehicleCommands),
      status: Nullable(StringEnum(['OK', 'SENT', 'QUEUED'] as const)),
      data: Nullable(Type.Record(Type.String(), Type.Unknown())),
    },
    {
      additionalProperties: false,
      description: 'status and data are null when `return` does not ask for them.',
    },
  ),
);

const commandQuery = {
  process: StringEnum(commandProcesses),
  return: StringEnum(commandReturns),
};

/**
 * Whether a command may go to the vehicle: configured for its category (A100) and its integration client
 * (IoT module) not retired (V410).
 */
export async function assertCommandable(
  em: EntityManager,
  vehicle: Vehicle,
  command: PredefinedVehicleCommand,
): Promise<void> {
  const configuration = (await resolvedCategories(em)).get(vehicle.category.id)?.configuration ?? {};
  if (commandRefusal(command, configuration))
    throw new DomainError('A100', `${command} is not configured for this vehicle's category`);
  await assertIntegrationActive(em, vehicle);
}

/** Refuses a vehicle whose integration client (IoT module) is retired (V410). */
async function assertIntegrationActive(em: EntityManager, vehicle: Vehicle): Promise<void> {
  const module = await em.findOne(IotModule, { vehicleId: vehicle.id });
  if (module?.state === 'RETIRED')
    throw new DomainError(
      'V410',
      `the vehicle's integration client (module ${module.externalId}) is retired`,
    );
}

/**
 * Refuses a command that would have to reach an offline vehicle now (409 V103): it is not sent, so the
 * caller learns what happened instead of a timeout that never ran. `instead` tells how to deliver it later.
 */
export function assertOnline(
  vehicle: Vehicle,
  instead = 'send it ASYNC with queueIfOffline to deliver it when the vehicle is back',
): void {
  if (vehicle.offline)
    throw new DomainError('V103', `vehicle ${vehicle.id} is offline: the command was not sent; ${instead}`);
}

/**
 * Sends a command: checks the category's command list, the module (retired: 410) and connectivity
 * (an offline vehicle: SYNC, or ASYNC without queueIfOffline, is refused with 409 V103; ASYNC with it
 * queues the command), then runs the vehicle command workflow, whose id allows one running command per
 * vehicle (409 V409 otherwise).
 */
async function executeCommand(
  ctx: RouteContext<
    unknown,
    { process: 'SYNC' | 'ASYNC'; return: 'DATA' | 'STATUS' | 'NONE' },
    Static<typeof CommandRequest>
  >,
  vehicle: Vehicle,
): Promise<Static<typeof CommandResponse>> {
  const { em, body, query, tenant } = ctx;
  if ((body.command === 'CUSTOM_COMMAND') !== (body.customCommandName !== undefined))
    throw new DomainError('0022', 'customCommandName is given with CUSTOM_COMMAND and only then');
  await assertCommandable(em, vehicle, body.command);
  const params: Record<string, unknown> | undefined =
    body.command === 'CUSTOM_COMMAND'
      ? { name: body.customCommandName, parameters: body.namedParameters ?? {} }
      : body.namedParameters;
  const commandId = `cmd:${tenant}:${vehicle.id}:${randomUUID()}`;
  const shape = (status: 'OK' | 'SENT' | 'QUEUED', data: Record<string, unknown> | null) => ({
    commandId,
    vehicleId: vehicle.id,
    command: body.command,
    status: query.return === 'NONE' ? null : status,
    data: query.return === 'DATA' ? data : null,
  });
  if (vehicle.offline) {
    if (query.process === 'SYNC' || !body.queueIfOffline) assertOnline(vehicle);
    em.create(VehicleCommand, {
      commandId,
      vehicleId: vehicle.id,
      command: body.command,
      params: params ?? null,
      status: 'QUEUED',
      requestedBy: ctx.actor,
      expiresAt: new Date(Date.now() + (body.queueExpiresInSeconds ?? 3600) * 1000),
    });
    ctx.recordEvent({
      type: `VEHICLE_COMMAND_${body.command}`,
      branchId: vehicle.branch.id,
      vehicleId: vehicle.id,
      description: 'QUEUED until the vehicle reconnects',
      payload: { commandId, status: 'QUEUED' },
    });
    return shape('QUEUED', null);
  }
  if (query.process === 'ASYNC') {
    await startOperation(ctx, vehicle, commandId, body.command, [
      { type: 'COMMAND', command: body.command, params },
    ]);
    return shape('SENT', null);
  }
  const result = await runOperation(ctx, vehicle, commandId, body.command, [
    { type: 'COMMAND', command: body.command, params },
  ]);
  return shape('OK', result.data);
}

/** The workflow start options of an operation on a vehicle. */
function operationOptions(
  ctx: RouteContext,
  vehicle: Vehicle,
  commandId: string,
  label: string,
  steps: VehicleOperationStep[],
) {
  return vehicleCommandWorkflowStartOptions(
    {
      tenant: ctx.tenant,
      branchId: vehicle.branch.id,
      vehicleId: vehicle.id,
      commandId,
      label,
      steps,
      requestedBy: ctx.actor,
    },
    ctx.services.taskQueue,
  );
}

/** A start refused because the vehicle's workflow id is taken means a command is in progress (V409). */
function inProgress(error: unknown): unknown {
  return error instanceof WorkflowExecutionAlreadyStartedError
    ? new DomainError('V409', 'a command to this vehicle is in progress')
    : error;
}

/** Starts an operation and returns once Temporal holds it (ASYNC: it will be sent). */
export async function startOperation(
  ctx: RouteContext,
  vehicle: Vehicle,
  commandId: string,
  label: string,
  steps: VehicleOperationStep[],
): Promise<void> {
  try {
    await ctx.services.temporal.workflow.start(
      VEHICLE_COMMAND_WORKFLOW_TYPE,
      operationOptions(ctx, vehicle, commandId, label, steps),
    );
  } catch (error) {
    throw inProgress(error);
  }
}

/** Runs an operation and waits for its outcome (SYNC). */
export async function runOperation(
  ctx: RouteContext,
  vehicle: Vehicle,
  commandId: string,
  label: string,
  steps: VehicleOperationStep[],
): Promise<ExecutedVehicleCommand> {
  try {
    return await ctx.services.temporal.workflow.execute<(input: unknown) => Promise<ExecutedVehicleCommand>>(
      VEHICLE_COMMAND_WORKFLOW_TYPE,
      operationOptions(ctx, vehicle, commandId, label, steps),
    );
  } catch (error) {
    throw inProgress(error);
  }
}

const commandErrors = ['V404', 'V103', 'V409', 'V410', 'V502', 'V504', 'A100', '0022'] as const;

export const executeVehicleCommand = defineRoute({
  operationId: 'executeVehicleCommand',
  method: 'post',
  path: '/vehicles/execute-command',
  interface: 'back',
  summary: 'Send a command to a vehicle (SYNC waits for its answer, ASYNC only ensures it is sent)',
  description:
    '409 V409: a command to this vehicle is in progress; 502 V502: the vehicle refused or reported an error (the body failureReason carries its code and description, also on the vehicle activity); 504 V504: the vehicle did not answer in time; 409 V103: the vehicle is offline, so the command was not sent (SYNC, or ASYNC without queueIfOffline; ASYNC with queueIfOffline queues it and answers QUEUED); 410 V410: its integration client is retired.',
  tags: commandTags,
  query: Type.Object({
    ...commandQuery,
    vehicleId: Type.Optional(Id()),
    vehicleCode: Type.Optional(Str(64, { minLength: 1 })),
  }),
  body: CommandRequest,
  access: {
    permission: 'VEHICLE_COMMAND',
    branchOf: 'the vehicle',
    branch: async (ctx) => (await vehicleByQuery(ctx)).branch.id,
  },
  responses: { 200: { description: 'The command outcome', schema: CommandResponse } },
  errors: commandErrors,
  async handler(ctx) {
    return ok(await executeCommand(ctx, await vehicleByQuery(ctx)));
  },
});

export const legacyVehicleCommand = defineRoute({
  operationId: 'legacyVehicleCommand',
  method: 'post',
  path: '/vehicles/{id}/command',
  interface: 'back',
  summary: 'Send a command to a vehicle (deprecated)',
  tags: commandTags,
  params: IdParams,
  query: Type.Object(commandQuery),
  body: CommandRequest,
  access: onTheVehicle('VEHICLE_COMMAND'),
  responses: { 200: { description: 'The command outcome', schema: CommandResponse } },
  errors: commandErrors,
  deprecated: { replacement: 'POST /vehicles/execute-command' },
  async handler(ctx) {
    return ok(await executeCommand(ctx, await vehicleById(ctx)));
  },
});

export const debugVehicleCommand = defineRoute({
  operationId: 'debugVehicleCommand',
  method: 'post',
  path: '/vehicles/{id}/command/debug',
  interface: 'back',
  summary: "Send one line to the vehicle module's debug console; answers the console's text output",
  description:
    'The body is the console line as text/plain (1–1000 characters); it goes to the device as the DEBUG command (docs/device-protocol.md) through the per-vehicle command workflow, so it waits for the answer like a SYNC command: 409 V409 while another command runs, 502 V502 when the module refuses or has no debug console, 504 V504 when it does not answer in time, 409 V103 when the vehicle is offline (nothing is sent), 410 V410 when its integration client is retired. Recorded as a VEHICLE_COMMAND_DEBUG event with the command on the vehicle activity.',
  tags: commandTags,
  params: IdParams,
  body: Str(1000, { minLength: 1, description: 'One line for the debug console, e.g. `status`.' }),
  bodyContentTypes: ['text/plain'],
  access: onTheVehicle('VEHICLE_DEBUG'),
  responses: { 200: { description: "The console's output", schema: Type.String() } },
  errors: ['V404', 'V103', 'V409', 'V410', 'V502', 'V504'],
  async handler(ctx) {
    const vehicle = await vehicleById(ctx);
    await assertIntegrationActive(ctx.em, vehicle);
    assertOnline(vehicle, 'a console line cannot be queued: retry when the vehicle is back online');
    const commandId = `cmd:${ctx.tenant}:${vehicle.id}:${randomUUID()}`;
    const result = await runOperation(ctx, vehicle, commandId, debugCommandName, [
      { type: 'COMMAND', command: debugCommandName, params: { input: ctx.body } },
    ]);
    const output = result.data?.output;
    return ok(typeof output === 'string' ? output : JSON.stringify(result.data ?? null));
  },
});

// Two lists: the documents list paths in the order the fleet registers routes (composition/domains/fleet.ts),
// the command to a vehicle named in the query among the static paths, those under `/vehicles/{id}` after.
export const vehicleCommandRoutes = [executeVehicleCommand];
export const vehicleCommandByIdRoutes = [legacyVehicleCommand, debugVehicleCommand];
