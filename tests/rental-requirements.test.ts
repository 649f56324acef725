// Rental requirements: the seventeen end requirements (pure matrix, then through the database with the
// seeded areas), the start requirements with every failing cause and its code, the configuration
// setting, rental authority, and the three endpoints with their denials and hostile inputs.
import { randomUUID } from 'node:crypto';
import { Area } from '../db/entities/Area.js';
import { AreaType } from '../db/entities/AreaType.js';
import { Branch } from '../db/entities/Branch.js';
import { CompatibleBranch } from '../db/entities/CompatibleBranch.js';
import { Customer } from '../db/entities/Customer.js';
import { Event } from '../db/entities/Event.js';
import { GroupMembership } from '../db/entities/GroupMembership.js';
import { PaymentSource } from '../db/entities/PaymentSource.js';
import { Setting } from '../db/entities/Setting.js';
import { TermsAcceptance } from '../db/entities/TermsAcceptance.js';
import { TermsAndConditions } from '../db/entities/TermsAndConditions.js';
import { UserGroup } from '../db/entities/UserGroup.js';
import { Vehicle } from '../db/entities/Vehicle.js';
import { VehicleCategory } from '../db/entities/VehicleCategory.js';
import { type Rental } from '../db/entities/Rental.js';
import { tenantEm } from '../db/orm.js';
import { demoAppClient, demoOperatorClient, type SeededTenant } from '../db/seed.js';
import { demoCustomer, demoGroupCode } from '../db/seed/customers.js';
import {
  assertStartRequirements,
  endRequirementsReport,
  startRequirementsReport,
} from '../db/rental-requirements.js';
import { prepareAreas, type GeofenceArea, type GeofenceGeometry } from '../domain/geofence.js';
import { isDomainError } from '../domain/errors.js';
import {
  applyEndOverrides,
  endRequirementCodes,
  endRequirementNames,
  evaluateEndRequirements,
  evaluateStartRequirements,
  requirementsFor,
  requirementsSettingProblems,
  RENTAL_REQUIREMENTS_SETTING_KEY,
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
import { uniqueTenant } from './support/stack.js';
import { expectError, startHttpStack, type HttpStack, type Reply } from './support/http.js';
import { seedTenant } from '../composition/seed.js';

// ---------------------------------------------------------------------------------------------------
// Pure rules

/** A square around a centre, as a MultiPolygon ([lng, lat]). */
const square = (lat: number, lng: number, half: number): GeofenceGeometry => ({
  type: 'MultiPolygon',
  coordinates: [
    [
      [
        [lng - half, lat - half],
        [lng + half, lat - half],
        [lng + half, lat + half],
        [lng - half, lat + half],
        [lng - half, lat - half],
      ],
    ],
  ],
});

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

// ---------------------------------------------------------------------------------------------------
// Through the database and the API

let stack: HttpStack;
let rival: SeededTenant;
let operator: string;
let appClient: string;
let annaToken: string;
let reqBranchId: number;
let strictCategoryId: number;
let plainCategoryId: number;
let endCategoryId: number;
let eastBranchId: number;
let annaId: number;
let denizId: number;
let acmeId: number;

const call = (method: string, path: string, options?: Parameters<HttpStack['call']>[2]): Promise<Reply> =>
  stack.call(method, path, options);
const back = (path: string) => stack.back(path);
const front = (path: string) => stack.front(path);
const em = () => tenantEm(stack.backend.orm, stack.backend.seed.tenant);

const strictProfile: RentalRequirementsConfig = {
  start: [
    'ACCOUNT_NOT_BLOCKED',
    'EMAIL_VERIFIED',
    'LICENSE_VERIFIED',
    'TERMS_ACCEPTED',
    'PAYMENT_METHOD',
    'PAYMENT_PRE_AUTHORIZATION',
    'RENTAL_AUTHORITY',
    'MINIMUM_AGE',
  ],
  end: [],
  minimumAge: 18,
};

beforeAll(async () => {
  stack = await startHttpStack();
  const { seed } = stack.backend;
  rival = await seedTenant(stack.backend.orm.em, uniqueTenant('rival'), 'Rival Mobility');
  operator = await stack.token(seed.tenant, demoOperatorClient);
  appClient = await stack.token(seed.tenant, demoAppClient);
  const signIn = await call('POST', `/v1/${seed.tenant}/auth/customer/sign-in`, { body: demoCustomer });
  annaToken = signIn.body.access_token;

  const tx = em();
  const city = await tx.findOneOrFail(Branch, seed.cityBranchId);
  const reqBranch = tx.create(Branch, {
    name: 'Requirements test',
    code: 'req-test',
    parent: city,
    businessUnit: city.businessUnit,
    timeZoneId: 'Europe/Berlin',
  });
  const east = tx.create(Branch, {
    name: 'East test',
    code: 'east-test',
    parent: city,
    businessUnit: city.businessUnit,
    timeZoneId: 'Europe/Berlin',
  });
  const strict = tx.create(VehicleCategory, {
    name: 'Strict test',
    bookable: true,
    configuration: { rentalRequirementsKey: 'strict' },
  });
  const plain = tx.create(VehicleCategory, { name: 'Plain test', bookable: true, configuration: {} });
  const endCategory = tx.create(VehicleCategory, {
    name: 'End test',
    bookable: true,
    configuration: { rentalRequirementsKey: 'e2e-end' },
  });
  await tx.flush();
  tx.create(Setting, {
    key: RENTAL_REQUIREMENTS_SETTING_KEY,
    name: 'Rental requirements',
    area: 'CORE',
    valueType: 'RENTAL_REQUIREMENTS',
    branchIds: [reqBranch.id],
    value: { profiles: { strict: strictProfile } },
  });
  tx.create(Setting, {
    key: RENTAL_REQUIREMENTS_SETTING_KEY,
    name: 'Rental requirements (end test)',
    area: 'CORE',
    valueType: 'RENTAL_REQUIREMENTS',
    branchIds: [seed.branchId],
    value: {
      profiles: {
        'e2e-end': {
          start: [],
          end: [
            'IN_BUSINESS_AREA',
            'NOT_IN_PROHIBITED_AREA',
            'USER_IN_BUSINESS_AREA',
            'VEHICLE_IN_STATION_AREA',
            'BIKE_LOCK_LOCKED',
          ],
        },
      },
    },
  });
  const businessType = await tx.findOneOrFail(AreaType, { name: 'Business area' });
  tx.create(Area, {
    id: randomUUID(),
    name: 'East business area',
    branch: east,
    areaType: businessType,
    geofence: square(52.5, 13.6, 0.01),
    policies: [{ type: 'ALLOW_END_RENTAL_POLICY' }],
  });
  tx.create(CompatibleBranch, {
    branch: await tx.findOneOrFail(Branch, seed.branchId),
    compatible: east,
    isOutgoing: true,
  });
  await tx.flush();
  reqBranchId = reqBranch.id;
  eastBranchId = east.id;
  strictCategoryId = strict.id;
  plainCategoryId = plain.id;
  endCategoryId = endCategory.id;
  [annaId, , , denizId] = seed.customerIds as [number, number, number, number];
  acmeId = (await tx.findOneOrFail(UserGroup, { code: demoGroupCode })).id;
}, 120_000);

afterAll(async () => {
  await stack?.stop();
});

describe('end requirements through the database', () => {
  const rentalIn = (branchId: number, startVehicleSensors = {}) =>
    ({ branch: { id: branchId }, startVehicleSensors }) as unknown as Rental;
  const vehicleAt = (lat: number, lng: number, sensors = { bikeLockLocked: true }) =>
    ({
      id: 999_999,
      category: { id: endCategoryId },
      latitude: lat,
      longitude: lng,
      charging: false,
      powerState: 'OFF',
      sensors,
    }) as unknown as Vehicle;

  test('at a station inside the business area every requirement passes and the branch is the rental’s', async () => {
    const { seed } = stack.backend;
    const hackescherMarkt = { lat: 52.52249, lng: 13.40228 };
    const report = await endRequirementsReport(em(), seed.tenant, {
      rental: rentalIn(seed.branchId),
      vehicle: vehicleAt(hackescherMarkt.lat, hackescherMarkt.lng),
      userPosition: hackescherMarkt,
    });
    expect(report).toMatchObject({ passed: true, profile: 'e2e-end', endBranchId: seed.branchId });
    expect(report.requirements).toHaveLength(5);
  });

  test('in the pedestrian zone, without the user, with the bike lock open: the failures carry their codes', async () => {
    const { seed } = stack.backend;
    const report = await endRequirementsReport(em(), seed.tenant, {
      rental: rentalIn(seed.branchId),
      vehicle: vehicleAt(52.5218, 13.4132, { bikeLockLocked: false }),
    });
    expect(report.endBranchId).toBeNull();
    expect(report.requirements.filter((r) => !r.passed).map((r) => r.code)).toEqual([
      'RQ202',
      'RQ201',
      'RQ204',
      'R148',
    ]);
  });

  test('a compatible branch’s business area is where the rental ends; outside every area is R131', async () => {
    const { seed } = stack.backend;
    const east = await endRequirementsReport(em(), seed.tenant, {
      rental: rentalIn(seed.branchId),
      vehicle: vehicleAt(52.5, 13.6),
      userPosition: { lat: 52.5, lng: 13.6 },
    });
    expect(east.endBranchId).toBe(eastBranchId);
    expect(east.requirements.filter((r) => !r.passed).map((r) => r.name)).toEqual([
      'VEHICLE_IN_STATION_AREA',
    ]);
    const nowhere = await endRequirementsReport(em(), seed.tenant, {
      rental: rentalIn(seed.branchId),
      vehicle: vehicleAt(52.3, 13.0),
    });
    expect(nowhere.endBranchId).toBeNull();
    expect(nowhere.requirements[0]).toMatchObject({ name: 'IN_BUSINESS_AREA', passed: false, code: 'R131' });
  });

  test('a category without a profile has no end requirements (the seeded rentals are unconstrained)', async () => {
    const { seed } = stack.backend;
    const vehicle = await em().findOneOrFail(Vehicle, { branch: seed.branchId }, { orderBy: { id: 'asc' } });
    const report = await endRequirementsReport(em(), seed.tenant, {
      rental: rentalIn(seed.branchId),
      vehicle,
    });
    expect(report).toMatchObject({
      passed: true,
      requirements: [],
      profile: null,
    });
  });
});

describe('start requirements through the database', () => {
  const input = (customerId: number, extra = {}) => ({
    customerId,
    branchId: reqBranchId,
    vehicleCategoryId: strictCategoryId,
    at: new Date(),
    ...extra,
  });

  test('the demo customer fails only on rental authority until it is granted on a parent branch', async () => {
    const { seed } = stack.backend;
    const before = await startRequirementsReport(em(), seed.tenant, input(annaId));
    expect(before.requirements.filter((r) => !r.passed).map((r) => r.code)).toEqual(['RQ108']);
    await expect(assertStartRequirements(em(), seed.tenant, input(annaId))).rejects.toMatchObject({
      code: 'RQ108',
      httpStatus: 422,
      details: { report: expect.objectContaining({ passed: false }) },
    });
    const granted = await call(
      'POST',
      back(`/rental-authority?guserId=${annaId}&branchId=${seed.cityBranchId}`),
      {
        token: operator,
      },
    );
    expect(granted.status).toBe(201);
    const after = await assertStartRequirements(em(), seed.tenant, input(annaId));
    expect(after.passed).toBe(true);
    expect(
      (
        await call('DELETE', back(`/rental-authority?guserId=${annaId}&branchId=${seed.cityBranchId}`), {
          token: operator,
        })
      ).status,
    ).toBe(204);
  });

  test('a new customer fails every cause with its code; terms and payment come from their records', async () => {
    const { seed } = stack.backend;
    const tx = em();
    const newcomer = tx.create(Customer, {
      email: `new.${Date.now()}@example.org`,
      firstName: 'Nina',
      lastName: 'Neu',
      birthDate: '2015-01-01',
    });
    await tx.flush();
    const report = await startRequirementsReport(em(), seed.tenant, input(newcomer.id));
    expect(report.requirements.filter((r) => !r.passed).map((r) => [r.name, r.code])).toEqual([
      ['EMAIL_VERIFIED', 'RQ101'],
      ['LICENSE_VERIFIED', 'RQ103'],
      ['TERMS_ACCEPTED', 'U601'],
      ['PAYMENT_METHOD', 'P104'],
      ['PAYMENT_PRE_AUTHORIZATION', 'RQ107'],
      ['RENTAL_AUTHORITY', 'RQ108'],
      ['MINIMUM_AGE', 'U132'],
    ]);
    const terms = await tx.findOneOrFail(TermsAndConditions, { branch: null });
    tx.create(TermsAcceptance, { customer: newcomer, terms, acceptedBy: 'test' });
    tx.create(PaymentSource, {
      customer: newcomer,
      businessUnit: stack.backend.seed.businessUnitId,
      type: 'SEPA',
      provider: 'demo-psp',
      providerReference: 'pm_test_sepa',
      label: 'DE89 •••• 3000',
    });
    newcomer.skipPreAuth = true;
    await tx.flush();
    const later = await startRequirementsReport(em(), seed.tenant, input(newcomer.id));
    const names = later.requirements.filter((r) => !r.passed).map((r) => r.name);
    expect(names).not.toContain('TERMS_ACCEPTED');
    expect(names).not.toContain('PAYMENT_METHOD');
    expect(later.requirements.find((r) => r.name === 'PAYMENT_PRE_AUTHORIZATION')?.skipped).toMatch(
      /customer/,
    );
  });

  test('a business account: skipPreAuth and checkRentalRequirements on the group, membership checked', async () => {
    const { seed } = stack.backend;
    const tx = em();
    const member = tx.create(Customer, {
      email: `member.${Date.now()}@example.org`,
      firstName: 'M',
      lastName: 'Ember',
    });
    const group = tx.create(UserGroup, {
      code: `REQ-${Date.now()}`,
      name: 'Requirements GmbH',
      branch: reqBranchId,
      billingCycle: 'MONTHLY',
      maxMembers: 5,
      paymentState: 'INVOICING',
      checkRentalRequirements: false,
      skipPreAuth: true,
    });
    await tx.flush();
    tx.create(GroupMembership, { group, customer: member, state: 'ACTIVE' });
    const terms = await tx.findOneOrFail(TermsAndConditions, { branch: null });
    tx.create(TermsAcceptance, { customer: member, terms, acceptedBy: 'test' });
    await tx.flush();
    const report = await startRequirementsReport(
      em(),
      seed.tenant,
      input(member.id, { userGroupId: group.id }),
    );
    expect(report.requirements.filter((r) => !r.passed).map((r) => r.code)).toEqual(['RQ108']);
    expect(report.requirements.find((r) => r.name === 'PAYMENT_PRE_AUTHORIZATION')?.skipped).toMatch(
      /business account/,
    );
    const privately = await startRequirementsReport(em(), seed.tenant, input(member.id));
    expect(privately.requirements.filter((r) => !r.passed).map((r) => r.code)).toEqual(
      expect.arrayContaining(['RQ101', 'RQ103', 'P104', 'U130.7']),
    );
  });

  test('unknown branch, category, customer and business account are refused with their codes', async () => {
    const { seed } = stack.backend;
    const codeOf = (promise: Promise<unknown>) =>
      promise.then(
        () => 'none',
        (error: unknown) => (isDomainError(error) ? error.code : String(error)),
      );
    expect(
      await codeOf(startRequirementsReport(em(), seed.tenant, { ...input(annaId), branchId: 987_654 })),
    ).toBe('B404');
    expect(
      await codeOf(
        startRequirementsReport(em(), seed.tenant, { ...input(annaId), vehicleCategoryId: 987_654 }),
      ),
    ).toBe('VC404');
    expect(await codeOf(startRequirementsReport(em(), seed.tenant, input(rival.customerIds[0]!)))).toBe(
      'U106',
    );
    expect(
      await codeOf(startRequirementsReport(em(), seed.tenant, input(annaId, { userGroupId: 987_654 }))),
    ).toBe('UG404');
  });
});

describe('GET /rental-requirements/start', () => {
  const path = (query: string) => back(`/rental-requirements/start?${query}`);

  test('lists what applies without a customer, evaluates it for one', async () => {
    const listed = await call('GET', path(`branchId=${reqBranchId}&vehicleCategoryId=${strictCategoryId}`), {
      token: operator,
    });
    expect(listed.status).toBe(200);
    expect(listed.body).toMatchObject({ evaluated: false, passed: null, profile: 'strict' });
    expect(listed.body.requirements.map((r: { name: string }) => r.name)).toEqual(strictProfile.start);
    const none = await call('GET', path(`branchId=${reqBranchId}&vehicleCategoryId=${plainCategoryId}`), {
      token: operator,
    });
    expect(none.body).toMatchObject({ profile: null, requirements: [] });
    const deniz = await call(
      'GET',
      path(
        `branchId=${reqBranchId}&vehicleCategoryId=${strictCategoryId}&guserId=${denizId}&userGroupId=${acmeId}&bookingStartTime=2027-01-01T10:00:00Z&bookingEndTime=2027-01-01T12:00:00Z`,
      ),
      { token: operator },
    );
    expect(deniz.status).toBe(200);
    expect(deniz.body.evaluated).toBe(true);
    expect(deniz.body.passed).toBe(false);
    expect(deniz.body.requirements.find((r: { name: string }) => r.name === 'TERMS_ACCEPTED')).toMatchObject({
      passed: false,
      code: 'U601',
    });
  });

  test('branch scope, other tenants and hostile input', async () => {
    const { seed } = stack.backend;
    expectError(
      await call('GET', path(`branchId=${seed.otherBranchId}&vehicleCategoryId=${strictCategoryId}`), {
        token: operator,
      }),
      403,
      'AUTH002',
    );
    expectError(
      await call('GET', path(`branchId=${rival.branchId}&vehicleCategoryId=${strictCategoryId}`), {
        token: operator,
      }),
      404,
      'B404',
    );
    expectError(
      await call(
        'GET',
        path(`branchId=${reqBranchId}&vehicleCategoryId=${strictCategoryId}&guserId=${rival.customerIds[0]}`),
        { token: operator },
      ),
      404,
      'U106',
    );
    expectError(
      await call('GET', path(`branchId=${reqBranchId}&vehicleCategoryId=987654`), { token: operator }),
      404,
      'VC404',
    );
    expectError(
      await call('GET', path(`branchId=abc&vehicleCategoryId=1`), { token: operator }),
      400,
      '0022',
    );
    expectError(
      await call('GET', path(`branchId=99999999999999999999&vehicleCategoryId=1`), { token: operator }),
      400,
      '0022',
    );
    expectError(await call('GET', path(`vehicleCategoryId=1`), { token: operator }), 400, '0022');
    expectError(
      await call(
        'GET',
        path(`branchId=${reqBranchId}&vehicleCategoryId=${strictCategoryId}&bookingStartTime=%00`),
        { token: operator },
      ),
      400,
      '0022',
    );
    expectError(
      await call(
        'GET',
        path(
          `branchId=${reqBranchId}&vehicleCategoryId=${strictCategoryId}&bookingStartTime=2027-01-02T00:00:00Z&bookingEndTime=2027-01-01T00:00:00Z`,
        ),
        { token: operator },
      ),
      400,
      '0022',
    );
    expectError(await call('GET', path(`branchId=${reqBranchId}&vehicleCategoryId=1`)), 401, 'JWT006');
  });
});

describe('rental authority', () => {
  test('grant is idempotent, listed with paging headers, revoked once', async () => {
    const q = `guserId=${denizId}&branchId=${reqBranchId}`;
    const first = await call('POST', back(`/rental-authority?${q}`), { token: operator });
    expect(first.status).toBe(201);
    expect(first.body).toMatchObject({ guserId: denizId, branchId: reqBranchId, user: { id: denizId } });
    expect((await call('POST', back(`/rental-authority?${q}`), { token: operator })).status).toBe(200);
    const list = await call('GET', back(`/rental-authority?branchId=${reqBranchId}&size=5`), {
      token: operator,
    });
    expect(list.status).toBe(200);
    expect(list.headers.get('x-total-count')).toBe('1');
    expect(list.body).toEqual([expect.objectContaining({ guserId: denizId, grantedBy: expect.any(String) })]);
    expect((await call('DELETE', back(`/rental-authority?${q}`), { token: operator })).status).toBe(204);
    expectError(await call('DELETE', back(`/rental-authority?${q}`), { token: operator }), 404, 'RQ404');
    const events = await em().find(Event, {
      customerId: denizId,
      type: { $like: 'USER_RENTAL_AUTHORITY_%' },
    });
    expect(events.map((e) => [e.type, e.branchId, e.adminSubject]).sort()).toEqual([
      ['USER_RENTAL_AUTHORITY_GRANTED', reqBranchId, expect.any(String)],
      ['USER_RENTAL_AUTHORITY_REVOKED', reqBranchId, expect.any(String)],
    ]);
  });

  test('bulk grant and revoke with one result per entry; an unknown customer fails alone', async () => {
    const body = {
      branchId: reqBranchId,
      entries: [
        { guserId: annaId, action: 'GRANT' },
        { guserId: denizId, action: 'GRANT' },
        { guserId: annaId, action: 'GRANT' },
        { guserId: rival.customerIds[0], action: 'GRANT' },
        { guserId: denizId, action: 'REVOKE' },
        { guserId: denizId, action: 'REVOKE' },
      ],
    };
    const reply = await call('PUT', back('/rental-authority/bulk'), { token: operator, body });
    expect(reply.status).toBe(200);
    expect(reply.body.map((r: { result: string }) => r.result)).toEqual([
      'GRANTED',
      'GRANTED',
      'UNCHANGED',
      'FAILED',
      'REVOKED',
      'UNCHANGED',
    ]);
    expect(reply.body[3]).toMatchObject({ errorCode: 'U106' });
    expect(
      await em().count(Event, {
        customerId: denizId,
        type: 'USER_RENTAL_AUTHORITY_REVOKED',
        branchId: reqBranchId,
      }),
    ).toBe(2);
    const list = await call('GET', back(`/rental-authority?branchId=${reqBranchId}`), { token: operator });
    expect(list.body.map((g: { guserId: number }) => g.guserId)).toEqual([annaId]);
    await call('PUT', back('/rental-authority/bulk'), {
      token: operator,
      body: { branchId: reqBranchId, entries: [{ guserId: annaId, action: 'REVOKE' }] },
    });
  });

  test('denials, other tenants and hostile input', async () => {
    const { seed } = stack.backend;
    expectError(
      await call('GET', back(`/rental-authority?branchId=${seed.otherBranchId}`), { token: operator }),
      403,
      'AUTH002',
    );
    expectError(
      await call('POST', back(`/rental-authority?guserId=${annaId}&branchId=${seed.otherBranchId}`), {
        token: operator,
      }),
      403,
      'AUTH002',
    );
    expectError(
      await call('DELETE', back(`/rental-authority?guserId=${annaId}&branchId=${seed.otherBranchId}`), {
        token: operator,
      }),
      403,
      'AUTH002',
    );
    expectError(
      await call('PUT', back('/rental-authority/bulk'), {
        token: operator,
        body: { branchId: seed.otherBranchId, entries: [{ guserId: annaId, action: 'GRANT' }] },
      }),
      403,
      'AUTH002',
    );
    expectError(
      await call('POST', back(`/rental-authority?guserId=${rival.customerIds[0]}&branchId=${reqBranchId}`), {
        token: operator,
      }),
      404,
      'U106',
    );
    expectError(
      await call('POST', back(`/rental-authority?guserId=${annaId}&branchId=${rival.branchId}`), {
        token: operator,
      }),
      404,
      'B404',
    );
    expectError(
      await call('POST', back(`/rental-authority?guserId=x&branchId=${reqBranchId}`), { token: operator }),
      400,
      '0022',
    );
    expectError(
      await call('POST', back(`/rental-authority?branchId=${reqBranchId}`), { token: operator }),
      400,
      '0022',
    );
    expectError(
      await call('PUT', back('/rental-authority/bulk'), {
        token: operator,
        body: {
          branchId: reqBranchId,
          entries: Array.from({ length: 501 }, () => ({ guserId: annaId, action: 'GRANT' })),
        },
      }),
      400,
      '0022',
    );
    expectError(
      await call('PUT', back('/rental-authority/bulk'), {
        token: operator,
        body: { branchId: reqBranchId, entries: [{ guserId: annaId, action: 'GRANT\u0000' }] },
      }),
      400,
      '0022',
    );
    expectError(
      await call('PUT', back('/rental-authority/bulk'), {
        token: operator,
        body: { branchId: reqBranchId, entries: [] },
      }),
      400,
      '0022',
    );
    expectError(
      await call('GET', back(`/rental-authority?branchId=${reqBranchId}`), { token: annaToken }),
      403,
      '0005',
    );
  });
});

describe('GET /front/rentals/requirements', () => {
  test('the signed-in customer’s requirements by vehicle or by branch and category, re-run with a group', async () => {
    const { seed } = stack.backend;
    const vehicle = await em().findOneOrFail(Vehicle, { branch: seed.branchId }, { orderBy: { id: 'asc' } });
    const byVehicle = await call('GET', front(`/rentals/requirements?vehicleId=${vehicle.id}`), {
      token: annaToken,
    });
    expect(byVehicle.status).toBe(200);
    expect(byVehicle.body).toMatchObject({
      branchId: seed.branchId,
      vehicleCategoryId: vehicle.category.id,
      requirements: [],
    });
    const strict = await call(
      'GET',
      front(`/rentals/requirements?branchId=${reqBranchId}&vehicleCategoryId=${strictCategoryId}`),
      { token: annaToken },
    );
    expect(strict.body).toMatchObject({ evaluated: true, passed: false });
    expect(strict.body.requirements.filter((r: { passed: boolean }) => !r.passed)).toEqual([
      expect.objectContaining({ name: 'RENTAL_AUTHORITY', code: 'RQ108' }),
    ]);
    const withGroup = await call(
      'GET',
      front(
        `/rentals/requirements?branchId=${reqBranchId}&vehicleCategoryId=${strictCategoryId}&userGroupId=${acmeId}`,
      ),
      { token: annaToken },
    );
    expect(withGroup.status).toBe(200);
  });

  test('refusals: no customer, unknown or foreign ids, a group the customer is not in, missing inputs', async () => {
    const { seed } = stack.backend;
    expectError(
      await call('GET', front(`/rentals/requirements?vehicleId=1`), { token: appClient }),
      401,
      '0001',
    );
    expectError(
      await call('GET', front(`/rentals/requirements?vehicleId=987654`), { token: annaToken }),
      404,
      'V404',
    );
    const rivalVehicle = await tenantEm(stack.backend.orm, rival.tenant).findOneOrFail(
      Vehicle,
      {},
      { orderBy: { id: 'asc' } },
    );
    expectError(
      await call('GET', front(`/rentals/requirements?vehicleId=${rivalVehicle.id}`), { token: annaToken }),
      404,
      'V404',
    );
    expectError(
      await call(
        'GET',
        front(`/rentals/requirements?branchId=${rival.branchId}&vehicleCategoryId=${strictCategoryId}`),
        { token: annaToken },
      ),
      404,
      'B404',
    );
    const tx = em();
    const other = tx.create(UserGroup, {
      code: `OTHER-${Date.now()}`,
      name: 'Other GmbH',
      branch: seed.cityBranchId,
      billingCycle: 'MONTHLY',
      maxMembers: 5,
    });
    await tx.flush();
    expectError(
      await call(
        'GET',
        front(
          `/rentals/requirements?branchId=${reqBranchId}&vehicleCategoryId=${strictCategoryId}&userGroupId=${other.id}`,
        ),
        {
          token: annaToken,
        },
      ),
      404,
      'UG404',
    );
    expectError(
      await call('GET', front(`/rentals/requirements?branchId=${reqBranchId}`), { token: annaToken }),
      400,
      '0022',
    );
    expectError(
      await call('GET', front(`/rentals/requirements?vehicleId=-1`), { token: annaToken }),
      400,
      '0022',
    );
  });
});
