import { ApplicationFailure } from '@temporalio/activity';
import type { MikroORM } from '@mikro-orm/postgresql';
import { inTenantTransaction, tenantEm, type EntityManager } from '../db/orm.js';
import { eventRecorded, recordEvent, type EventSink } from '../db/events.js';
import { categoryConfiguration } from '../db/categories.js';
import {
  applyVehicleReport,
  batteryLevelEventType,
  powerStates,
  serviceStateEventType,
  type PowerState,
  type ReportedVehicleFields,
  type VehicleOperationStep,
  type VehicleReport,
} from '../domain/vehicle.js';
import { Vehicle } from '../db/entities/Vehicle.js';
import { VehicleCommand } from '../db/entities/VehicleCommand.js';
import { VehicleCommandTimeoutError, type VehicleCommandClient } from '../devices/command-client.js';
import { parseEquipmentSensors, type VehicleCommandName } from '../devices/protocol.js';
import { activityIdempotencyKey, withHeartbeat } from './support.js';

export interface FleetActivityDeps {
  orm: MikroORM;
  vehicleCommands: VehicleCommandClient;
  /** Reply timeout when the category sets none. */
  vehicleCommandTimeoutMs: number;
}

export interface SendVehicleCommandInput {
  tenant: string;
  rentalId?: number;
  vehicleId: number;
  command: VehicleCommandName;
  requestedBy: string;
  timeoutMs?: number;
}

export interface VehicleCommandOutcome {
  status: 'OK';
  /** What the vehicle reported about itself in its reply (apply it with `applyReportToVehicle`). */
  report: VehicleReport;
}

/** The report carried by a command reply's `data`, keeping only well-typed fields. */
function reportFromReply(data: Record<string, unknown> | undefined | null, at: string): VehicleReport {
  const report: VehicleReport = { at: Number.isNaN(Date.parse(at)) ? new Date().toISOString() : at };
  if (!data) return report;
  const position = data.position as { lat?: unknown; lng?: unknown } | undefined;
  if (position && typeof position.lat === 'number' && typeof position.lng === 'number')
    report.position = { lat: position.lat, lng: position.lng };
  if (typeof data.odometerKm === 'number') report.odometerKm = data.odometerKm;
  if (typeof data.stateOfCharge === 'number') report.stateOfCharge = data.stateOfCharge;
  if (typeof data.locked === 'boolean') report.locked = data.locked;
  if (typeof data.charging === 'boolean') report.charging = data.charging;
  if (typeof data.maxSpeedKmh === 'number') report.maxSpeedKmh = data.maxSpeedKmh;
  const sensors = parseEquipmentSensors(data.sensors);
  if (sensors) report.sensors = sensors;
  if (powerStates.includes(data.powerState as PowerState)) report.powerState = data.powerState as PowerState;
  return report;
}

/**
 * A vehicle as a report changes it: the entity is one, and so is the plain row the rental transition reads
 * under its lock.
 */
export type ReportableVehicle = ReportedVehicleFields & {
  id: number;
  branch: { id: number };
  category: { id: number };
};

/**
 * Applies a device report to a vehicle row inside the caller's transaction: used by activities that
 * record what a command reply said, and by the telemetry ingestor for every telemetry message. Returns
 * whether the report applied (an older report than the row holds does not).
 */
export async function applyReportToVehicle(
  em: EntityManager,
  vehicle: ReportableVehicle,
  report: VehicleReport,
  events: EventSink = (fields) => void recordEvent(em, fields),
): Promise<boolean> {
  const before = vehicle.batteryLevel;
  const applied = applyVehicleReport(vehicle, report, await categoryConfiguration(em, vehicle.category.id));
  if (applied && vehicle.batteryLevel !== before) recordBatteryLevelChange(events, vehicle, report.at);
  return applied;
}

