// Rental requirements without infrastructure: the seventeen end requirements (a matrix of facts), the
// start requirements with every failing cause and its code, the rental.requirements setting, and the
// sensors devices report.
import { prepareAreas, type GeofenceArea } from '../domain/geofence.js';
import {
  applyEndOverrides,
  endRequirementCodes,
  endRequirementNames,
  evaluateEndRequirements,
  evaluateStartRequirements,
  requirementsFor,
  requirementsSettingProblems,
  startRequirementNames,
  type EndFacts,
  type EndRequirementName,
  type RentalRequirementsConfig,
  type StartFacts,
  type StartRequirementName,
} from '../domain/rental-requirements.js';
import { applyVehicleReport } from '../domain/vehicle.js';
import { parseVehicleTelemetry } from '../devices/protocol.js';
import { SimulatedVehicle } from '../devices/simulated-vehicle.js';
import { square } from './support/geofences.js';

const inside = { lat: 52.52, lng: 13.4 };
const prohibited = { lat: 52.53, lng: 13.41 };
const outside = { lat: 52.7, lng: 13.9 };
const areas: GeofenceArea[] = [
  {
    id: 'business',
    status: 'ACTIVE',
    vehicleTypeIds: [],
    geofence: square(52.525, 13.405, 0.02),
    policies: [{ type: 'ALLOW_END_RENTAL_POLICY' }],
  },
  {
    id: 'pedestrian',
    status: 'ACTIVE',
    vehicleTypeIds: [],
    geofence: square(prohibited.lat, prohibited.lng, 0.002),
    policies: [{ type: 'NO_END_RENTAL_POLICY' }],
  },
];

const goodFacts = (): EndFacts => ({
  at: new Date('2026-11-22T12:00:00Z'),
  vehicleCategoryId: 1,
  vehiclePosition: inside,
  userPosition: inside,
  areas: prepareAreas(areas),
  stations: [{ id: 1, position: inside, radiusMeters: 50 }],
  dockedInStation: true,
  charging: true,
  powerState: 'OFF',
  sensors: {
    doorsClosed: true,
    tailboxClosed: true,
    bikeLockLocked: true,
    helmetsPluggedIn: 2,
    keyInHolder: true,
    parkBrakeOn: true,
    rfidCardsInHolder: 2,
    statusTurnedOff: true,
  },
  startSensors: { helmetsPluggedIn: 2, rfidCardsInHolder: 2 },
});

/** For each end requirement: facts that make it fail (over the good facts). */
const endFailures: Record<EndRequirementName, (facts: EndFacts) => Partial<EndFacts>> = {
  IN_BUSINESS_AREA: () => ({ vehiclePosition: outside }),
  USER_IN_BUSINESS_AREA: () => ({ userPosition: outside }),
  NOT_IN_PROHIBITED_AREA: () => ({ vehiclePosition: prohibited }),
  USER_NOT_IN_PROHIBITED_AREA: () => ({ userPosition: prohibited }),
  VEHICLE_IN_STATION_AREA: () => ({ vehiclePosition: { lat: 52.5206, lng: 13.4 } }),
  VEHICLE_LOCKED_IN_STATION: () => ({ dockedInStation: false }),
  IS_CHARGING: () => ({ charging: false }),
  TAILBOX_CLOSED: (f) => ({ sensors: { ...f.sensors, tailboxClosed: false } }),
  HELMETS_PLUGGED_IN: (f) => ({ sensors: { ...f.sensors, helmetsPluggedIn: 0 } }),
  EXISTING_HELMETS_PLUGGED_IN: (f) => ({ sensors: { ...f.sensors, helmetsPluggedIn: 1 } }),
  EXISTING_RFID_CARD_HOLDER_CARDS_RETURNED: (f) => ({ sensors: { ...f.sensors, rfidCardsInHolder: 1 } }),
  BIKE_LOCK_LOCKED: (f) => ({ sensors: { ...f.sensors, bikeLockLocked: false } }),
  POWER_STATE_OFF: () => ({ powerState: 'ON' }),
  STATUS_TURNED_OFF: (f) => ({ sensors: { ...f.sensors, statusTurnedOff: false } }),
  DOORS_CLOSED: (f) => ({ sensors: { ...f.sensors, doorsClosed: false } }),
  KEY_IN_HOLDER: (f) => ({ sensors: { ...f.sensors, keyInHolder: false } }),
  PARK_BRAKE_ON: (f) => ({ sensors: { ...f.sensors, parkBrakeOn: false } }),
};

