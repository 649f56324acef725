// The docking device path: physical stations report vehicles connecting to and disconnecting from their
// slots over MQTT; each valid report is applied with db/docking.ts (source 'report') in its own tenant
// transaction, the reports of one station strictly in arrival order.
import type { MqttClient } from 'mqtt';
import type { MikroORM } from '@mikro-orm/postgresql';
import { inTenantTransaction } from '../db/orm.js';
import { Vehicle } from '../db/entities/Vehicle.js';
import { connectVehicleToSlot, disconnectVehicleFromSlot } from '../db/docking.js';
import { DomainError } from '../domain/errors.js';
import {
  maxReportedInteger,
  parsePhysicalStationSlotReport,
  parsePhysicalStationSlotsTopic,
  physicalStationSlotsFilter,
  type PhysicalStationSlotReport,
} from '../devices/protocol.js';

export interface DockingIngestorOptions {
  /** Where ignored reports (malformed, unknown tenant/station/vehicle) are explained. */
  log?: (message: string) => void;
}

/** The subject recorded on the events of a station's reports. */
export const stationActor = (stationId: number) => `device:physical-station:${stationId}`;

/**
 * Subscribes to every station's slot reports and applies them. One queue per station keeps its reports
 * in order; stations proceed in parallel. A report that cannot be applied is logged and dropped — it
 * never stops the subscription or the queue behind it.
 */
export class DockingIngestor {
  private readonly queues = new Map<string, Promise<void>>();
  /** Reports applied, ignored as malformed, and refused by the rules or lookups; for tests and metrics. */
  readonly counters = { applied: 0, malformed: 0, refused: 0 };
  private readonly onMessage = (topic: string, payload: Buffer) => this.accept(topic, payload);
  /** The connection it consumes from, between start and stop. */
  private mqtt: MqttClient | undefined;

  constructor(
    private readonly orm: MikroORM,
    private readonly options: DockingIngestorOptions = {},
  ) {}

  /** Starts listening on `mqtt`; resolves once the broker acknowledged the subscription. */
  async start(mqtt: MqttClient): Promise<void> {
    this.mqtt = mqtt;
    mqtt.on('message', this.onMessage);
    await mqtt.subscribeAsync(physicalStationSlotsFilter(), { qos: 1 });
  }

  /** Stops listening and waits for the reports already queued to be applied. */
  async stop(): Promise<void> {
    this.mqtt?.off('message', this.onMessage);
    this.mqtt = undefined;
    await this.idle();
  }

  /** Resolves when every report received so far has been applied or dropped. */
  async idle(): Promise<void> {
    while (this.queues.size) await Promise.all([...this.queues.values()]);
  }

  private accept(topic: string, payload: Buffer): void {
    const parsedTopic = parsePhysicalStationSlotsTopic(topic);
    if (!parsedTopic) return;
    const stationId = Number(parsedTopic.stationId);
    const report = parsePhysicalStationSlotReport(payload);
    if (!/^[1-9]\d*$/.test(parsedTopic.stationId) || stationId > maxReportedInteger || !report) {
      this.counters.malformed += 1;
      this.options.log?.(`docking report on ${topic} ignored: malformed`);
      return;
    }
    const key = `${parsedTopic.tenant}/${stationId}`;
    const queued = (this.queues.get(key) ?? Promise.resolve())
      .then(() => this.apply(parsedTopic.tenant, stationId, report))
      .catch((error: unknown) => {
        this.counters.refused += 1;
        const reason = error instanceof DomainError ? `${error.code} ${error.message}` : String(error);
        this.options.log?.(`docking report on ${topic} not applied: ${reason}`);
      })
      .finally(() => {
        // The last report of a station removes its queue, so idle stations hold no memory.
        if (this.queues.get(key) === queued) this.queues.delete(key);
      });
    this.queues.set(key, queued);
  }

  private async apply(tenant: string, stationId: number, report: PhysicalStationSlotReport): Promise<void> {
    await inTenantTransaction(this.orm, tenant, async (em) => {
      let vehicleId = report.vehicleId;
      if (report.vehicleCode !== undefined) {
        const vehicle = await em.findOne(Vehicle, { code: report.vehicleCode }, { fields: ['id'] });
        if (!vehicle) throw new DomainError('V404', `no vehicle with code ${report.vehicleCode}`);
        vehicleId = vehicle.id;
      }
      const request = {
        stationId,
        slot: { number: report.slotNumber },
        source: 'report' as const,
        actor: stationActor(stationId),
        // The station's clock dates the change; one running ahead cannot date it in the future.
        at: new Date(Math.min(Date.parse(report.at), Date.now())),
      };
      if (report.event === 'CONNECTED') await connectVehicleToSlot(em, { ...request, vehicleId: vehicleId! });
      else await disconnectVehicleFromSlot(em, { ...request, vehicleId });
    });
    this.counters.applied += 1;
  }
}
