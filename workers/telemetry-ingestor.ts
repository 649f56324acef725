// The device ingestion path: every telemetry message into the history, the vehicle row kept current in
// the device's order, connectivity and silence into OFFLINE/ONLINE, and queued commands delivered when a
// vehicle reconnects.
import type { MqttClient } from 'mqtt';
import type { MikroORM } from '@mikro-orm/postgresql';
import { inTenantTransaction, type EntityManager } from '../db/orm.js';
import { Vehicle } from '../db/entities/Vehicle.js';
import { VehicleCommand } from '../db/entities/VehicleCommand.js';
import { recordEvent } from '../db/events.js';
import { categoryConfiguration } from '../db/categories.js';
import {
  applyVehicleReport,
  batteryLevelEventType,
  type VehicleCategoryConfiguration,
} from '../domain/vehicle.js';
import {
  isVehicleCommandName,
  parseVehicleConnectivity,
  parseVehicleTelemetry,
  parseVehicleTopic,
  vehicleTopicFilter,
  type VehicleConnectivity,
  type VehicleTelemetry,
} from '../devices/protocol.js';
import type { VehicleCommandClient } from '../devices/command-client.js';

interface PendingReport {
  /** Newest telemetry by device time (what the row should show). */
  telemetry?: VehicleTelemetry;
  connectivity?: VehicleConnectivity;
}

/** One telemetry message waiting for the history insert. */
interface HistoryRow {
  vehicleId: number;
  telemetry: VehicleTelemetry;
  receivedAt: Date;
}

export interface TelemetryIngestorOptions {
  flushIntervalMs?: number;
  /** A vehicle silent for longer than this goes offline (VEHICLE_OFFLINE); default 5 minutes. */
  offlineAfterMs?: number;
  /** How often silence is checked; default a tenth of offlineAfterMs, at least 1 s. */
  offlineCheckIntervalMs?: number;
  /** Delivers queued commands when their vehicle reconnects (absent: queued commands wait). */
  vehicleCommands?: VehicleCommandClient;
  /** Reply timeout of delivered queued commands. */
  vehicleCommandTimeoutMs?: number;
  log?: (message: string) => void;
}

/**
 * Keeps the vehicle read model current from device telemetry and online/offline state, and stores every
 * telemetry message. Messages are buffered and written once per flush interval per tenant: the history
 * with one `insert … select from unnest` statement, the vehicle rows from the newest report of each
 * vehicle (older reports than the row holds are ignored, so batching never reorders what a row shows).
 */
export class TelemetryIngestor {
  private pending = new Map<string, Map<number, PendingReport>>();
  private history = new Map<string, HistoryRow[]>();
  private timer?: NodeJS.Timeout;
  private offlineTimer?: NodeJS.Timeout;
  private flushing: Promise<void> = Promise.resolve();
  /** Messages accepted and rows stored, for benchmarks and metrics. */
  readonly counters = { accepted: 0, stored: 0, rejected: 0 };
  private readonly onMessage = (topic: string, payload: Buffer) => this.accept(topic, payload);
  /** The connection it consumes from, between start and stop. */
  private mqtt: MqttClient | undefined;

  constructor(
    private readonly orm: MikroORM,
    private readonly options: TelemetryIngestorOptions = {},
  ) {}

  /** Consumes the vehicles' telemetry and state topics from `mqtt` until stop. */
  async start(mqtt: MqttClient): Promise<void> {
    this.mqtt = mqtt;
    mqtt.on('message', this.onMessage);
    await mqtt.subscribeAsync([vehicleTopicFilter('telemetry'), vehicleTopicFilter('state')], {
      qos: 1,
    });
    this.timer = setInterval(() => void this.flush(), this.options.flushIntervalMs ?? 1000);
    const offlineAfterMs = this.options.offlineAfterMs ?? 5 * 60_000;
    this.offlineTimer = setInterval(
      () =>
        void markSilentVehiclesOffline(this.orm, offlineAfterMs).catch((error: Error) =>
          this.options.log?.(`offline detection failed: ${error.message}`),
        ),
      this.options.offlineCheckIntervalMs ?? Math.max(1000, offlineAfterMs / 10),
    );
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    if (this.offlineTimer) clearInterval(this.offlineTimer);
    this.mqtt?.off('message', this.onMessage);
    this.mqtt = undefined;
    await this.flush();
  }