const endOnly = (...end: EndRequirementName[]): RentalRequirementsConfig => ({ start: [], end });

describe('end requirements (pure)', () => {
  test('the spec names seventeen, each with a catalogue code; R131 and R148 are the spec’s', () => {
    expect(endRequirementNames).toHaveLength(17);
    expect(endRequirementCodes.IN_BUSINESS_AREA).toBe('R131');
    expect(endRequirementCodes.BIKE_LOCK_LOCKED).toBe('R148');
    expect(new Set(Object.values(endRequirementCodes)).size).toBe(17);
  });

  test.each(endRequirementNames)('%s passes on good facts and fails with its code', (name) => {
    const good = evaluateEndRequirements(endOnly(name), goodFacts());
    expect(good).toEqual({ passed: true, requirements: [{ name, passed: true }] });
    const facts = goodFacts();
    const bad = evaluateEndRequirements(endOnly(name), { ...facts, ...endFailures[name](facts) });
    expect(bad.passed).toBe(false);
    expect(bad.requirements[0]).toMatchObject({ name, passed: false, code: endRequirementCodes[name] });
    expect(bad.requirements[0]!.message).toEqual(expect.any(String));
  });

  test('every requirement together passes; one failure fails the whole evaluation', () => {
    const all = endOnly(...endRequirementNames);
    expect(evaluateEndRequirements(all, goodFacts()).passed).toBe(true);
    const facts = goodFacts();
    const result = evaluateEndRequirements(all, { ...facts, powerState: 'ON' });
    expect(result.passed).toBe(false);
    expect(result.requirements.filter((r) => !r.passed).map((r) => r.name)).toEqual(['POWER_STATE_OFF']);
  });

  test('a sensor never reported, an unknown position or power state cannot prove a requirement', () => {
    const facts = {
      ...goodFacts(),
      sensors: {},
      startSensors: null,
      vehiclePosition: null,
      userPosition: null,
    };
    const result = evaluateEndRequirements(endOnly(...endRequirementNames), {
      ...facts,
      powerState: 'UNKNOWN',
    });
    const passed = result.requirements.filter((r) => r.passed).map((r) => r.name);
    // Only what does not need a sensor or a position still passes.
    expect(passed.sort()).toEqual(['IS_CHARGING', 'VEHICLE_LOCKED_IN_STATION']);
    const helmets = evaluateEndRequirements(endOnly('EXISTING_HELMETS_PLUGGED_IN'), {
      ...goodFacts(),
      startSensors: {},
    });
    expect(helmets.requirements[0]).toMatchObject({ passed: false, code: 'RQ209' });
  });

  test('ending is allowed anywhere not forbidden when the branch has no allowing area; capacity counts', () => {
    const open = prepareAreas([areas[1]!]);
    const facts = { ...goodFacts(), areas: open, vehiclePosition: outside };
    expect(evaluateEndRequirements(endOnly('IN_BUSINESS_AREA'), facts).passed).toBe(true);
    const full = prepareAreas([
      {
        ...areas[0]!,
        policies: [
          { type: 'ALLOW_END_RENTAL_POLICY' },
          { type: 'END_RENTAL_CAPACITY_POLICY', overallCapacity: 1, applicableStates: ['AVAILABLE'] },
        ],
      },
    ]);
    const crowded = evaluateEndRequirements(endOnly('IN_BUSINESS_AREA'), {
      ...goodFacts(),
      areas: full,
      otherVehicles: [{ position: inside, vehicleCategoryId: 2, rentalState: 'AVAILABLE' }],
    });
    expect(crowded.requirements[0]).toMatchObject({ passed: false, code: 'R131' });
    expect(crowded.requirements[0]!.message).toMatch(/full/);
  });

  test('a station area drawn as a geofence wins over the radius; docking by sensor counts', () => {
    const facts = goodFacts();
    const drawn = evaluateEndRequirements(endOnly('VEHICLE_IN_STATION_AREA'), {
      ...facts,
      stations: [{ id: 2, position: outside, radiusMeters: 1, area: square(inside.lat, inside.lng, 0.001) }],
    });
    expect(drawn.passed).toBe(true);
    const sensor = evaluateEndRequirements(endOnly('VEHICLE_LOCKED_IN_STATION'), {
      ...facts,
      dockedInStation: false,
      sensors: { lockedInStation: true },
    });
    expect(sensor.passed).toBe(true);
  });

  test('an administrative override passes failed requirements and names them', () => {
    const facts = goodFacts();
    const failed = evaluateEndRequirements(endOnly('IN_BUSINESS_AREA', 'IS_CHARGING'), {
      ...facts,
      vehiclePosition: outside,
    });
    expect(applyEndOverrides(failed, false).overridden).toEqual([]);
    const { evaluation, overridden } = applyEndOverrides(failed, true);
    expect(overridden).toEqual(['IN_BUSINESS_AREA']);
    expect(evaluation.passed).toBe(true);
    expect(evaluation.requirements[0]!.skipped).toMatch(/overridden/);
  });
});