/** A VEHICLE_BATTERY_LEVEL_* event for a vehicle whose battery level just changed. */
function recordBatteryLevelChange(
  events: EventSink,
  vehicle: Pick<ReportableVehicle, 'id' | 'branch' | 'batteryLevel' | 'stateOfCharge'>,
  at: string | Date,
): void {
  events({
    type: batteryLevelEventType(vehicle.batteryLevel),
    createdAt: new Date(at),
    branchId: vehicle.branch.id,
    vehicleId: vehicle.id,
    payload: { stateOfCharge: vehicle.stateOfCharge ?? null },
  });
}

/**
 * Writes a command's outcome (its row, its VEHICLE_COMMAND_ event and, for an OK reply, what the vehicle
 * reported) inside the caller's transaction; callers that apply the report themselves pass
 * `applyReport: false`.
 */
export async function recordCommandOutcomeIn(
  em: EntityManager,
  input: Pick<SendVehicleCommandInput, 'tenant' | 'vehicleId' | 'command' | 'rentalId' | 'requestedBy'>,
  commandId: string,
  outcome: {
    status: VehicleCommand['status'];
    failureReason?: VehicleCommand['failureReason'];
    data?: Record<string, unknown>;
    replyAt?: string;
    applyReport?: boolean;
  },
  events: EventSink = (fields) => void recordEvent(em, fields),
): Promise<void> {
  const { status, failureReason, data } = outcome;
  const answeredAt = new Date();
  // Plain SQL: the rental's every transition runs this, and the ORM's update cost more than the statement.
  await em.execute(
    `update vehicle_command set status = ?, failure_reason = ?::jsonb, data = ?::jsonb, answered_at = ?
      where tenant_id = ? and command_id = ?`,
    [
      status,
      failureReason ? JSON.stringify(failureReason) : null,
      data ? JSON.stringify(data) : null,
      status === 'TIMEOUT' ? null : answeredAt,
      input.tenant,
      commandId,
    ],
    'run',
  );
  events({
    type: `VEHICLE_COMMAND_${input.command}`,
    createdAt: answeredAt,
    vehicleId: input.vehicleId,
    rentalId: input.rentalId ?? null,
    adminSubject: input.requestedBy,
    description:
      status === 'OK'
        ? 'OK'
        : `${status}${failureReason?.description ? `: ${failureReason.description}` : ''}`,
    payload: { commandId, status, failureReason: failureReason ?? null },
  });
  if (status === 'OK' && data && outcome.applyReport !== false) {
    const vehicle = await em.findOne(Vehicle, input.vehicleId);
    if (vehicle)
      await applyReportToVehicle(
        em,
        vehicle,
        reportFromReply(data, outcome.replyAt ?? answeredAt.toISOString()),
        events,
      );
  }
}

async function recordCommandOutcome(
  orm: MikroORM,
  input: Pick<SendVehicleCommandInput, 'tenant' | 'vehicleId' | 'command' | 'rentalId' | 'requestedBy'>,
  commandId: string,
  status: VehicleCommand['status'],
  failureReason: VehicleCommand['failureReason'] | undefined,
  data: Record<string, unknown> | undefined,
  replyAt?: string,
): Promise<void> {
  await inTenantTransaction(orm, input.tenant, (em) =>
    recordCommandOutcomeIn(em, input, commandId, { status, failureReason, data, replyAt }),
  );
}

/** A command of a rental step that the vehicle answered OK; its outcome is still to be recorded. */
export interface AnsweredStepCommand {
  commandId: string;
  report: VehicleReport;
  /** The reply data to record with `recordCommandOutcomeIn`; absent when an earlier attempt recorded it. */
  unrecorded?: { data: Record<string, unknown> | undefined; replyAt: string };
}

/** What execute-command asks the device to do; `commandId` is chosen once, so every retry reuses it. */
export interface ExecuteVehicleCommandInput {
  tenant: string;
  vehicleId: number;
  command: VehicleCommandName;
  commandId: string;
  params?: Record<string, unknown>;
  requestedBy: string;
}

