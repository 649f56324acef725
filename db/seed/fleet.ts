// Demo and test data of the fleet domain: two categories, 24 vehicles at real street corners of Berlin
// Mitte, and after the flush rotating ids, a child category, IoT modules and unavailable vehicles.
import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { IotModule } from '../entities/IotModule.js';
import { Vehicle } from '../entities/Vehicle.js';
import { VehicleAction } from '../entities/VehicleAction.js';
import { VehicleCategory } from '../entities/VehicleCategory.js';
import { fromBoard, type DomainSeed, type SeedBoard } from './board.js';

/** Real street corners in central Berlin, where the demo fleet parks. */
const berlinSpots: Array<[string, number, number]> = [
  ['Alexanderplatz', 52.521918, 13.413215],
  ['Karl-Liebknecht-Str. 13', 52.52307, 13.41019],
  ['Hackescher Markt', 52.52249, 13.40228],
  ['Rosenthaler Platz', 52.52967, 13.40126],
  ['Torstr. 1', 52.52883, 13.41094],
  ['Friedrichstr. 100', 52.52085, 13.38766],
  ['Unter den Linden 77', 52.51629, 13.37991],
  ['Gendarmenmarkt', 52.51368, 13.39273],
  ['Leipziger Str. 60', 52.5108, 13.39455],
  ['Potsdamer Platz', 52.5096, 13.37609],
  ['Checkpoint Charlie', 52.50754, 13.39034],
  ['Oranienstr. 40', 52.50113, 13.41871],
  ['Kottbusser Tor', 52.49906, 13.41812],
  ['Moritzplatz', 52.50374, 13.41064],
  ['Jannowitzbrücke', 52.5152, 13.4187],
  ['Strausberger Platz', 52.51822, 13.42868],
  ['Bernauer Str. 111', 52.53741, 13.39633],
  ['Zionskirchplatz', 52.5352, 13.40489],
  ['Senefelderplatz', 52.53255, 13.41272],
  ['Invalidenstr. 43', 52.53003, 13.38053],
  ['Oranienburger Str. 32', 52.52486, 13.39335],
  ['Museumsinsel, Bodestr.', 52.52088, 13.39686],
  ['Spittelmarkt', 52.51131, 13.40392],
  ['Warschauer Str. 70', 52.5059, 13.449],
];

declare module './board.js' {
  interface SeedBoard {
    scooters?: VehicleCategory;
    cars?: VehicleCategory;
  }
}

/** E-scooters and compact cars in the district branch; the rest of the fleet's data after the flush. */
export const fleetSeed: DomainSeed = {
  rows(tx: EntityManager, board: SeedBoard) {
    const tenant = fromBoard(board, 'tenant');
    const district = fromBoard(board, 'district');
    const scooters = tx.create(VehicleCategory, {
      tenant,
      name: 'E-Scooter',
      bookable: true,
      configuration: {
        socLevels: { high: 50, medium: 20, low: 10 },
        chargingLimit: 80,
        hasTailbox: false,
        disallowedRentalOperations: ['OPEN_TAILBOX'],
        commands: ['LOCK', 'UNLOCK', 'LOCATE', 'ALARM_ON', 'ALARM_OFF', 'SET_MAX_SPEED', 'REBOOT'],
      },
    });
    const cars = tx.create(VehicleCategory, {
      tenant,
      name: 'Compact car',
      bookable: true,
      configuration: {
        socLevels: { high: 60, medium: 25, low: 10 },
        chargingLimit: 80,
        hasTailbox: true,
        rentalOperationOverrides: { START: { timeoutSeconds: 15 } },
        commands: ['LOCK', 'UNLOCK', 'LOCATE', 'START', 'STOP', 'OPEN_TAILBOX', 'LOCK_TAILBOX', 'REBOOT'],
      },
    });
    berlinSpots.forEach(([street, lat, lng], index) => {
      const isCar = index % 3 === 2;
      tx.create(Vehicle, {
        tenant,
        code: isCar ? `B-FF ${1000 + index}` : `SC-${String(index + 1).padStart(3, '0')}`,
        licensePlate: isCar ? `B-FF ${1000 + index}` : null,
        branch: district,
        category: isCar ? cars : scooters,
        latitude: lat,
        longitude: lng,
        stateOfCharge: 55 + ((index * 7) % 45),
        batteryLevel: 'HIGH',
        powerState: 'OFF',
        offline: true,
        locked: true,
        odometerKm: 100 + index * 37,
        customProperties: { parkedAt: street },
      });
    });
    Object.assign(board, { scooters, cars });
  },
  afterFlush: (tx: EntityManager, board: SeedBoard) => seedFleet(tx, board.tenantId),
};

/**
 * Gives every vehicle a rotating identifier, adds a child category that inherits the scooters'
 * configuration, IoT modules on the first vehicles and a visible mix of unavailable vehicles at the end
 * of the fleet (out of order, battery too low, must remain on charger). Runs inside the seed's
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