const goodCustomer = (): StartFacts['customer'] => ({
  isBlocked: false,
  emailIsVerified: true,
  phoneIsVerified: true,
  licenseVerificationState: 'VERIFIED',
  idVerificationState: 'VERIFIED',
  manualVerificationState: 'VERIFIED',
  customExternalVerificationState: 'VERIFIED',
  birthDate: '1990-06-15',
  drivingLicenseCategories: ['B', 'AM'],
  skipPreAuth: false,
  paymentState: 'SOURCE_ADDED',
});

const goodStart = (): StartFacts => ({
  at: new Date('2026-11-22T12:00:00Z'),
  customer: goodCustomer(),
  termsState: 'ACCEPTED',
  paymentSources: [{ type: 'CARD' }],
  rentalAuthority: true,
  businessAccount: {
    groupId: 7,
    member: true,
    checkRentalRequirements: true,
    shouldIgnoreBCategoryRentalRequirement: false,
    skipPreAuth: false,
    paymentState: 'SOURCE_ADDED',
    paymentSources: [{ type: 'CARD' }],
  },
});

const allStart: RentalRequirementsConfig = {
  start: [...startRequirementNames],
  end: [],
  minimumAge: 21,
  maximumAge: 75,
  licenseCategories: ['B'],
};

const failing = (facts: StartFacts, config = allStart) =>
  evaluateStartRequirements(config, facts)
    .requirements.filter((r) => !r.passed)
    .map((r) => [r.name, r.code]);

