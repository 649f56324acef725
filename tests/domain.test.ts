// Pure rules shared by API, activities and workflows.
import {
  batteryLevelFor,
  effectiveCategoryConfiguration,
  vehicleReadiness,
  type VehicleReadinessInput,
} from '../domain/vehicle.js';
import { operationRefusal, renewedReservationExpiry, defaultReservationSettings } from '../domain/rental.js';
import { grantsAllow } from '../domain/permissions.js';
import { DomainError, catalogueEntry, kernelErrors } from '../domain/errors.js';
import { domains } from '../composition/registry.js';

const ready: VehicleReadinessInput = {
  rentalState: 'AVAILABLE',
  serviceStateV2: 'FUNCTIONAL',
  stateOfCharge: 80,
  offline: false,
  charging: false,
  categoryBookable: true,
  configuration: { socLevels: { high: 60, medium: 25, low: 10 }, chargingLimit: 80 },
};

describe('ready-to-rent rules', () => {
  test('every rule contributes its own reason', () => {
    expect(vehicleReadiness(ready)).toEqual({
      available: true,
      batteryLevel: 'HIGH',
      unavailabilityReasons: [],
    });
    expect(vehicleReadiness({ ...ready, serviceStateV2: 'SERVICE_WORKSHOP' }).unavailabilityReasons).toEqual([
      'OUT_OF_ORDER',
    ]);
    expect(vehicleReadiness({ ...ready, stateOfCharge: 12 }).unavailabilityReasons).toEqual([
      'BATTERY_TOO_LOW',
    ]);
    expect(vehicleReadiness({ ...ready, stateOfCharge: null }).unavailabilityReasons).toEqual([
      'BATTERY_TOO_LOW',
    ]);
    expect(vehicleReadiness({ ...ready, offline: true }).unavailabilityReasons).toEqual(['OFFLINE']);
    expect(vehicleReadiness({ ...ready, charging: true, stateOfCharge: 70 }).unavailabilityReasons).toEqual([
      'MUST_REMAIN_ON_CHARGER',
    ]);
  });

  test('availability is never derived from rentalState alone', () => {
    expect(vehicleReadiness({ ...ready, rentalState: 'RESERVATION' })).toMatchObject({
      available: false,
      unavailabilityReasons: [],
    });
    expect(vehicleReadiness({ ...ready, categoryBookable: false }).available).toBe(false);
    expect(
      vehicleReadiness({ ...ready, stateOfCharge: 5, configuration: { ignoreSoC: true } }).available,
    ).toBe(true);
  });

  test('battery levels follow the category thresholds; child configuration wins over the parent', () => {
    expect([70, 30, 15, 5].map((soc) => batteryLevelFor(soc))).toEqual(['HIGH', 'MEDIUM', 'LOW', 'CRITICAL']);
    expect(
      effectiveCategoryConfiguration([{ chargingLimit: 90 }, { chargingLimit: 80, hasTailbox: true }]),
    ).toEqual({ chargingLimit: 90, hasTailbox: true });
  });
});

describe('rental operations', () => {
  test('the transition table', () => {
    expect(operationRefusal('START', 'RESERVATION', undefined)).toBeUndefined();
    expect(operationRefusal('START', 'ACTIVE', 'DRIVING')).toBe('R201');
    expect(operationRefusal('END', 'RESERVATION', undefined)).toBe('R201');
    expect(operationRefusal('PARK', 'ACTIVE', 'PARKING')).toBe('R201');
    expect(operationRefusal('DRIVE', 'ACTIVE', 'PARKING')).toBeUndefined();
    expect(operationRefusal('DRIVE', 'ACTIVE', 'DRIVING')).toBe('R201');
    expect(operationRefusal('OPEN_TAILBOX', 'ACTIVE', 'DRIVING', ['OPEN_TAILBOX'])).toBe('R204');
  });

  test('renewal extends up to the maximum free reservation time', () => {
    const minute = 60_000;
    const settings = { ...defaultReservationSettings, reservationMinutes: 15, reservationMaxMinutes: 30 };
    expect(renewedReservationExpiry(0, 15 * minute, 10 * minute, settings, 30)).toBe(25 * minute);
    expect(renewedReservationExpiry(0, 25 * minute, 20 * minute, settings, 30)).toBe(30 * minute);
    expect(renewedReservationExpiry(0, 30 * minute, 29 * minute, settings, 30)).toBeUndefined();
    // A reservation made with only 20 free minutes left in the window renews up to those 20.
    expect(renewedReservationExpiry(0, 15 * minute, 10 * minute, settings, 20)).toBe(20 * minute);
  });
});

describe('permissions', () => {
  test('operational grants cover descendants; finance grants need the business unit', () => {
    const grants = [
      { permissions: ['RENTAL_READ'], branchId: 1 },
      { permissions: ['INVOICE_READ'], businessUnitId: 7 },
    ];
    expect(grantsAllow(grants, 'RENTAL_READ', { branchAncestry: [2, 1] })).toBe(true);
    expect(grantsAllow(grants, 'RENTAL_READ', { branchAncestry: [3] })).toBe(false);
    expect(grantsAllow(grants, 'RENTAL_OPERATE', { branchAncestry: [2, 1] })).toBe(false);
    expect(grantsAllow(grants, 'INVOICE_READ', { businessUnitId: 7 })).toBe(true);
    expect(grantsAllow(grants, 'INVOICE_READ', { branchAncestry: [1], businessUnitId: 8 })).toBe(false);
  });
});

describe('error catalogue', () => {
  test('every entry is keyed by its code; sub-codes resolve to their base', () => {
    for (const table of [kernelErrors, ...domains.map((domain) => domain.errors ?? {})])
      for (const [code, entry] of Object.entries(table)) expect(entry.code).toBe(code);
    expect(catalogueEntry('U130.2').code).toBe('U130');
    expect(catalogueEntry('A103416').code).toBe('A103');
    expect(new DomainError('R102').toBody('t')).toEqual({
      errorCode: 'R102',
      userMessage: expect.any(String),
      httpStatus: 409,
      traceId: 't',
    });
    expect(() => catalogueEntry('NOPE1')).toThrow();
  });
});
