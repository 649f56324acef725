// Demo and test data of the damage domain: a few damages on the seeded fleet, so the vehicle damage
// views and the open-damages overview show something (one critical and untriaged).
import type { EntityManager } from '@mikro-orm/postgresql';
import { Damage } from '../entities/Damage.js';
import { Vehicle } from '../entities/Vehicle.js';
import type { DomainSeed, SeedBoard } from './board.js';

/**
 * Reports three damages on the tenant's first vehicles: a CRITICAL one still NEW, an approved MINOR
 * scratch and a repaired one. Runs inside the seed's transaction after its flush.
 */
export async function seedDamages(tx: EntityManager, tenant: string): Promise<void> {
  const vehicles = await tx.find(Vehicle, { tenant }, { filters: false, orderBy: { id: 'asc' }, limit: 2 });
  const [first, second] = vehicles;
  if (!first || !second) return;
  const at = (vehicle: Vehicle) =>
    vehicle.latitude != null && vehicle.longitude != null
      ? { lat: vehicle.latitude, lng: vehicle.longitude }
      : null;
  const base = (vehicle: Vehicle) => ({
    tenant,
    vehicleId: vehicle.id,
    branchId: vehicle.branch.id,
    vehiclePosition: at(vehicle),
    reportedBy: 'seed',
  });
  tx.create(Damage, {
    ...base(first),
    part: 'front brake',
    location: 'FRONT',
    severity: 'CRITICAL',
    description: 'Brake lever pulls to the handlebar without braking.',
  });
  tx.create(Damage, {
    ...base(first),
    part: 'deck',
    location: 'LEFT',
    severity: 'MINOR',
    state: 'APPROVED',
    description: 'Scratch along the left side of the deck.',
  });
  tx.create(Damage, {
    ...base(second),
    part: 'rear light',
    location: 'REAR',
    severity: 'MEDIUM',
    state: 'REPAIRED',
    repairCode: 'RL-01',
    resolvedAt: new Date(),
  });
}

/** Damages on the first vehicles, once they exist (after the flush). */
export const damageSeed: DomainSeed = {
  afterFlush: (tx: EntityManager, board: SeedBoard) => seedDamages(tx, board.tenantId),
};