/** A platform-side step of a configured operation (an activity). */
export interface VehicleActivityStepInput {
  tenant: string;
  vehicleId: number;
  step: Exclude<VehicleOperationStep, { type: 'COMMAND' }>;
  /** Stable across retries; the step's event carries it, so it is applied once. */
  idempotencyKey: string;
  requestedBy: string;
  label: string;
}

/** The device's answer to an executed command. */
export interface ExecutedVehicleCommand {
  commandId: string;
  status: 'OK';
  data: Record<string, unknown> | null;
}

/** The V502 failure of a refused or failed command, with the device's failureReason as details. */
function commandFailure(command: string, status: string, failureReason: VehicleCommand['failureReason']) {
  const reason = [failureReason?.code, failureReason?.description].filter(Boolean).join(': ') || status;
  return ApplicationFailure.create({
    type: 'V502',
    message: `vehicle ${status === 'REFUSED' ? 'refused' : 'failed'} ${command}: ${reason}`,
    nonRetryable: true,
    details: [{ failureReason: failureReason ?? null }],
  });
}

/**
 * Command delivery shared by the fleet's activities and the rental's transition step: sending under an
 * idempotency key, waiting for the answer, recording timeouts and refusals.
 */
export function createCommandDelivery({ orm, vehicleCommands, vehicleCommandTimeoutMs }: FleetActivityDeps) {
  /**
   * Sends one attempt of a command and records its outcome: a timeout is a retryable V504, a refusal or
   * error a final V502 carrying the device's failureReason; resolves with an OK reply.
   */
  async function deliver(
    input: Pick<SendVehicleCommandInput, 'tenant' | 'vehicleId' | 'command' | 'rentalId' | 'requestedBy'>,
    commandId: string,
    timeoutMs: number,
    params: Record<string, unknown> | undefined,
    recordOk = true,
  ) {
    let reply;
    try {
      reply = await vehicleCommands.send({
        tenant: input.tenant,
        vehicleId: String(input.vehicleId),
        command: input.command,
        commandId,
        params,
        timeoutMs,
      });
    } catch (error) {
      if (!(error instanceof VehicleCommandTimeoutError)) throw error;
      await recordCommandOutcome(orm, input, commandId, 'TIMEOUT', undefined, undefined);
      throw ApplicationFailure.create({
        type: 'V504',
        message: `vehicle did not answer ${input.command} within ${timeoutMs} ms`,
      });
    }
    if (reply.status !== 'OK' || recordOk)
      await recordCommandOutcome(
        orm,
        input,
        commandId,
        reply.status,
        reply.failureReason,
        reply.data,
        reply.at,
      );
    if (reply.status !== 'OK') throw commandFailure(input.command, reply.status, reply.failureReason);
    return reply;
  }

  /**
   * Sends a command under the running activity's idempotency key and waits for an OK answer (a retry
   * re-sends the same id; an already-answered command is not sent again). With `recordOk` false the OK
   * outcome is left to the caller, who records it in its own transaction.
   */
  async function sendStepCommand(
    input: SendVehicleCommandInput,
    recordOk: boolean,
  ): Promise<AnsweredStepCommand> {
    const commandId = activityIdempotencyKey();
    const timeoutMs = input.timeoutMs ?? vehicleCommandTimeoutMs;
    // One statement records the command before it is sent; a retry of this activity finds it instead.
    const em = tenantEm(orm, input.tenant);
    const recorded = await em.execute<{ affectedRows: number }>(
      `insert into vehicle_command (tenant_id, command_id, vehicle_id, command, status, rental_id, requested_by, sent_at)
       values (?, ?, ?, ?, 'SENT', ?, ?, ?) on conflict (tenant_id, command_id) do nothing`,
      [
        input.tenant,
        commandId,
        input.vehicleId,
        input.command,
        input.rentalId ?? null,
        input.requestedBy,
        new Date(),
      ],
      'run',
    );
    const previous = recorded.affectedRows ? undefined : await em.findOne(VehicleCommand, { commandId });
    if (previous?.status === 'OK')
      return {
        commandId,
        report: reportFromReply(previous.data, (previous.answeredAt ?? new Date()).toISOString()),
      };

    const reply = await withHeartbeat(() => deliver(input, commandId, timeoutMs, undefined, recordOk));
    return {
      commandId,
      report: reportFromReply(reply.data, reply.at),
      unrecorded: recordOk ? undefined : { data: reply.data, replyAt: reply.at },
    };
  }

  return { deliver, sendStepCommand };
}

