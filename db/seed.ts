import type { EntityManager } from '@mikro-orm/postgresql';
import { ApiClient } from './entities/ApiClient.js';
import { Branch } from './entities/Branch.js';
import { BusinessUnit } from './entities/BusinessUnit.js';
import { Customer } from './entities/Customer.js';
import { Role } from './entities/Role.js';
import { RoleAssignment } from './entities/RoleAssignment.js';
import { Setting } from './entities/Setting.js';
import { Tenant } from './entities/Tenant.js';
import { Vehicle } from './entities/Vehicle.js';
import { VehicleCategory } from './entities/VehicleCategory.js';
import type { PermissionCatalogue } from '../domain/permissions.js';
import { RENTAL_RESERVATION_SETTING_KEY, defaultReservationSettings } from '../domain/rental.js';
import { hashSecret } from '../platform/secrets.js';
import { seedPricing } from './seed/pricing.js';
import { seedFleet } from './seed/fleet.js';
import { seedCustomers } from './seed/customers.js';
import { seedGeography } from './seed/geography.js';
import { seedRentalRequirements } from './seed/rental-requirements.js';
import { seedBookings } from './seed/bookings.js';
import { seedDamages } from './seed/damages.js';

export const DEMO_TENANT = 'demo';
/** The district branch that holds the seeded fleet. */
export const DEMO_BRANCH_CODE = 'berlin-mitte';
/** Demo credentials printed by `npm start` and the README; only for the local demo tenant. */
export const demoOperatorClient = { clientId: 'demo-operator', clientSecret: 'demo-operator-secret' };
export const demoAppClient = { clientId: 'demo-app', clientSecret: 'demo-app-secret' };

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

export interface SeededTenant {
  tenant: string;
  businessUnitId: number;
  cityBranchId: number;
  branchId: number;
  /** A sibling branch the operator client holds no role on (for denial paths). */
  otherBranchId: number;
  customerIds: number[];
  /** The demo booking stations (branches under the city): three cars at the first, one at the second. */
  bookingStationIds: [number, number];
}

/** Seeds the demo tenant once (skips when it exists). */
export async function seedDemoTenant(
  rootEm: EntityManager,
  permissions: PermissionCatalogue,
): Promise<{ created: boolean }> {
  const em = rootEm.fork();
  if (await em.findOne(Tenant, { id: DEMO_TENANT }, { filters: false })) return { created: false };
  await seedTenant(em, DEMO_TENANT, 'Demo Mobility', permissions);
  return { created: true };
}

/**
 * Seeds one tenant in one transaction: a business unit, a city branch with a district branch holding
 * 24 vehicles of two categories at real Berlin street corners, a sibling branch, customers, roles,
 * an operator API client (back) and an app client (front), and the reservation setting.
 */
export async function seedTenant(
  rootEm: EntityManager,
  tenantId: string,
  name: string,
  permissions: PermissionCatalogue,
): Promise<SeededTenant> {
  return rootEm.fork().transactional(async (tx) => {
    const tenant = tx.create(Tenant, { id: tenantId, name });
    const unit = tx.create(BusinessUnit, {
      tenant,
      code: 'BER',
      name: 'Demo Mobility Berlin GmbH',
      timeZoneId: 'Europe/Berlin',
      currency: 'EUR',
      taxPercentage: '19.00',
      scale: 2,
    });
    const city = tx.create(Branch, {
      tenant,
      name: 'Berlin',
      code: 'berlin',
      businessUnit: unit,
      timeZoneId: 'Europe/Berlin',
    });
    const mitte = tx.create(Branch, {
      tenant,
      name: 'Berlin Mitte',
      code: DEMO_BRANCH_CODE,
      parent: city,
      businessUnit: unit,
      timeZoneId: 'Europe/Berlin',
    });
    const spandau = tx.create(Branch, {
      tenant,
      name: 'Spandau',
      code: 'spandau',
      businessUnit: unit,
      timeZoneId: 'Europe/Berlin',
    });
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
        branch: mitte,
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
    seedPricing(tx, { tenant, businessUnit: unit, branch: city, scooters, cars });
    const stations = seedBookings(tx, { tenant, businessUnit: unit, city, cars });
    const customers = [
      ['anna.schmidt@example.com', 'Anna', 'Schmidt'],
      ['ben.mueller@example.com', 'Ben', 'Müller'],
      ['clara.weber@example.com', 'Clara', 'Weber'],
      ['deniz.yilmaz@example.com', 'Deniz', 'Yılmaz'],
    ];
    const customerRows = customers.map(([email, firstName, lastName]) =>
      tx.create(Customer, {
        tenant,
        email: email!,
        firstName: firstName!,
        lastName: lastName!,
        homeBusinessUnit: unit,
      }),
    );
    const operations = tx.create(Role, {
      tenant,
      name: 'Fleet operations',
      // Bookings inside the lead time and the advance limit stay an administrator's privilege.
      permissions: permissions.operational.filter((name) => name !== 'BOOKING_IGNORE_TIME_CONSTRAINTS'),
    });
    const finance = tx.create(Role, { tenant, name: 'Finance', permissions: [...permissions.finance] });
    tx.create(Role, { tenant, name: 'Administrator', permissions: [...permissions.all] });
    const operator = tx.create(ApiClient, {
      tenant,
      clientId: demoOperatorClient.clientId,
      name: 'Demo operator dashboard',
      secretHash: await hashSecret(demoOperatorClient.clientSecret),
      scopes: ['back'],
    });
    tx.create(ApiClient, {
      tenant,
      clientId: demoAppClient.clientId,
      name: 'Demo white-label app',
      secretHash: await hashSecret(demoAppClient.clientSecret),
      scopes: ['front'],
    });
    tx.create(RoleAssignment, {
      tenant,
      role: operations,
      subjectType: 'API_CLIENT',
      subjectId: operator.clientId,
      branch: city,
    });
    tx.create(RoleAssignment, {
      tenant,
      role: finance,
      subjectType: 'API_CLIENT',
      subjectId: operator.clientId,
      businessUnit: unit,
    });
    tx.create(Setting, {
      tenant,
      key: RENTAL_RESERVATION_SETTING_KEY,
      name: 'Rental reservation',
      area: 'CORE',
      valueType: 'RENTAL_RESERVATION_SETTINGS',
      branchIds: [0],
      value: { ...defaultReservationSettings },
    });
    tx.create(Setting, {
      tenant,
      key: 'app.map',
      name: 'App map defaults',
      area: 'APP',
      valueType: 'JSON',
      branchIds: [0],
      value: { center: { lat: 52.52, lng: 13.405 }, zoom: 14 },
      publicVisible: true,
    });
    await seedCustomers(tx, { tenant, customers: customerRows, cityBranch: city, businessUnit: unit });
    await seedGeography(tx, { tenant, city, district: mitte, cars });
    await tx.flush();
    await seedFleet(tx, tenantId);
    await seedDamages(tx, tenantId);
    seedRentalRequirements(tx, { tenant, branch: spandau });
    return {
      tenant: tenantId,
      businessUnitId: unit.id,
      cityBranchId: city.id,
      branchId: mitte.id,
      otherBranchId: spandau.id,
      customerIds: customerRows.map((customer) => customer.id),
      bookingStationIds: [stations.mainStation.id, stations.secondStation.id],
    };
  });
}
