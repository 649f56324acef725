// Docking through the device path: a physical station publishes slot reports to the real broker, the
// docking ingestor applies them (db/docking.ts, source 'report'); slots and events are checked in the
// database and through the operator API.
import type { MqttClient } from 'mqtt';
import { Event } from '../db/entities/Event.js';
import { PhysicalStation } from '../db/entities/PhysicalStation.js';
import { PhysicalStationSlot } from '../db/entities/PhysicalStationSlot.js';
import { Vehicle } from '../db/entities/Vehicle.js';
import { tenantEm } from '../db/orm.js';
import { type SeededTenant } from '../db/seed.js';
import { connectMqtt } from '../devices/command-client.js';
import {
  encodeMessage,
  parsePhysicalStationSlotReport,
  parsePhysicalStationSlotsTopic,
  physicalStationSlotsDelivery,
  physicalStationSlotsFilter,
  physicalStationSlotsTopic,
  type PhysicalStationSlotReport,
} from '../devices/protocol.js';
import { stationActor } from '../workers/docking-ingestor.js';
import { type HttpStack } from './support/http.js';
import { startSession, type Session } from './support/session.js';

describe('slot report protocol', () => {
  const at = '2026-01-01T10:00:00.000Z';

  test('topics: builder, filter and parser agree; ids that would corrupt a topic are refused', () => {
    expect(physicalStationSlotsTopic('acme', '7')).toBe('fleetflow/acme/physical-stations/7/slots');
    expect(physicalStationSlotsFilter()).toBe('fleetflow/+/physical-stations/+/slots');
    expect(physicalStationSlotsFilter({ tenant: 'acme' })).toBe('fleetflow/acme/physical-stations/+/slots');
    expect(parsePhysicalStationSlotsTopic('fleetflow/acme/physical-stations/7/slots')).toEqual({
      tenant: 'acme',
      stationId: '7',
    });
    for (const topic of [
      'fleetflow/acme/physical-stations/7/state',
      'fleetflow/acme/vehicles/7/slots',
      'fleetflow/acme/physical-stations/7/slots/extra',
      'other/acme/physical-stations/7/slots',
      'fleetflow//physical-stations/7/slots',
    ])
      expect(parsePhysicalStationSlotsTopic(topic)).toBeUndefined();
    expect(() => physicalStationSlotsTopic('acme', 'a/b')).toThrow();
    expect(() => physicalStationSlotsTopic('ac+me', '7')).toThrow();
    expect(physicalStationSlotsDelivery).toEqual({ qos: 1, retain: false });
  });

  test('payloads: valid reports parse, junk is refused as a whole', () => {
    const connected: PhysicalStationSlotReport = { slotNumber: 3, event: 'CONNECTED', vehicleId: 12, at };
    expect(parsePhysicalStationSlotReport(Buffer.from(encodeMessage(connected)))).toEqual(connected);
    expect(
      parsePhysicalStationSlotReport({ slotNumber: 3, event: 'CONNECTED', vehicleCode: 'B-12', at }),
    ).toEqual({ slotNumber: 3, event: 'CONNECTED', vehicleCode: 'B-12', at });
    expect(
      parsePhysicalStationSlotReport({ slotNumber: 3, event: 'DISCONNECTED', vehicleId: null, at, extra: 1 }),
    ).toEqual({ slotNumber: 3, event: 'DISCONNECTED', at });
    for (const junk of [
      'not json',
      Buffer.from([0xff, 0xfe]),
      '[1,2]',
      { event: 'CONNECTED', vehicleId: 1, at },
      { slotNumber: 0, event: 'CONNECTED', vehicleId: 1, at },
      { slotNumber: 1.5, event: 'CONNECTED', vehicleId: 1, at },
      { slotNumber: '1', event: 'CONNECTED', vehicleId: 1, at },
      { slotNumber: 2 ** 31, event: 'CONNECTED', vehicleId: 1, at },
      { slotNumber: 1, event: 'DOCKED', vehicleId: 1, at },
      { slotNumber: 1, event: 'CONNECTED', at },
      { slotNumber: 1, event: 'CONNECTED', vehicleId: 1, vehicleCode: 'B-1', at },
      { slotNumber: 1, event: 'CONNECTED', vehicleId: -1, at },
      { slotNumber: 1, event: 'CONNECTED', vehicleId: '1', at },
      { slotNumber: 1, event: 'CONNECTED', vehicleCode: '', at },
      { slotNumber: 1, event: 'CONNECTED', vehicleCode: 'a\0b', at },
      { slotNumber: 1, event: 'CONNECTED', vehicleCode: 'x'.repeat(65), at },
      { slotNumber: 1, event: 'CONNECTED', vehicleId: 1 },
      { slotNumber: 1, event: 'CONNECTED', vehicleId: 1, at: 'yesterday' },
    ])
      expect(parsePhysicalStationSlotReport(junk)).toBeUndefined();
  });
});

