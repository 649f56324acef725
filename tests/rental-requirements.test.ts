// Rental requirements through the database and the API: the end requirements with the seeded areas, the
// start requirements with every failing cause and its code, rental authority, and the three endpoints
// with their denials and hostile inputs.
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
import { type SeededTenant } from '../db/seed.js';
import { demoGroupCode } from '../db/seed/customers.js';
import {
  assertStartRequirements,
  customerStartFacts,
  endRequirementsReport,
  startRequirementsReport,
} from '../db/rental-requirements.js';
import { isDomainError } from '../domain/errors.js';
import {
  RENTAL_REQUIREMENTS_SETTING_KEY,
  type RentalRequirementsConfig,
} from '../domain/rental-requirements.js';
import { expectError, type HttpStack, type Reply } from './support/http.js';
import { startSession, type Session } from './support/session.js';
import { square } from './support/geofences.js';

let session: Session;
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
  session = await startSession({ rival: true, signInDemoCustomer: true });
  ({ stack, rival, operatorToken: operator, appClientToken: appClient, annaToken } = session);
  const { seed } = stack.backend;

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
  await session?.stop();
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

  test("a customer's start facts read as one row say what her entity and payment sources say", async () => {
    const { seed } = stack.backend;
    const tx = em();
    const driver = tx.create(Customer, {
      email: `facts.${Date.now()}@example.org`,
      firstName: 'Fay',
      lastName: 'Facts',
      birthDate: '1990-02-28',
      drivingLicenseCategories: ['B', 'AM'],
      emailIsVerified: true,
      licenseVerificationState: 'VERIFIED_BUT_NEEDS_CHECK',
      skipPreAuth: true,
      paymentState: 'SOURCE_ADDED',
    });
    for (const type of ['SEPA', 'CARD'] as const)
      tx.create(PaymentSource, {
        customer: driver,
        businessUnit: seed.businessUnitId,
        type,
        provider: 'demo-psp',
        providerReference: `pm_facts_${type}`,
        label: type,
      });
    await tx.flush();
    expect(await customerStartFacts(em(), seed.tenant, driver.id)).toEqual({
      id: driver.id,
      customer: {
        isBlocked: false,
        emailIsVerified: true,
        phoneIsVerified: false,
        licenseVerificationState: 'VERIFIED_BUT_NEEDS_CHECK',
        idVerificationState: 'UNVERIFIED',
        manualVerificationState: 'UNVERIFIED',
        customExternalVerificationState: 'UNVERIFIED',
        birthDate: '1990-02-28',
        drivingLicenseCategories: ['B', 'AM'],
        skipPreAuth: true,
        paymentState: 'SOURCE_ADDED',
      },
      paymentSources: [{ type: 'SEPA' }, { type: 'CARD' }],
    });
    // Another tenant's customer of the same id, or none: no facts.
    expect(await customerStartFacts(tenantEm(stack.backend.orm, rival.tenant), rival.tenant, driver.id)).toBe(
      null,
    );
    expect(await customerStartFacts(em(), seed.tenant, 2_000_000_000)).toBe(null);
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
