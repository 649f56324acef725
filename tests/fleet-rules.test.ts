// Fleet rules without infrastructure: when a vehicle is ready to rent (a table of cases), reports applied
// in device order, and the inheritance and validation of category configuration.
import {
  applyVehicleReport,
  categoryConfigurationProblems,
  effectiveCategoryConfiguration,
  vehicleReadiness,
  type ReportedVehicleFields,
  type VehicleReadinessInput,
} from '../domain/vehicle.js';

describe('ready-to-rent rules (table of cases)', () => {
  const ready: VehicleReadinessInput = {
    rentalState: 'AVAILABLE',
    serviceStateV2: 'FUNCTIONAL',
    stateOfCharge: 80,
    iotStateOfCharge: 80,
    iotModuleLevel: 4.0,
    offline: false,
    charging: false,
    categoryBookable: true,
    configuration: { socLevels: { high: 60, medium: 25, low: 10 }, chargingLimit: 80 },
  };
  const cases: Array<[string, Partial<VehicleReadinessInput>, boolean, string[]]> = [
    ['ready', {}, true, []],
    ['INSPECT is operational', { serviceStateV2: 'INSPECT' }, true, []],
    ['workshop', { serviceStateV2: 'SERVICE_WORKSHOP' }, false, ['OUT_OF_ORDER']],
    ['LOW battery', { stateOfCharge: 15 }, false, ['BATTERY_TOO_LOW']],
    ['unknown charge', { stateOfCharge: null }, false, ['BATTERY_TOO_LOW']],
    ['ignoreSoC', { stateOfCharge: 5, configuration: { ignoreSoC: true } }, true, []],
    ['offline', { offline: true }, false, ['OFFLINE']],
    ['charging below limit', { charging: true, stateOfCharge: 70 }, false, ['MUST_REMAIN_ON_CHARGER']],
    ['charging at limit', { charging: true, stateOfCharge: 80 }, true, []],
    [
      'station charging off',
      {
        charging: true,
        stateOfCharge: 70,
        configuration: { chargingLimit: 80, stationChargingToggle: false },
      },
      true,
      [],
    ],
    [
      'IoT state of charge',
      { stateOfCharge: 90, iotStateOfCharge: 12, configuration: { useIoTSoCLevel: true } },
      false,
      ['BATTERY_TOO_LOW'],
    ],
    [
      'IoT battery level (voltage)',
      { stateOfCharge: 10, iotModuleLevel: 3.95, configuration: { useIoTBatteryLevel: true } },
      true,
      [],
    ],
    ['reserved', { rentalState: 'RESERVATION' }, false, []],
    ['category not bookable', { categoryBookable: false }, false, []],
    [
      'every reason at once',
      { serviceStateV2: 'LOST', stateOfCharge: 1, offline: true, charging: true },
      false,
      ['OUT_OF_ORDER', 'BATTERY_TOO_LOW', 'OFFLINE', 'MUST_REMAIN_ON_CHARGER'],
    ],
  ];
  test.each(cases)('%s', (_name, change, available, reasons) => {
    const readiness = vehicleReadiness({ ...ready, ...change });
    expect(readiness.available).toBe(available);
    expect(readiness.unavailabilityReasons).toEqual(reasons);
  });

  test('reports apply in device order: an older report never overwrites a newer one', () => {
    const row: ReportedVehicleFields = {
      batteryLevel: 'UNKNOWN',
      locked: true,
      powerState: 'OFF',
      charging: false,
    };
    expect(applyVehicleReport(row, { at: '2026-01-01T10:00:05Z', locked: true, stateOfCharge: 70 }, {})).toBe(
      true,
    );
    expect(
      applyVehicleReport(row, { at: '2026-01-01T10:00:01Z', locked: false, stateOfCharge: 71 }, {}),
    ).toBe(false);
    expect(row).toMatchObject({ locked: true, stateOfCharge: 70, batteryLevel: 'HIGH' });
  });

  test('category configuration: inheritance and validation of every key', () => {
    expect(
      effectiveCategoryConfiguration([{ chargingLimit: 90 }, { chargingLimit: 80, ignoreSoC: true }]),
    ).toEqual({ chargingLimit: 90, ignoreSoC: true });
    expect(
      categoryConfigurationProblems({ socLevels: { high: 60, medium: 25, low: 10 }, commands: ['LOCK'] }),
    ).toEqual([]);
    expect(categoryConfigurationProblems({ socLevels: { high: 10, medium: 25, low: 60 } })).toHaveLength(1);
    expect(categoryConfigurationProblems({ chargingLimit: 101, ignoreSoC: 'yes', typo: 1 })).toHaveLength(3);
    expect(categoryConfigurationProblems({ disallowedRentalOperations: ['FLY'] })).toHaveLength(1);
    expect(
      categoryConfigurationProblems({ rentalOperationOverrides: { START: { timeoutSeconds: 0 } } }),
    ).toHaveLength(1);
  });
});