describe('slot reports through the broker', () => {
  let session: Session;
  let stack: HttpStack;
  let seed: SeededTenant;
  let station: MqttClient;
  let stationId: number;
  let vehicles: Vehicle[];
  let operator: string;

  beforeAll(async () => {
    session = await startSession();
    ({ stack, seed, operatorToken: operator } = session);
    const em = tenantEm(stack.backend.orm, seed.tenant);
    stationId = (await em.findOneOrFail(PhysicalStation, { name: 'Rosenthaler Platz dock' })).id;
    vehicles = await em.find(Vehicle, { branch: seed.branchId }, { orderBy: { id: 'asc' }, limit: 3 });
    station = await connectMqtt(stack.backend.mqttUrl, `test-station-${seed.tenant}`);
  }, 120_000);

  afterAll(async () => {
    await station?.endAsync();
    await session?.stop();
  });

  const now = () => new Date().toISOString();

  /** Publishes like a station does: QoS 1, not retained. */
  async function publish(
    payload: unknown,
    topic = physicalStationSlotsTopic(seed.tenant, String(stationId)),
  ) {
    await station.publishAsync(
      topic,
      typeof payload === 'string' ? payload : JSON.stringify(payload),
      physicalStationSlotsDelivery,
    );
  }

  async function eventually<T>(read: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
    const deadline = Date.now() + 10_000;
    for (;;) {
      const value = await read();
      if (done(value) || Date.now() > deadline) return value;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  const slot = (number: number) =>
    tenantEm(stack.backend.orm, seed.tenant).findOneOrFail(
      PhysicalStationSlot,
      { physicalStation: stationId, number },
      { populate: ['vehicle'] },
    );

  /** The docking events of a vehicle, oldest first. */
  const events = (vehicleId: number) =>
    tenantEm(stack.backend.orm, seed.tenant).find(
      Event,
      { vehicleId, type: { $like: '%_SLOT%' } },
      { orderBy: { id: 'asc' } },
    );

  const dockingTypes = (list: Event[]) => list.map((event) => event.type);

  test('CONNECTED fills the slot; the same vehicle docking in another slot orphans the first; DISCONNECTED empties it', async () => {
    const vehicle = vehicles[0]!;
    const at = new Date(Date.now() - 5_000).toISOString();
    await publish({ slotNumber: 1, event: 'CONNECTED', vehicleId: vehicle.id, at });
    const first = await eventually(
      () => slot(1),
      (s) => s.state === 'OCCUPIED',
    );
    expect(first).toMatchObject({ state: 'OCCUPIED', vehicle: { id: vehicle.id } });
    expect(first.connectedAt?.toISOString()).toBe(at);
    const [connected] = await events(vehicle.id);
    expect(connected).toMatchObject({
      type: 'PHYSICAL_STATION_SLOT_VEHICLE_CONNECTED',
      adminSubject: stationActor(stationId),
      branchId: seed.branchId,
      payload: { physicalStationId: stationId, slotId: first.id, slotNumber: 1 },
    });
    expect(connected!.createdAt.toISOString()).toBe(at);
    // The operator API shows what the station reported.
    const listed = await stack.call('GET', stack.back(`/physical-stations/${stationId}/slots`), {
      token: operator,
    });
    expect(listed.body).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ number: 1, state: 'OCCUPIED', vehicleId: vehicle.id }),
      ]),
    );

    // Named by its code this time, in slot 2: slot 1 still recorded it and is orphaned.
    await publish({ slotNumber: 2, event: 'CONNECTED', vehicleCode: vehicle.code, at: now() });
    const second = await eventually(
      () => slot(2),
      (s) => s.state === 'OCCUPIED',
    );
    expect(second.vehicle?.id).toBe(vehicle.id);
    expect(await slot(1)).toMatchObject({ state: 'VACANT', vehicle: null, connectedAt: null });

    await publish({ slotNumber: 2, event: 'DISCONNECTED', vehicleId: vehicle.id, at: now() });
    expect(
      await eventually(
        () => slot(2),
        (s) => s.state === 'VACANT',
      ),
    ).toMatchObject({ state: 'VACANT', vehicle: null });
    const history = await eventually(
      () => events(vehicle.id),
      (list) => list.length >= 4,
    );
    expect(dockingTypes(history)).toEqual([
      'PHYSICAL_STATION_SLOT_VEHICLE_CONNECTED',
      'PHYSICAL_STATION_SLOT_VEHICLE_ORPHANED',
      'PHYSICAL_STATION_SLOT_VEHICLE_CONNECTED',
      'PHYSICAL_STATION_SLOT_VEHICLE_DISCONNECTED',
    ]);
    expect(history.find((e) => e.type.endsWith('ORPHANED'))!.payload).toMatchObject({ slotNumber: 1 });
    expect(history.at(-1)!.payload).toMatchObject({ slotNumber: 2 });
  });

  test('a slot number the station does not have records VEHICLE_CONNECTED_TO_UNKNOWN_SLOT and changes no slot', async () => {
    const vehicle = vehicles[1]!;
    await publish({ slotNumber: 99, event: 'CONNECTED', vehicleId: vehicle.id, at: now() });
    const recorded = await eventually(
      () => events(vehicle.id),
      (list) => list.some((e) => e.type === 'VEHICLE_CONNECTED_TO_UNKNOWN_SLOT'),
    );
    expect(recorded.find((e) => e.type === 'VEHICLE_CONNECTED_TO_UNKNOWN_SLOT')).toMatchObject({
      adminSubject: stationActor(stationId),
      payload: { physicalStationId: stationId, slotNumber: 99 },
    });
    expect(
      await tenantEm(stack.backend.orm, seed.tenant).count(PhysicalStationSlot, { vehicle: vehicle.id }),
    ).toBe(0);
  });

  test('malformed and unapplicable reports are ignored; the next valid one still applies', async () => {
    const vehicle = vehicles[2]!;
    const before = { ...stack.backend.dockingIngestor.counters };
    const other = 'no-such-tenant';
    await publish('not json');
    await publish({ slotNumber: 3, event: 'CONNECTED', at: now() });
    await publish({ slotNumber: -3, event: 'CONNECTED', vehicleId: vehicle.id, at: now() });
    await publish({ slotNumber: 3, event: 'CONNECTED', vehicleId: vehicle.id, vehicleCode: 'X', at: now() });
    await publish(
      { slotNumber: 3, event: 'CONNECTED', vehicleId: vehicle.id, at: now() },
      `fleetflow/${seed.tenant}/physical-stations/not-a-number/slots`,
    );
    // Well-formed but naming what does not exist: a station, a tenant, a vehicle, a code.
    await publish(
      { slotNumber: 3, event: 'CONNECTED', vehicleId: vehicle.id, at: now() },
      physicalStationSlotsTopic(seed.tenant, '2147483000'),
    );
    await publish(
      { slotNumber: 3, event: 'CONNECTED', vehicleId: vehicle.id, at: now() },
      physicalStationSlotsTopic(other, String(stationId)),
    );
    await publish({ slotNumber: 3, event: 'CONNECTED', vehicleId: 2147483000, at: now() });
    await publish({ slotNumber: 3, event: 'CONNECTED', vehicleCode: 'NO-SUCH-CODE', at: now() });
    // Then a valid one on the same station's queue.
    await publish({ slotNumber: 3, event: 'CONNECTED', vehicleCode: vehicle.code, at: now() });
    const applied = await eventually(
      () => slot(3),
      (s) => s.state === 'OCCUPIED',
    );
    expect(applied).toMatchObject({ state: 'OCCUPIED', vehicle: { id: vehicle.id } });
    await stack.backend.dockingIngestor.idle();
    const counters = stack.backend.dockingIngestor.counters;
    expect(counters.malformed - before.malformed).toBe(5);
    expect(counters.refused - before.refused).toBe(4);
    expect(counters.applied - before.applied).toBe(1);
    expect(dockingTypes(await events(vehicle.id))).toEqual(['PHYSICAL_STATION_SLOT_VEHICLE_CONNECTED']);
  });

  test("one station's reports apply in the order it sent them", async () => {
    const vehicle = vehicles[1]!;
    const sequence: Array<Pick<PhysicalStationSlotReport, 'slotNumber' | 'event'>> = [
      { slotNumber: 4, event: 'CONNECTED' },
      { slotNumber: 4, event: 'DISCONNECTED' },
      { slotNumber: 5, event: 'CONNECTED' },
      { slotNumber: 5, event: 'DISCONNECTED' },
      { slotNumber: 4, event: 'CONNECTED' },
    ];
    for (const report of sequence) await publish({ ...report, vehicleId: vehicle.id, at: now() });
    const history = await eventually(
      () => events(vehicle.id),
      (list) => list.filter((e) => e.type.startsWith('PHYSICAL_STATION_SLOT_')).length >= 5,
    );
    expect(
      history
        .filter((e) => e.type.startsWith('PHYSICAL_STATION_SLOT_'))
        .map((e) => [e.type.replace('PHYSICAL_STATION_SLOT_VEHICLE_', ''), e.payload?.slotNumber]),
    ).toEqual([
      ['CONNECTED', 4],
      ['DISCONNECTED', 4],
      ['CONNECTED', 5],
      ['DISCONNECTED', 5],
      ['CONNECTED', 4],
    ]);
    expect(await slot(4)).toMatchObject({ state: 'OCCUPIED', vehicle: { id: vehicle.id } });
    expect(await slot(5)).toMatchObject({ state: 'VACANT', vehicle: null });
  });
});
