// Demo booking stations: Berlin Hauptbahnhof (three compact cars, always open, cooldowns for preparation
// and cleaning) and Ostbahnhof (one car, small capacity, opening hours), both under the city branch, so
// round trips and one-way bookings can be tried at once.
import type { EntityManager } from '@mikro-orm/postgresql';
import { BookingStation } from '../entities/BookingStation.js';
import { Branch } from '../entities/Branch.js';
import { Setting } from '../entities/Setting.js';
import { Vehicle } from '../entities/Vehicle.js';
import { type BusinessUnit } from '../entities/BusinessUnit.js';
import { type Tenant } from '../entities/Tenant.js';
import { type VehicleCategory } from '../entities/VehicleCategory.js';
import { BOOKING_SETTINGS_KEY, defaultBookingSettings } from '../../domain/booking.js';
import { fromBoard, type DomainSeed, type SeedBoard } from './board.js';

const everyDay = (from: string, to: string) =>
  Object.fromEntries(['1', '2', '3', '4', '5', '6', '7'].map((day) => [day, [{ from, to }]]));

/** Seeds the two demo stations, their cars and the tenant's booking settings (same transaction as the tenant). */
export function seedBookings(
  tx: EntityManager,
  seed: { tenant: Tenant; businessUnit: BusinessUnit; city: Branch; cars: VehicleCategory },
): { mainStation: Branch; secondStation: Branch } {
  const { tenant, businessUnit, city, cars } = seed;
  const station = (code: string, name: string) =>
    tx.create(Branch, {
      tenant,
      name,
      code,
      parent: city,
      businessUnit,
      timeZoneId: 'Europe/Berlin',
      operationMode: 'BOOKING',
      type: 'STATION',
    });
  const mainStation = station('berlin-hbf', 'Berlin Hauptbahnhof');
  const secondStation = station('berlin-ostbahnhof', 'Berlin Ostbahnhof');
  tx.create(BookingStation, {
    tenant,
    branch: mainStation,
    capacity: 6,
    vehicleCategoryIds: [],
    startCooldownMinutes: 15,
    endCooldownMinutes: 30,
  });
  tx.create(BookingStation, {
    tenant,
    branch: secondStation,
    capacity: 2,
    openingHours: everyDay('06:00', '23:00'),
    startCooldownMinutes: 15,
    endCooldownMinutes: 30,
  });
  const car = (branch: Branch, index: number, lat: number, lng: number) =>
    tx.create(Vehicle, {
      tenant,
      code: `B-FB ${2000 + index}`,
      licensePlate: `B-FB ${2000 + index}`,
      branch,
      category: cars,
      latitude: lat,
      longitude: lng,
      stateOfCharge: 90,
      batteryLevel: 'HIGH',
      powerState: 'OFF',
      offline: true,
      locked: true,
      odometerKm: 5000 + index * 311,
      customProperties: { parkedAt: branch.name },
    });
  car(mainStation, 1, 52.52508, 13.36942);
  car(mainStation, 2, 52.52512, 13.36951);
  car(mainStation, 3, 52.52503, 13.36933);
  car(secondStation, 4, 52.51076, 13.43481);
  tx.create(Setting, {
    tenant,
    key: BOOKING_SETTINGS_KEY,
    name: 'Booking timeline',
    area: 'CORE',
    valueType: 'JSON',
    branchIds: [0],
    value: { ...defaultBookingSettings },
  });
  return { mainStation, secondStation };
}

declare module './board.js' {
  interface SeedBoard {
    /** Berlin Hauptbahnhof (three cars) and Ostbahnhof (one car). */
    bookingStations?: [Branch, Branch];
  }
}

/** The two demo booking stations under the city, their cars and the booking settings. */
export const bookingSeed: DomainSeed = {
  rows(tx: EntityManager, board: SeedBoard) {
    const { mainStation, secondStation } = seedBookings(tx, {
      tenant: fromBoard(board, 'tenant'),
      businessUnit: fromBoard(board, 'businessUnit'),
      city: fromBoard(board, 'city'),
      cars: fromBoard(board, 'cars'),
    });
    board.bookingStations = [mainStation, secondStation];
  },
};
