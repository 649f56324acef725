// Demo and test data of the fleet domain, on top of the vehicles db/seed.ts creates.
import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { IotModule } from '../entities/IotModule.js';
import { Vehicle } from '../entities/Vehicle.js';
import { VehicleAction } from '../entities/VehicleAction.js';
import { VehicleCategory } from '../entities/VehicleCategory.js';

/**
 * Gives every vehicle a rotating identifier, adds a child category that inherits the scooters'
 * configuration, IoT modules on the first vehicles and a visible mix of unavailable vehicles at the end
 * of the fleet (out of order, battery too low, must remain on charger). Runs inside seedTenant's
 * transaction after its flush.
 */
export async function seedFleet(tx: EntityManager, tenant: string): Promise<void> {
  const mine = { filters: false } as const;
  const vehicles = await tx.find(Vehicle, { tenant }, { ...mine, orderBy: { id: 'asc' } });
  for (const vehicle of vehicles) vehicle.rotatingUuid = randomUUID();
  const scooters = await tx.findOne(VehicleCategory, { tenant, name: 'E-Scooter' }, mine);
  // Scooters also take custom commands (e.g. a firmware-specific "blink").
  if (scooters?.configuration.commands)
    scooters.configuration = {
      ...scooters.configuration,
      commands: [...scooters.configuration.commands, 'CUSTOM_COMMAND'],
    };
  if (scooters)
    tx.create(VehicleCategory, {
      tenant,
      name: 'E-Scooter (long range)',
      parent: scooters,
      bookable: true,
      // Only its own keys: everything else (socLevels, commands, …) comes from E-Scooter.
      configuration: { chargingLimit: 90 },
      appProperties: { rangeKm: 70 },
    });
  vehicles.slice(0, 3).forEach((vehicle, index) =>
    tx.create(IotModule, {
      tenant,
      externalId: `IMEI-35${String(vehicle.id).padStart(13, '0')}`,
      name: `Module ${index + 1}`,
      state: 'ASSIGNED',
      vehicleId: vehicle.id,
    }),
  );
  tx.create(IotModule, { tenant, externalId: 'IMEI-SPARE-0001', name: 'Spare module', state: 'UNASSIGNED' });
  // The on-demand fleet only: the booking stations' cars stay ready for bookings.
  const onDemand = vehicles.filter((vehicle) => vehicle.branch.operationMode === 'ON_DEMAND');
  const [outOfOrder, flat, charging] = onDemand.slice(-3);
  if (outOfOrder) outOfOrder.serviceStateV2 = 'SERVICE_WORKSHOP';
  if (flat) flat.stateOfCharge = 8;
  if (charging) {
    charging.stateOfCharge = 40;
    charging.charging = true;
  }
  const operations = [
    tx.create(VehicleAction, {
      tenant,
      kind: 'ACTION',
      name: 'Lock and mark parked',
      steps: [
        { type: 'COMMAND', command: 'LOCK' },
        { type: 'ADD_TAG', tag: 'parked' },
      ],
    }),
    tx.create(VehicleAction, {
      tenant,
      kind: 'ACTIVITY',
      name: 'Send to workshop',
      steps: [{ type: 'SET_SERVICE_STATE', serviceStateV2: 'SERVICE_WORKSHOP' }],
      roleNames: ['Fleet operations', 'Administrator'],
    }),
    tx.create(VehicleAction, {
      tenant,
      kind: 'COMPOSITE_ACTIVITY',
      name: 'Collect for charging',
      description: 'Sound the alarm so the collector finds it, mark it COLLECT, silence it.',
      steps: [
        { type: 'COMMAND', command: 'ALARM_ON' },
        { type: 'SET_SERVICE_STATE', serviceStateV2: 'COLLECT' },
        { type: 'COMMAND', command: 'ALARM_OFF' },
      ],
    }),
    tx.create(VehicleAction, {
      tenant,
      kind: 'ACTION',
      name: 'Reboot IoT module',
      steps: [{ type: 'COMMAND', command: 'REBOOT' }],
      roleNames: ['Administrator'],
    }),
  ];
  await tx.flush();
  const cars = await tx.findOne(VehicleCategory, { tenant, name: 'Compact car' }, mine);
  if (scooters) scooters.configuration = { ...scooters.configuration, actions: operations.map((o) => o.id) };
  if (cars) cars.configuration = { ...cars.configuration, actions: [operations[1]!.id] };
  await tx.flush();
}