  private accept(topic: string, payload: Buffer): void {
    const parsed = parseVehicleTopic(topic);
    if (!parsed || (parsed.channel !== 'telemetry' && parsed.channel !== 'state')) return;
    const vehicleId = Number(parsed.vehicleId);
    if (!Number.isSafeInteger(vehicleId) || vehicleId < 1 || vehicleId > 2147483647) return;
    const byVehicle = this.pending.get(parsed.tenant) ?? new Map<number, PendingReport>();
    const report = byVehicle.get(vehicleId) ?? {};
    if (parsed.channel === 'telemetry') {
      const telemetry = parseVehicleTelemetry(payload);
      if (!telemetry) {
        this.counters.rejected += 1;
        return;
      }
      this.counters.accepted += 1;
      const rows = this.history.get(parsed.tenant) ?? [];
      rows.push({ vehicleId, telemetry, receivedAt: new Date() });
      this.history.set(parsed.tenant, rows);
      if (!report.telemetry || Date.parse(telemetry.at) >= Date.parse(report.telemetry.at))
        report.telemetry = telemetry;
    } else {
      const parsedConnectivity = parseVehicleConnectivity(payload);
      if (!parsedConnectivity) return;
      // A last will carries its connect time; the link died when the broker published it, i.e. now.
      const connectivity =
        parsedConnectivity.reason === 'LAST_WILL'
          ? { ...parsedConnectivity, at: new Date().toISOString() }
          : parsedConnectivity;
      if (!report.connectivity || Date.parse(connectivity.at) >= Date.parse(report.connectivity.at))
        report.connectivity = connectivity;
    }
    this.pending.set(parsed.tenant, byVehicle);
    byVehicle.set(vehicleId, report);
  }

  /** Writes everything received since the last flush; flushes never overlap. */
  flush(): Promise<void> {
    this.flushing = this.flushing.then(async () => {
      const batch = this.pending;
      const history = this.history;
      this.pending = new Map();
      this.history = new Map();
      const tenants = new Set([...batch.keys(), ...history.keys()]);
      for (const tenant of tenants) {
        try {
          const reconnected = await inTenantTransaction(this.orm, tenant, async (em) => {
            const rows = history.get(tenant) ?? [];
            // Only rows of the tenant's vehicles are kept (a device may publish under a wrong id).
            if (rows.length) this.counters.stored += await insertHistory(em, tenant, rows);
            return applyReports(em, batch.get(tenant) ?? new Map());
          });
          if (reconnected.length && this.options.vehicleCommands)
            await deliverQueuedCommands(this.orm, tenant, reconnected, this.options.vehicleCommands, {
              timeoutMs: this.options.vehicleCommandTimeoutMs ?? 10_000,
            });
        } catch (error) {
          this.options.log?.(`telemetry for tenant ${tenant} not stored: ${(error as Error).message}`);
        }
      }
    });
    return this.flushing;
  }
}

