// Docking: connecting vehicles to the slots of physical stations and disconnecting them, with the
// PHYSICAL_STATION_SLOT_VEHICLE_ events. One implementation for the operator's REST commands and for
// device reports (workers/docking-ingestor.ts calls it with its own transaction's EntityManager).
import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { DomainError } from '../domain/errors.js';
import { PhysicalStation } from './entities/PhysicalStation.js';
import { PhysicalStationSlot } from './entities/PhysicalStationSlot.js';
import { Vehicle } from './entities/Vehicle.js';
import { recordEvent } from './events.js';

export const dockingEventTypes = {
  connected: 'PHYSICAL_STATION_SLOT_VEHICLE_CONNECTED',
  disconnected: 'PHYSICAL_STATION_SLOT_VEHICLE_DISCONNECTED',
  orphaned: 'PHYSICAL_STATION_SLOT_VEHICLE_ORPHANED',
  unknownSlot: 'VEHICLE_CONNECTED_TO_UNKNOWN_SLOT',
} as const;

/**
 * Who asks: an operator `command` is refused when the slot is not vacant (PS100); a device `report`
 * states a physical fact, so it is applied whatever the slot's recorded state, and a vehicle the slot
 * recorded before is orphaned.
 */
export type DockingSource = 'command' | 'report';

export interface ConnectRequest {
  stationId: number;
  /** The slot by id (REST) or by the number painted on the station (device reports). */
  slot: { id: number } | { number: number };
  vehicleId: number;
  source: DockingSource;
  /** Acting subject recorded on the events. */
  actor: string;
  /** When it happened (a device report's own instant); now when absent. */
  at?: Date;
}

export type ConnectOutcome =
  | { outcome: 'CONNECTED'; slot: PhysicalStationSlot; orphanedSlotIds: number[] }
  | { outcome: 'UNKNOWN_SLOT' };

async function loadStation(em: EntityManager, stationId: number): Promise<PhysicalStation> {
  const station = await em.findOne(PhysicalStation, stationId);
  if (!station) throw new DomainError('PS404', `physical station ${stationId} not found`);
  return station;
}

/** The slot of a station, locked for the caller's transaction when there is one (concurrent dockings queue). */
function findSlot(
  em: EntityManager,
  station: PhysicalStation,
  slot: { id: number } | { number: number },
): Promise<PhysicalStationSlot | null> {
  const where =
    'id' in slot
      ? { id: slot.id, physicalStation: station.id }
      : { number: slot.number, physicalStation: station.id };
  return em.findOne(
    PhysicalStationSlot,
    where,
    em.isInTransaction() ? { lockMode: LockMode.PESSIMISTIC_WRITE, refresh: true } : {},
  );
}

/** Vacates a slot whose recorded vehicle is no longer there, recording ORPHANED. */
function orphan(em: EntityManager, slot: PhysicalStationSlot, station: PhysicalStation, actor: string): void {
  recordEvent(em, {
    type: dockingEventTypes.orphaned,
    branchId: station.branch.id,
    vehicleId: slot.vehicle?.id ?? null,
    adminSubject: actor,
    payload: { physicalStationId: station.id, slotId: slot.id, slotNumber: slot.number },
  });
  slot.vehicle = null;
  slot.connectedAt = null;
  slot.state = 'VACANT';
}

/**
 * Connects a vehicle to a slot: the slot becomes OCCUPIED and CONNECTED is recorded. A slot elsewhere
 * that still records the vehicle is vacated (ORPHANED): a vehicle is in one slot at a time. A report
 * naming a slot number the station does not have records VEHICLE_CONNECTED_TO_UNKNOWN_SLOT and changes
 * nothing else. Flushes in the caller's EntityManager; run it in a transaction (the slot row is then locked).
 */
export async function connectVehicleToSlot(
  em: EntityManager,
  request: ConnectRequest,
): Promise<ConnectOutcome> {
  const station = await loadStation(em, request.stationId);
  const vehicle = await em.findOne(Vehicle, request.vehicleId);
  if (!vehicle) throw new DomainError('V404', `vehicle ${request.vehicleId} not found`);
  if (vehicle.branch.id !== station.branch.id)
    throw new DomainError('PS105', `vehicle ${vehicle.code} belongs to branch ${vehicle.branch.id}`);
  const slot = await findSlot(em, station, request.slot);
  if (!slot) {
    if ('id' in request.slot) throw new DomainError('PS405', `slot ${request.slot.id} not found`);
    recordEvent(em, {
      type: dockingEventTypes.unknownSlot,
      branchId: station.branch.id,
      vehicleId: vehicle.id,
      adminSubject: request.actor,
      payload: { physicalStationId: station.id, slotNumber: request.slot.number },
    });
    await em.flush();
    return { outcome: 'UNKNOWN_SLOT' };
  }
  if (slot.vehicle?.id === vehicle.id) return { outcome: 'CONNECTED', slot, orphanedSlotIds: [] };
  if (request.source === 'command' && slot.state !== 'VACANT')
    throw new DomainError('PS100', `slot ${slot.number} is ${slot.state}`);
  const orphanedSlotIds: number[] = [];
  if (slot.vehicle) {
    orphan(em, slot, station, request.actor);
    orphanedSlotIds.push(slot.id);
  }
  const previous = await em.findOne(PhysicalStationSlot, { vehicle: vehicle.id });
  if (previous) {
    const previousStation = await loadStation(em, previous.physicalStation.id);
    orphan(em, previous, previousStation, request.actor);
    orphanedSlotIds.push(previous.id);
    // Free the unique vehicle reference before the new slot takes it.
    await em.flush();
  }
  slot.vehicle = vehicle;
  slot.connectedAt = request.at ?? new Date();
  slot.state = 'OCCUPIED';
  recordEvent(em, {
    type: dockingEventTypes.connected,
    createdAt: request.at ?? new Date(),
    branchId: station.branch.id,
    vehicleId: vehicle.id,
    adminSubject: request.actor,
    position: { lat: station.latitude, lng: station.longitude },
    payload: { physicalStationId: station.id, slotId: slot.id, slotNumber: slot.number },
  });
  await em.flush();
  return { outcome: 'CONNECTED', slot, orphanedSlotIds };
}

/**
 * Disconnects the vehicle of a slot: the slot becomes VACANT and DISCONNECTED is recorded. A command on
 * a slot without a vehicle is refused (PS107); a report of it is a no-op.
 */
export async function disconnectVehicleFromSlot(
  em: EntityManager,
  request: Omit<ConnectRequest, 'vehicleId'> & { vehicleId?: number },
): Promise<PhysicalStationSlot | null> {
  const station = await loadStation(em, request.stationId);
  const slot = await findSlot(em, station, request.slot);
  if (!slot) {
    if (request.source === 'report') return null;
    throw new DomainError('PS405', `slot not found at physical station ${station.id}`);
  }
  const vehicleId = slot.vehicle?.id;
  if (vehicleId === undefined || (request.vehicleId !== undefined && request.vehicleId !== vehicleId)) {
    if (request.source === 'report') return slot;
    throw new DomainError('PS107', `slot ${slot.number} holds no such vehicle`);
  }
  slot.vehicle = null;
  slot.connectedAt = null;
  slot.state = 'VACANT';
  recordEvent(em, {
    type: dockingEventTypes.disconnected,
    createdAt: request.at ?? new Date(),
    branchId: station.branch.id,
    vehicleId,
    adminSubject: request.actor,
    position: { lat: station.latitude, lng: station.longitude },
    payload: { physicalStationId: station.id, slotId: slot.id, slotNumber: slot.number },
  });
  await em.flush();
  return slot;
}