/** Vehicle I/O: the fleet's activities, called by the rental workflow and every later domain that commands vehicles. */
export function createFleetActivities(deps: FleetActivityDeps) {
  const { orm, vehicleCommandTimeoutMs } = deps;
  const { deliver, sendStepCommand } = createCommandDelivery(deps);

  return {
    /**
     * Sends one command to a vehicle and waits for its answer. The command id is the activity's
     * idempotency key: a retry re-sends the same id (the device answers without acting twice) and an
     * already-answered command is not sent again. A timeout is retryable (V504); a refusal is not (V502).
     */
    async sendVehicleCommand(input: SendVehicleCommandInput): Promise<VehicleCommandOutcome> {
      const answered = await sendStepCommand(input, true);
      return { status: 'OK', report: answered.report };
    },

    /**
     * Applies one platform-side step (service state or tag) of a configured operation, with its event,
     * in one transaction; a retry finds the event by its idempotency key and does nothing.
     */
    async applyVehicleActivityStep(input: VehicleActivityStepInput): Promise<void> {
      await inTenantTransaction(orm, input.tenant, async (em) => {
        if (await eventRecorded(em, input.idempotencyKey)) return;
        const vehicle = await em.findOneOrFail(Vehicle, input.vehicleId);
        const { step } = input;
        let type = 'VEHICLE_UPDATE';
        if (step.type === 'SET_SERVICE_STATE') {
          type = serviceStateEventType(step.serviceStateV2);
          vehicle.serviceStateV2 = step.serviceStateV2;
        } else {
          type = 'VEHICLE_TAGS_UPDATE';
          vehicle.tags =
            step.type === 'ADD_TAG'
              ? [...new Set([...vehicle.tags, step.tag])]
              : vehicle.tags.filter((tag) => tag !== step.tag);
        }
        recordEvent(em, {
          type,
          branchId: vehicle.branch.id,
          vehicleId: vehicle.id,
          adminSubject: input.requestedBy,
          description: input.label,
          payload: { step },
          idempotencyKey: input.idempotencyKey,
        });
      });
    },

    /**
     * Runs one operator command (execute-command) on the device. The command id comes from the API and
     * is the device's idempotency key: a retried attempt re-sends the same id, which the device answers
     * from its reply cache without acting twice; an answered command is never sent again.
     */
    async executeVehicleCommand(input: ExecuteVehicleCommandInput): Promise<ExecutedVehicleCommand> {
      const em = tenantEm(orm, input.tenant);
      const previous = await em.findOne(VehicleCommand, { commandId: input.commandId });
      if (previous && ['OK', 'REFUSED', 'ERROR'].includes(previous.status)) {
        if (previous.status !== 'OK')
          throw commandFailure(input.command, previous.status, previous.failureReason);
        return { commandId: input.commandId, status: 'OK', data: previous.data ?? null };
      }
      if (!previous) {
        await em
          .createQueryBuilder(VehicleCommand)
          .insert({
            tenant: input.tenant,
            commandId: input.commandId,
            vehicleId: input.vehicleId,
            command: input.command,
            params: input.params ?? null,
            status: 'SENT',
            requestedBy: input.requestedBy,
            sentAt: new Date(),
          })
          .onConflict(['tenant', 'commandId'])
          .ignore()
          .execute('run');
      }
      const reply = await deliver(input, input.commandId, vehicleCommandTimeoutMs, input.params);
      return { commandId: input.commandId, status: 'OK', data: reply.data ?? null };
    },
  };
}

/** The activity interface workflows proxy for vehicle I/O. */
export type FleetActivities = ReturnType<typeof createFleetActivities>;
