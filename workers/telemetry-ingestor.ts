import type { MqttClient } from 'mqtt';
import type { MikroORM } from '@mikro-orm/postgresql';
import { inTenantTransaction, type EntityManager } from '../db/orm.js';
import { Vehicle } from '../db/entities/index.js';
import { recordEvent } from '../db/events.js';
import { categoryConfiguration } from '../db/categories.js';
import { applyVehicleReport, type VehicleCategoryConfiguration } from '../domain/vehicle.js';
import {
  parseVehicleConnectivity,
  parseVehicleTelemetry,
  parseVehicleTopic,
  vehicleTopicFilter,
  type VehicleConnectivity,
  type VehicleTelemetry,
} from '../devices/protocol.js';

interface PendingReport {
  telemetry?: VehicleTelemetry;
  connectivity?: VehicleConnectivity;
}

/**
 * Keeps the vehicle read model current from device telemetry and online/offline state. Reports are
 * coalesced per vehicle and written once per flush interval, so a chatty fleet costs one transaction
 * per tenant per interval rather than one per message.
 */
export class TelemetryIngestor {
  private pending = new Map<string, Map<number, PendingReport>>();
  private timer?: NodeJS.Timeout;
  private flushing: Promise<void> = Promise.resolve();
  private readonly onMessage = (topic: string, payload: Buffer) => this.accept(topic, payload);

  constructor(
    private readonly orm: MikroORM,
    private readonly mqtt: MqttClient,
    private readonly options: { flushIntervalMs?: number; log?: (message: string) => void } = {},
  ) {}

  async start(): Promise<void> {
    this.mqtt.on('message', this.onMessage);
    await this.mqtt.subscribeAsync([vehicleTopicFilter('telemetry'), vehicleTopicFilter('state')], {
      qos: 1,
    });
    this.timer = setInterval(() => void this.flush(), this.options.flushIntervalMs ?? 1000);
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.mqtt.off('message', this.onMessage);
    await this.flush();
  }

  private accept(topic: string, payload: Buffer): void {
    const parsed = parseVehicleTopic(topic);
    if (!parsed || (parsed.channel !== 'telemetry' && parsed.channel !== 'state')) return;
    const vehicleId = Number(parsed.vehicleId);
    if (!Number.isSafeInteger(vehicleId)) return;
    let json: unknown;
    try {
      json = JSON.parse(payload.toString('utf8'));
    } catch {
      return;
    }
    const byVehicle = this.pending.get(parsed.tenant) ?? new Map<number, PendingReport>();
    this.pending.set(parsed.tenant, byVehicle);
    const report = byVehicle.get(vehicleId) ?? {};
    if (parsed.channel === 'telemetry') report.telemetry = parseVehicleTelemetry(json) ?? report.telemetry;
    else report.connectivity = parseVehicleConnectivity(json) ?? report.connectivity;
    byVehicle.set(vehicleId, report);
  }

  /** Writes everything received since the last flush; flushes never overlap. */
  flush(): Promise<void> {
    this.flushing = this.flushing.then(async () => {
      const batch = this.pending;
      this.pending = new Map();
      for (const [tenant, reports] of batch) {
        try {
          await inTenantTransaction(this.orm, tenant, (em) => applyReports(em, reports));
        } catch (error) {
          this.options.log?.(`telemetry for tenant ${tenant} not stored: ${(error as Error).message}`);
        }
      }
    });
    return this.flushing;
  }
}

async function applyReports(em: EntityManager, reports: Map<number, PendingReport>): Promise<void> {
  const vehicles = await em.find(Vehicle, { id: { $in: [...reports.keys()] } });
  const configurations = new Map<number, VehicleCategoryConfiguration>();
  for (const vehicle of vehicles) {
    const report = reports.get(vehicle.id)!;
    const telemetry = report.telemetry;
    if (telemetry) {
      const configuration =
        configurations.get(vehicle.category.id) ?? (await categoryConfiguration(em, vehicle.category.id));
      configurations.set(vehicle.category.id, configuration);
      applyVehicleReport(vehicle, telemetry, configuration.socLevels);
    }
    const online = report.connectivity?.online ?? (telemetry ? true : undefined);
    if (online !== undefined && vehicle.offline === online) {
      vehicle.offline = !online;
      recordEvent(em, {
        type: online ? 'VEHICLE_ONLINE' : 'VEHICLE_OFFLINE',
        createdAt: new Date(report.connectivity?.at ?? telemetry?.at ?? Date.now()),
        branchId: vehicle.branch.id,
        vehicleId: vehicle.id,
        description: report.connectivity?.reason ?? null,
      });
    }
  }
}