describe('start requirements (pure)', () => {
  test('a verified, paying, authorized customer of age in a business account passes all of them', () => {
    const result = evaluateStartRequirements(allStart, goodStart());
    expect(result.passed).toBe(true);
    expect(result.requirements.map((r) => r.name)).toEqual([...startRequirementNames]);
  });

  const causes: [StartRequirementName, (f: StartFacts) => void, string][] = [
    ['ACCOUNT_NOT_BLOCKED', (f) => (f.customer.isBlocked = true), 'U131'],
    ['EMAIL_VERIFIED', (f) => (f.customer.emailIsVerified = false), 'RQ101'],
    ['PHONE_VERIFIED', (f) => (f.customer.phoneIsVerified = false), 'RQ102'],
    ['LICENSE_VERIFIED', (f) => (f.customer.licenseVerificationState = 'PROCESSING'), 'RQ103'],
    ['ID_VERIFIED', (f) => (f.customer.idVerificationState = 'REJECTED'), 'RQ104'],
    ['MANUAL_VERIFIED', (f) => (f.customer.manualVerificationState = 'RETRY'), 'RQ105'],
    ['CUSTOM_EXTERNAL_VERIFIED', (f) => (f.customer.customExternalVerificationState = 'UNVERIFIED'), 'RQ106'],
    ['TERMS_ACCEPTED', (f) => (f.termsState = 'NOT_ACCEPTED'), 'U601'],
    ['TERMS_ACCEPTED', (f) => (f.termsState = 'OUTDATED'), 'U602'],
    [
      'PAYMENT_METHOD',
      (f) => {
        f.businessAccount = null;
        f.paymentSources = [];
      },
      'P104',
    ],
    [
      'PAYMENT_PRE_AUTHORIZATION',
      (f) => {
        f.businessAccount = null;
        f.paymentSources = [{ type: 'SEPA' }];
      },
      'RQ107',
    ],
    ['RENTAL_AUTHORITY', (f) => (f.rentalAuthority = false), 'RQ108'],
    ['MINIMUM_AGE', (f) => (f.customer.birthDate = '2006-01-01'), 'U132'],
    ['MAXIMUM_AGE', (f) => (f.customer.birthDate = '1940-01-01'), 'U133'],
    ['LICENSE_CATEGORY', (f) => (f.customer.drivingLicenseCategories = ['AM']), 'RQ109'],
    ['LICENSE_CATEGORY', (f) => (f.customer.drivingLicenseCategories = null), 'RQ109'],
    ['BUSINESS_ACCOUNT', (f) => (f.businessAccount = null), 'RQ110'],
    ['BUSINESS_ACCOUNT', (f) => (f.businessAccount!.member = false), 'U144'],
  ];

  test.each(causes)('%s fails alone with its code (%#)', (name, spoil, code) => {
    const facts = goodStart();
    spoil(facts);
    const failed = failing(facts).filter(([n]) => n === name);
    expect(failed).toEqual([[name, code]]);
    expect(() => {
      const result = evaluateStartRequirements({ ...allStart, start: [name] }, facts);
      if (!result.passed) throw new Error(result.requirements[0]!.code);
    }).toThrow(code);
  });

  test('the age is counted at the booking start; a missing birth date is U130.7', () => {
    const facts = goodStart();
    facts.customer.birthDate = '2005-11-23';
    const config = { ...allStart, start: ['MINIMUM_AGE' as const] };
    expect(failing({ ...facts, at: new Date('2026-11-22T12:00:00Z') }, config)).toEqual([
      ['MINIMUM_AGE', 'U132'],
    ]);
    expect(failing({ ...facts, at: new Date('2026-11-23T00:00:00Z') }, config)).toEqual([]);
    facts.customer.birthDate = null;
    expect(failing(facts, config)).toEqual([['MINIMUM_AGE', 'U130.7']]);
  });

  test('skipPreAuth on the customer or on the business account skips the pre-authorization', () => {
    const config = { ...allStart, start: ['PAYMENT_PRE_AUTHORIZATION' as const] };
    const facts = goodStart();
    facts.businessAccount!.paymentSources = [{ type: 'SEPA' }];
    expect(failing(facts, config)).toEqual([['PAYMENT_PRE_AUTHORIZATION', 'RQ107']]);
    facts.businessAccount!.skipPreAuth = true;
    const byGroup = evaluateStartRequirements(config, facts);
    expect(byGroup.requirements[0]).toMatchObject({
      passed: true,
      skipped: expect.stringMatching(/business account/),
    });
    facts.businessAccount!.skipPreAuth = false;
    facts.customer.skipPreAuth = true;
    const byCustomer = evaluateStartRequirements(config, facts);
    expect(byCustomer.requirements[0]).toMatchObject({
      passed: true,
      skipped: expect.stringMatching(/customer/),
    });
  });

  test('a business account without checkRentalRequirements vouches for verification, age and licence only', () => {
    const facts = goodStart();
    Object.assign(facts.customer, {
      emailIsVerified: false,
      licenseVerificationState: 'UNVERIFIED',
      birthDate: null,
      drivingLicenseCategories: null,
      isBlocked: true,
    });
    facts.termsState = 'NOT_ACCEPTED';
    expect(failing(facts).map(([name]) => name)).toContain('EMAIL_VERIFIED');
    facts.businessAccount!.checkRentalRequirements = false;
    expect(failing(facts)).toEqual([
      ['ACCOUNT_NOT_BLOCKED', 'U131'],
      ['TERMS_ACCEPTED', 'U601'],
    ]);
    // A private rental of the same customer is checked in full.
    expect(failing({ ...facts, businessAccount: null }).length).toBeGreaterThan(5);
  });

  test('shouldIgnoreBCategoryRentalRequirement drops the B category for the account’s members', () => {
    const facts = goodStart();
    facts.customer.drivingLicenseCategories = [];
    const config = { ...allStart, start: ['LICENSE_CATEGORY' as const], licenseCategories: ['B'] };
    expect(failing(facts, config)).toEqual([['LICENSE_CATEGORY', 'RQ109']]);
    facts.businessAccount!.shouldIgnoreBCategoryRentalRequirement = true;
    expect(failing(facts, config)).toEqual([]);
    expect(failing(facts, { ...config, licenseCategories: ['B', 'C1'] })).toEqual([
      ['LICENSE_CATEGORY', 'RQ109'],
    ]);
  });

  test('business rentals are paid by the account: its payment method counts, not the customer’s', () => {
    const facts = goodStart();
    facts.paymentSources = [];
    const config = { ...allStart, start: ['PAYMENT_METHOD' as const] };
    expect(failing(facts, config)).toEqual([]);
    facts.businessAccount!.paymentSources = [];
    expect(failing(facts, config)).toEqual([['PAYMENT_METHOD', 'P104']]);
    facts.businessAccount!.paymentState = 'INVOICING';
    expect(failing(facts, config)).toEqual([]);
  });
});