/** A PostgreSQL array literal (`{1,NULL,"a\"b"}`), so a whole column travels as one bound parameter. */
function pgArray(values: readonly (string | number | boolean | null)[]): string {
  const element = (value: string | number | boolean | null) => {
    if (value === null) return 'NULL';
    if (typeof value !== 'string') return String(value);
    return `"${value.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
  };
  return `{${values.map(element).join(',')}}`;
}

/**
 * Appends telemetry messages to the history with one `insert … select from unnest` statement (one array
 * per column); rows for ids that are not vehicles of the tenant are dropped. Returns the rows stored.
 */
async function insertHistory(em: EntityManager, tenant: string, rows: HistoryRow[]): Promise<number> {
  const column = (pick: (row: HistoryRow) => string | number | boolean | null) => pgArray(rows.map(pick));
  const result = (await em.execute(
    `insert into vehicle_telemetry (tenant_id, vehicle_id, reported_at, received_at, latitude, longitude,
         speed_kmh, max_speed_kmh, hdop, state_of_charge, batteries, battery_max_capacity_wh, power_state,
         locked, charging, odometer_km, iot_module_level)
       select ?, t.* from unnest(?::int[], ?::timestamptz[], ?::timestamptz[], ?::float8[], ?::float8[],
         ?::float8[], ?::float8[], ?::float8[], ?::float8[], ?::jsonb[], ?::float8[], ?::text[], ?::bool[],
         ?::bool[], ?::float8[], ?::float8[]) as t(vehicle_id, reported_at, received_at, latitude, longitude,
         speed_kmh, max_speed_kmh, hdop, state_of_charge, batteries, battery_max_capacity_wh, power_state,
         locked, charging, odometer_km, iot_module_level)
       where t.vehicle_id in (select v.id from vehicle v where v.tenant_id = ?)`,
    [
      tenant,
      column((row) => row.vehicleId),
      column((row) => row.telemetry.at),
      column((row) => row.receivedAt.toISOString()),
      column((row) => row.telemetry.position.lat),
      column((row) => row.telemetry.position.lng),
      column((row) => row.telemetry.speedKmh ?? null),
      column((row) => row.telemetry.maxSpeedKmh ?? null),
      column((row) => row.telemetry.hdop ?? null),
      column((row) => row.telemetry.stateOfCharge ?? null),
      column((row) => (row.telemetry.batteries ? JSON.stringify(row.telemetry.batteries) : null)),
      column((row) => row.telemetry.batteryMaxCapacityWh ?? null),
      column((row) => row.telemetry.powerState),
      column((row) => row.telemetry.locked),
      column((row) => row.telemetry.charging ?? null),
      column((row) => row.telemetry.odometerKm ?? null),
      column((row) => row.telemetry.iotModuleVoltage ?? null),
      tenant,
    ],
    'run',
  )) as unknown as { affectedRows: number };
  return result.affectedRows;
}

/** Applies the newest report of each vehicle; returns the vehicles that came back online. */
async function applyReports(em: EntityManager, reports: Map<number, PendingReport>): Promise<number[]> {
  if (!reports.size) return [];
  const vehicles = await em.find(Vehicle, { id: { $in: [...reports.keys()] } });
  const configurations = new Map<number, VehicleCategoryConfiguration>();
  const reconnected: number[] = [];
  for (const vehicle of vehicles) {
    const report = reports.get(vehicle.id)!;
    const telemetry = report.telemetry;
    let applied = false;
    if (telemetry) {
      const configuration =
        configurations.get(vehicle.category.id) ?? (await categoryConfiguration(em, vehicle.category.id));
      configurations.set(vehicle.category.id, configuration);
      const before = vehicle.batteryLevel;
      applied = applyVehicleReport(
        vehicle,
        { ...telemetry, iotModuleLevel: telemetry.iotModuleVoltage },
        configuration,
      );
      if (applied && vehicle.batteryLevel !== before)
        recordEvent(em, {
          type: batteryLevelEventType(vehicle.batteryLevel),
          createdAt: new Date(telemetry.at),
          branchId: vehicle.branch.id,
          vehicleId: vehicle.id,
          payload: { stateOfCharge: vehicle.stateOfCharge ?? null },
        });
    }
    // Connectivity older than the newest report applied does not flip the flag back.
    const connectivity =
      report.connectivity &&
      !(vehicle.lastSeenAt && Date.parse(report.connectivity.at) < vehicle.lastSeenAt.getTime() && !applied)
        ? report.connectivity
        : undefined;
    const online = connectivity?.online ?? (applied ? true : undefined);
    if (connectivity?.online)
      vehicle.lastSeenAt = new Date(
        Math.max(Date.parse(connectivity.at), vehicle.lastSeenAt?.getTime() ?? 0),
      );
    if (online !== undefined && vehicle.offline === online) {
      vehicle.offline = !online;
      if (online) reconnected.push(vehicle.id);
      recordEvent(em, {
        type: online ? 'VEHICLE_ONLINE' : 'VEHICLE_OFFLINE',
        createdAt: new Date(connectivity?.at ?? telemetry?.at ?? Date.now()),
        branchId: vehicle.branch.id,
        vehicleId: vehicle.id,
        description: connectivity?.reason ?? null,
      });
    }
  }
  return reconnected;
}

/**
 * Marks vehicles offline that have not reported for `offlineAfterMs` (across tenants), each with a
 * VEHICLE_OFFLINE event; returns how many went offline. Runs on the ingestor's timer.
 */
export async function markSilentVehiclesOffline(
  orm: MikroORM,
  offlineAfterMs: number,
  now: Date = new Date(),
  tenant?: string,
): Promise<number> {
  const cutoff = new Date(now.getTime() - offlineAfterMs).toISOString();
  const rows = await orm.em.getConnection().execute<{ count: string }[]>(
    `with silent as (
       update vehicle set offline = true, updated_at = ?
       where offline = false and (last_seen_at is null or last_seen_at < ?) and (?::text is null or tenant_id = ?)
       returning id, tenant_id, branch_id),
     events as (
       insert into event (tenant_id, type, created_at, branch_id, vehicle_id, description)
       select tenant_id, 'VEHICLE_OFFLINE', ?, branch_id, id, 'no report for ' || ? || ' ms' from silent
       returning 1)
     select count(*) as count from events`,
    [now.toISOString(), cutoff, tenant ?? null, tenant ?? null, now.toISOString(), String(offlineAfterMs)],
  );
  return Number(rows[0]?.count ?? 0);
}

/**
 * Delivers the queued commands of vehicles that just reconnected, oldest first. Each command is claimed
 * with one conditional update (QUEUED → SENT), so it is delivered once even with several ingestors; an
 * expired one becomes EXPIRED instead.
 */
export async function deliverQueuedCommands(
  orm: MikroORM,
  tenant: string,
  vehicleIds: number[],
  vehicleCommands: VehicleCommandClient,
  options: { timeoutMs: number },
): Promise<void> {
  const connection = orm.em.getConnection();
  await connection.execute(
    `update vehicle_command set status = 'EXPIRED' where tenant_id = ? and status = 'QUEUED' and expires_at <= now()`,
    [tenant],
  );
  const claimed = await connection.execute<
    {
      command_id: string;
      vehicle_id: number;
      command: string;
      params: Record<string, unknown> | null;
      requested_by: string | null;
    }[]
  >(
    `update vehicle_command set status = 'SENT', sent_at = now()
     where tenant_id = ? and status = 'QUEUED' and expires_at > now()
       and vehicle_id in (select jsonb_array_elements_text(?::jsonb)::int)
     returning command_id, vehicle_id, command, params, requested_by`,
    [tenant, JSON.stringify(vehicleIds)],
  );
  await Promise.all(
    claimed.map(async (row) => {
      if (!isVehicleCommandName(row.command)) return;
      let status: VehicleCommand['status'] = 'TIMEOUT';
      let failureReason: VehicleCommand['failureReason'] = null;
      let data: Record<string, unknown> | null = null;
      try {
        const reply = await vehicleCommands.send({
          tenant,
          vehicleId: String(row.vehicle_id),
          command: row.command,
          commandId: row.command_id,
          params: row.params ?? undefined,
          timeoutMs: options.timeoutMs,
        });
        status = reply.status;
        failureReason = reply.failureReason ?? null;
        data = reply.data ?? null;
      } catch {
        status = 'TIMEOUT';
      }
      await inTenantTransaction(orm, tenant, async (em) => {
        await em.nativeUpdate(
          VehicleCommand,
          { commandId: row.command_id },
          { status, failureReason, data, answeredAt: status === 'TIMEOUT' ? null : new Date() },
        );
        recordEvent(em, {
          type: `VEHICLE_COMMAND_${row.command}`,
          vehicleId: row.vehicle_id,
          adminSubject: row.requested_by,
          description: `${status} (queued command delivered on reconnect)`,
          payload: { commandId: row.command_id, status, failureReason },
        });
      });
    }),
  );
}