describe('the rental.requirements setting', () => {
  test('invalid configurations are described', () => {
    expect(requirementsSettingProblems({ default: { start: ['NOPE'], end: [] } })).toEqual([
      'default.start names an unknown requirement: NOPE',
    ]);
    expect(
      requirementsSettingProblems({
        profiles: { x: { start: ['MINIMUM_AGE'], end: ['IN_BUSINESS_AREA', 'IN_BUSINESS_AREA'] } },
      }),
    ).toEqual(['profiles.x.end names a requirement twice', 'profiles.x: MINIMUM_AGE needs minimumAge']);
    expect(
      requirementsSettingProblems({
        default: { start: [], end: [], minimumAge: 30, maximumAge: 20, extra: 1 },
      }),
    ).toEqual(['default.extra is not a requirements key', 'default.minimumAge exceeds maximumAge']);
    expect(requirementsSettingProblems([])).toEqual(['the setting value must be an object']);
    expect(requirementsSettingProblems({ profiles: 3, other: true })).toHaveLength(2);
  });

  test('the category’s key selects a profile, else the default, else nothing; a broken setting is RQ100', () => {
    const setting = {
      default: { start: ['EMAIL_VERIFIED'], end: [] },
      profiles: { cars: { start: ['LICENSE_VERIFIED'], end: ['DOORS_CLOSED'] } },
    };
    expect(requirementsFor(setting, 'cars')).toMatchObject({
      profile: 'cars',
      config: { end: ['DOORS_CLOSED'] },
    });
    expect(requirementsFor(setting, 'bikes')).toMatchObject({ profile: 'default' });
    expect(requirementsFor(setting, undefined)).toMatchObject({ profile: 'default' });
    expect(requirementsFor({ profiles: setting.profiles }, undefined)).toEqual({
      profile: null,
      config: { start: [], end: [] },
    });
    expect(requirementsFor(undefined, 'cars').profile).toBeNull();
    expect(requirementsFor(setting, '__proto__').profile).toBe('default');
    expect(() => requirementsFor({ default: { start: 'all' } }, undefined)).toThrow(
      /rental.requirements setting is invalid/,
    );
  });
});

describe('device sensors', () => {
  test('telemetry carries sensors, junk sensors reject the message, reports merge key by key', () => {
    const scooter = new SimulatedVehicle({
      vehicleId: '1',
      code: 'S',
      position: { lat: 52.5, lng: 13.4 },
      stateOfCharge: 80,
    });
    const telemetry = JSON.parse(JSON.stringify(scooter.telemetry(new Date())));
    expect(parseVehicleTelemetry(telemetry)?.sensors).toEqual({ bikeLockLocked: true, helmetsPluggedIn: 1 });
    expect(parseVehicleTelemetry({ ...telemetry, sensors: { bikeLockLocked: 'yes' } })).toBeUndefined();
    expect(parseVehicleTelemetry({ ...telemetry, sensors: { helmetsPluggedIn: 1.5 } })).toBeUndefined();
    expect(parseVehicleTelemetry({ ...telemetry, sensors: { unknown: true } })).toBeUndefined();
    const car = new SimulatedVehicle({
      vehicleId: '2',
      code: 'C',
      position: { lat: 52.5, lng: 13.4 },
      stateOfCharge: 80,
      hasTailbox: true,
    });
    expect(car.sensors()).toMatchObject({ doorsClosed: true, tailboxClosed: true, statusTurnedOff: true });

    const vehicle = {
      batteryLevel: 'UNKNOWN' as const,
      locked: true,
      powerState: 'OFF' as const,
      charging: false,
      sensors: { helmetsPluggedIn: 2, doorsClosed: true },
    };
    applyVehicleReport(vehicle, { at: '2026-11-22T10:00:00Z', sensors: { doorsClosed: false } }, {});
    expect(vehicle.sensors).toEqual({ helmetsPluggedIn: 2, doorsClosed: false });
    // An older report never overwrites.
    applyVehicleReport(vehicle, { at: '2026-11-22T09:00:00Z', sensors: { doorsClosed: true } }, {});
    expect(vehicle.sensors.doorsClosed).toBe(false);
  });
});
