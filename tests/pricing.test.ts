// Pricing over HTTP: bundles and versions, publication with a future effective date on the time-skipping
// server, assignments, simulators and the app's calculators, permissions and hostile input.
import { fileURLToPath } from 'node:url';
import { randomBytes } from 'node:crypto';
import { DefaultLogger, Worker, bundleWorkflowCode } from '@temporalio/worker';
import { priceOnDemandRental } from '../domain/pricing-on-demand.js';
import type { PhaseSpan, PricedVersion } from '../domain/pricing.js';
import { demoScooterRules } from '../db/seed/pricing.js';
import { pricingForVersion, versionApplyingAt } from '../db/pricing.js';
import { ApiClient } from '../db/entities/ApiClient.js';
import { Branch } from '../db/entities/Branch.js';
import { BusinessUnit } from '../db/entities/BusinessUnit.js';
import { PricingBundleVersion } from '../db/entities/PricingBundleVersion.js';
import { Role } from '../db/entities/Role.js';
import { RoleAssignment } from '../db/entities/RoleAssignment.js';
import { tenantEm } from '../db/orm.js';
import { type SeededTenant } from '../db/seed.js';
import { hashSecret } from '../platform/secrets.js';
import { pricingVersionWorkflowId } from '../workflows/pricing.messages.js';
import { expectError, type HttpStack } from './support/http.js';
import { startSession, type Session } from './support/session.js';
import { demoOperatorClient } from '../db/seed/access.js';

let session: Session;
let stack: HttpStack;
let operator: string;
let app: string;
let rival: SeededTenant;
const call: HttpStack['call'] = (...args) => stack.call(...args);
const back = (path: string) => stack.back(path);
const front = (path: string) => stack.front(path);

const onDemandRules = {
  freeFloatingPricingMode: 'ENDING_TIMESLOT',
  onDemand: {
    unlockFee: '1.00',
    reservationPerMinute: '0.10',
    timeSlots: [
      { fromMinute: 0, drivingPerMinute: '0.30', parkingPerMinute: '0.10' },
      { fromMinute: 30, drivingPerMinute: '0.25', parkingPerMinute: '0.08' },
    ],
    distancePerUnit: '0',
    includedDistance: 0,
    billingIncrementMinutes: 1,
    minimumPrice: '0',
  },
};

async function categoryIds(): Promise<{ scooters: number; cars: number }> {
  const rows = await tenantEm(stack.backend.orm, stack.backend.seed.tenant).execute<
    { id: number; name: string }[]
  >('select id, name from vehicle_category where tenant_id = ?', [stack.backend.seed.tenant]);
  return {
    scooters: Number(rows.find((row) => row.name === 'E-Scooter')!.id),
    cars: Number(rows.find((row) => row.name === 'Compact car')!.id),
  };
}

async function createBundle(name: string, type = 'ON_DEMAND_LEGACY'): Promise<number> {
  const reply = await call('POST', back('/pricing-bundles'), {
    token: operator,
    body: { name, type, businessUnitId: stack.backend.seed.businessUnitId },
  });
  expect(reply.status).toBe(201);
  return reply.body.id;
}

async function createVersion(bundleId: number, body: Record<string, unknown> = onDemandRules) {
  return call('POST', back(`/pricing-bundles/${bundleId}/versions`), { token: operator, body });
}

beforeAll(async () => {
  session = await startSession({ timeSkipping: true, rival: true });
  ({ stack, operatorToken: operator, appClientToken: app, rival } = session);
}, 120_000);

afterAll(async () => {
  await session?.stop();
});

describe('demo pricing answers out of the box', () => {
  test('options at the district branch come from the city branch, one per category and type', async () => {
    const { scooters, cars } = await categoryIds();
    const reply = await call(
      'GET',
      back(`/on-demand-pricing-options?branchId=${stack.backend.seed.branchId}`),
      {
        token: operator,
      },
    );
    expect(reply.status).toBe(200);
    expect(
      reply.body.map((o: Record<string, unknown>) => [
        o.vehicleCategoryId,
        o.bundleType,
        o.freeFloatingPricingMode,
      ]),
    ).toEqual(
      expect.arrayContaining([
        [scooters, 'ON_DEMAND_LEGACY', 'CUMULATIVE_TIMESLOTS'],
        [cars, 'ON_DEMAND_LEGACY', 'ENDING_TIMESLOT'],
        [cars, 'BOOKING', null],
      ]),
    );
    expect(
      reply.body.every(
        (o: { assignedAtBranchId: number }) => o.assignedAtBranchId === stack.backend.seed.cityBranchId,
      ),
    ).toBe(true);
  });

  test('free-floating simulator: reservation, driving and parking of a scooter', async () => {
    const { scooters } = await categoryIds();
    const reply = await call('POST', back('/pricing-simulator/free-floating'), {
      token: operator,
      body: {
        branchId: stack.backend.seed.branchId,
        vehicleCategoryId: scooters,
        reservationFreeMinutes: 10,
        reservationPaidMinutes: 2,
        phases: [
          { phase: 'DRIVING', minutes: 20 },
          { phase: 'PARKING', minutes: 5 },
          { phase: 'DRIVING', minutes: 10 },
        ],
      },
    });
    expect(reply.status).toBe(200);
    // 2 x 0.15 + 20 x 0.25 + 5 x 0.10 + (5 x 0.25 + 5 x 0.20) + unlock 1.00
    expect(reply.body).toMatchObject({
      estimate: true,
      versionStatus: 'PUBLISHED',
      price: { total: '9.05', currency: 'EUR' },
    });
    // Tax is rounded once, on the whole price: 9.05 / 1.19 = 7.605… → 7.61 net (line by line it was 7.60).
    expect(reply.body.priceV4.totals).toEqual({ net: '7.61', tax: '1.44', gross: '9.05' });
    expect(reply.body.pricingBundleVersion).toMatchObject({ name: 'E-Scooter per minute', version: 1 });
  });

  test('booking simulator and the app calculators', async () => {
    const { cars } = await categoryIds();
    const booking = await call('POST', back('/pricing-simulator/booking'), {
      token: operator,
      body: {
        branchId: stack.backend.seed.branchId,
        vehicleCategoryId: cars,
        startTime: '2026-11-20T18:00:00+01:00',
        endTime: '2026-11-21T12:00:00+01:00',
        reservationTime: '2026-11-01T12:00:00+01:00',
        additions: ['CHILD_SEAT'],
      },
    });
    expect(booking.status).toBe(200);
    // Friday 18-22 base 4 x 9, night 8 x 3, Saturday 06-12 weekend 6 x 11, child seat 5
    expect(booking.body.price.total).toBe('131.00');
    expect(booking.body.cancellationInformation).toEqual({
      cancellable: true,
      freeCancellationDeadline: '2026-11-19T17:00:00.000Z',
      estimatedFee: '0.00',
    });

    const calculator = await call(
      'GET',
      front(
        `/booking-price-calculator?branchId=${stack.backend.seed.branchId}&vehicleCategoryId=${cars}&startTime=2026-11-20T18:00:00%2B01:00&endTime=2026-11-21T12:00:00%2B01:00&additions=CHILD_SEAT&userGroupCode=STAFF`,
      ),
      { token: app },
    );
    expect(calculator.status).toBe(200);
    expect(calculator.body.price.total).toBe('131.00');

    const { scooters } = await categoryIds();
    const onDemand = await call(
      'GET',
      front(
        `/pricing-bundles/pricing-calculator?branchId=${stack.backend.seed.branchId}&vehicleCategoryId=${scooters}&drivingMinutes=10`,
      ),
      { token: app },
    );
    expect(onDemand.status).toBe(200);
    expect(onDemand.body.price.total).toBe('3.50');

    const simulator = await call(
      'GET',
      back(
        `/pricing-bundles/pricing-simulator?branchId=${stack.backend.seed.branchId}&vehicleCategoryId=${scooters}&drivingMinutes=10`,
      ),
      { token: operator },
    );
    expect(simulator.status).toBe(200);
    expect(simulator.body.price.total).toBe('3.50');
  });

  test('a branch without an assignment is a clear error, not a zero price', async () => {
    const { scooters } = await categoryIds();
    expectError(
      await call('POST', back('/pricing-simulator/free-floating'), {
        token: operator,
        body: {
          branchId: stack.backend.seed.otherBranchId,
          vehicleCategoryId: scooters,
          phases: [{ phase: 'DRIVING', minutes: 5 }],
        },
      }),
      422,
      'ODP104',
    );
  });
});

describe('bundles and versions', () => {
  test('create, search, version rules checked against the bundle type', async () => {
    const bundleId = await createBundle('Weekend special');
    const list = await call('GET', back('/pricing-bundles?searchText=weekend%20SPEC&includeVersions=true'), {
      token: operator,
    });
    expect(list.status).toBe(200);
    expect(list.headers.get('X-Total-Count')).toBe('1');
    expect(list.body[0]).toMatchObject({
      id: bundleId,
      type: 'ON_DEMAND_LEGACY',
      currency: 'EUR',
      versions: [],
    });

    expectError(await createVersion(bundleId, { onDemand: onDemandRules.onDemand }), 422, 'ODP103');
    const bookingBundle = await createBundle('Booking special', 'BOOKING');
    expectError(await createVersion(bookingBundle, onDemandRules), 422, 'ODP103');

    const draft = await createVersion(bundleId);
    expect(draft.status).toBe(201);
    expect(draft.body).toMatchObject({
      version: 1,
      status: 'DRAFT',
      freeFloatingPricingMode: 'ENDING_TIMESLOT',
    });
    const updated = await call('PUT', back(`/pricing-bundles/${bundleId}/versions/${draft.body.id}`), {
      token: operator,
      body: { pricesIncludeTax: false, ...onDemandRules, freeFloatingPricingMode: 'CUMULATIVE_TIMESLOTS' },
    });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({
      status: 'DRAFT',
      pricesIncludeTax: false,
      freeFloatingPricingMode: 'CUMULATIVE_TIMESLOTS',
    });
    expectError(
      await call('POST', back('/pricing-bundles'), {
        token: operator,
        body: { name: 'Weekend special', type: 'BOOKING', businessUnitId: stack.backend.seed.businessUnitId },
      }),
      409,
      'ODP112',
    );
  });

  test('publish now, then a new version effective tomorrow supersedes it when the timer fires', async () => {
    const bundleId = await createBundle('Timed');
    const v1 = (await createVersion(bundleId)).body;
    const publishedV1 = await call('POST', back(`/pricing-bundles/${bundleId}/versions/${v1.id}/publish`), {
      token: operator,
      body: { effectiveFrom: new Date().toISOString() },
    });
    expect(publishedV1.status).toBe(200);
    expect(publishedV1.body).toMatchObject({ status: 'PUBLISHED', publishedBy: expect.any(String) });

    // A published version refuses mutation and a second publication.
    expectError(
      await call('PUT', back(`/pricing-bundles/${bundleId}/versions/${v1.id}`), {
        token: operator,
        body: { pricesIncludeTax: true, ...onDemandRules },
      }),
      409,
      'ODP102',
    );
    expectError(
      await call('POST', back(`/pricing-bundles/${bundleId}/versions/${v1.id}/publish`), {
        token: operator,
        body: { effectiveFrom: new Date(Date.now() + 3_600_000).toISOString() },
      }),
      409,
      'ODP102',
    );

    // Edits are a new draft copied from the published version.
    const v2 = await createVersion(bundleId, { basedOnVersionId: v1.id, notes: 'cheaper' });
    expect(v2.body).toMatchObject({
      version: 2,
      status: 'DRAFT',
      basedOnVersion: 1,
      onDemand: onDemandRules.onDemand,
    });
    expectError(
      await call('POST', back(`/pricing-bundles/${bundleId}/versions/${v2.body.id}/publish`), {
        token: operator,
        body: { effectiveFrom: '2020-01-01T00:00:00Z' },
      }),
      422,
      'ODP105',
    );
    const tomorrow = new Date(Date.now() + 86_400_000).toISOString();
    const scheduled = await call(
      'POST',
      back(`/pricing-bundles/${bundleId}/versions/${v2.body.id}/publish`),
      {
        token: operator,
        body: { effectiveFrom: tomorrow },
      },
    );
    expect(scheduled.body).toMatchObject({ status: 'PUBLISHED', effectiveFrom: tomorrow });
    const before = await call('GET', back(`/pricing-bundles/${bundleId}/versions/${v1.id}`), {
      token: operator,
    });
    expect(before.body.status).toBe('PUBLISHED');

    const handle = stack.backend.client.workflow.getHandle(
      pricingVersionWorkflowId(stack.backend.seed.tenant, v2.body.id),
    );
    await stack.backend.testEnv!.sleep('25 hours');
    await handle.result();
    const after = await call('GET', back(`/pricing-bundles/${bundleId}`), {
      token: operator,
    });
    expect(
      after.body.versions.map((v: { version: number; status: string }) => [v.version, v.status]),
    ).toEqual([
      [1, 'SUPERSEDED'],
      [2, 'PUBLISHED'],
    ]);
    const versions = await tenantEm(stack.backend.orm, stack.backend.seed.tenant).find(PricingBundleVersion, {
      bundle: bundleId,
    });
    expect(versions.find((v) => v.version === 1)?.endedAt?.toISOString()).toBe(tomorrow);

    // What a rental or booking records at creation: the version applying at its time.
    const em = tenantEm(stack.backend.orm, stack.backend.seed.tenant);
    const at = (iso: string | number) => versionApplyingAt(em, bundleId, new Date(iso));
    expect((await at(Date.parse(tomorrow) - 1)).version).toBe(1);
    expect((await at(tomorrow)).version).toBe(2);
    await expect(at('2019-01-01T00:00:00Z')).rejects.toMatchObject({ code: 'ODP106' });
  });

  test('a bounded validity expires the version', async () => {
    const bundleId = await createBundle('Short lived');
    const v1 = (await createVersion(bundleId)).body;
    const validUntil = new Date(Date.now() + 2 * 86_400_000).toISOString();
    const published = await call('POST', back(`/pricing-bundles/${bundleId}/versions/${v1.id}/publish`), {
      token: operator,
      body: { effectiveFrom: new Date().toISOString(), validUntil },
    });
    expect(published.body).toMatchObject({ status: 'PUBLISHED', validUntil });
    await stack.backend.client.workflow
      .getHandle(pricingVersionWorkflowId(stack.backend.seed.tenant, v1.id))
      .result();
    const after = await call('GET', back(`/pricing-bundles/${bundleId}/versions/${v1.id}`), {
      token: operator,
    });
    expect(after.body.status).toBe('EXPIRED');
  });

  test('assignments: one per type at a branch and category; an assigned bundle is not deleted; archive keeps versions', async () => {
    const { scooters } = await categoryIds();
    const bundleId = await createBundle('Spandau scooters');
    const v1 = (await createVersion(bundleId)).body;
    await call('POST', back(`/pricing-bundles/${bundleId}/versions/${v1.id}/publish`), {
      token: operator,
      body: { effectiveFrom: new Date().toISOString() },
    });
    const body = {
      branchId: stack.backend.seed.otherBranchId,
      vehicleCategoryId: scooters,
      pricingBundleId: bundleId,
    };
    const assigned = await call('POST', back('/on-demand-pricing-assignments'), { token: operator, body });
    expect(assigned.status).toBe(201);
    expectError(
      await call('POST', back('/on-demand-pricing-assignments'), { token: operator, body }),
      409,
      'ODP109',
    );
    const listed = await call(
      'GET',
      back(`/on-demand-pricing-assignments?branchId=${stack.backend.seed.otherBranchId}`),
      {
        token: operator,
      },
    );
    expect(listed.body).toEqual([
      expect.objectContaining({ id: assigned.body.id, pricingBundleId: bundleId }),
    ]);

    const estimate = await call('POST', back('/pricing-simulator/free-floating'), {
      token: operator,
      body: {
        branchId: stack.backend.seed.otherBranchId,
        vehicleCategoryId: scooters,
        phases: [{ phase: 'DRIVING', minutes: 31 }],
      },
    });
    expect(estimate.body).toMatchObject({
      price: { total: '8.75' },
      pricingBundleVersion: { pricingBundleId: bundleId },
    });

    expectError(
      await call('DELETE', back(`/pricing-bundles/${bundleId}`), { token: operator }),
      409,
      'ODP107',
    );
    expect(
      (await call('DELETE', back(`/on-demand-pricing-assignments/${assigned.body.id}`), { token: operator }))
        .status,
    ).toBe(204);
    expect((await call('DELETE', back(`/pricing-bundles/${bundleId}`), { token: operator })).status).toBe(
      204,
    );
    expectError(await call('GET', back(`/pricing-bundles/${bundleId}`), { token: operator }), 404, 'ODP100');
    const archived = await tenantEm(stack.backend.orm, stack.backend.seed.tenant).findOneOrFail(
      PricingBundleVersion,
      v1.id,
    );
    expect(archived.status).toBe('ARCHIVED');
    // A rental that recorded this version is still priced by it after the bundle is archived.
    const pinned = await pricingForVersion(tenantEm(stack.backend.orm, stack.backend.seed.tenant), {
      branchId: stack.backend.seed.otherBranchId,
      pricingBundleVersionId: v1.id,
    });
    expect(pinned.priced.ref).toMatchObject({ pricingBundleId: bundleId, version: 1 });
  });
});

describe('remaining verbs', () => {
  test('rename, version list paging, re-pointing an assignment, deleting a draft-only bundle', async () => {
    const { cars } = await categoryIds();
    const bundleId = await createBundle('Verbs');
    const renamed = await call('PUT', back(`/pricing-bundles/${bundleId}`), {
      token: operator,
      body: { name: 'Verbs renamed', description: 'for the verbs test' },
    });
    expect(renamed.body).toMatchObject({ name: 'Verbs renamed', description: 'for the verbs test' });
    for (let i = 0; i < 3; i++) expect((await createVersion(bundleId)).status).toBe(201);
    const page = await call('GET', back(`/pricing-bundles/${bundleId}/versions?size=2&page=1`), {
      token: operator,
    });
    expect(page.headers.get('X-Total-Count')).toBe('3');
    expect(page.body.map((v: { version: number }) => v.version)).toEqual([1]);

    const other = await createBundle('Verbs other');
    const booking = await createBundle('Verbs booking', 'BOOKING');
    const assigned = await call('POST', back('/on-demand-pricing-assignments'), {
      token: operator,
      body: {
        branchId: stack.backend.seed.otherBranchId,
        vehicleCategoryId: cars,
        pricingBundleId: bundleId,
      },
    });
    expectError(
      await call('PUT', back(`/on-demand-pricing-assignments/${assigned.body.id}`), {
        token: operator,
        body: { pricingBundleId: booking },
      }),
      422,
      'ODP110',
    );
    const moved = await call('PUT', back(`/on-demand-pricing-assignments/${assigned.body.id}`), {
      token: operator,
      body: { pricingBundleId: other },
    });
    expect(moved.body).toMatchObject({ id: assigned.body.id, pricingBundleId: other });
    expect((await call('DELETE', back(`/pricing-bundles/${bundleId}`), { token: operator })).status).toBe(
      204,
    );
    const gone = await tenantEm(stack.backend.orm, stack.backend.seed.tenant).count(PricingBundleVersion, {
      bundle: bundleId,
    });
    expect(gone).toBe(0);
    expectError(
      await call('GET', back(`/pricing-bundles/${bundleId}/versions`), { token: operator }),
      404,
      'ODP100',
    );
  });
});

describe('security and hostile input', () => {
  test('finance permissions are checked on the business unit, not the branch', async () => {
    const em = tenantEm(stack.backend.orm, stack.backend.seed.tenant);
    const admin = await em.findOneOrFail(Role, { name: 'Administrator' });
    const finance = await em.findOneOrFail(Role, { name: 'Finance' });
    for (const [clientId, grant] of [
      ['branch-admin', { role: admin, branch: em.getReference(Branch, stack.backend.seed.cityBranchId) }],
      [
        'unit-finance',
        { role: finance, businessUnit: em.getReference(BusinessUnit, stack.backend.seed.businessUnitId) },
      ],
    ] as const) {
      em.create(ApiClient, {
        clientId,
        name: clientId,
        secretHash: await hashSecret(`${clientId}-secret`),
        scopes: ['back'],
      });
      em.create(RoleAssignment, { subjectType: 'API_CLIENT', subjectId: clientId, ...grant });
    }
    await em.flush();
    const branchAdmin = await stack.token(stack.backend.seed.tenant, {
      clientId: 'branch-admin',
      clientSecret: 'branch-admin-secret',
    });
    const unitFinance = await stack.token(stack.backend.seed.tenant, {
      clientId: 'unit-finance',
      clientSecret: 'unit-finance-secret',
    });
    const bundleId = await createBundle('Permission probe');

    expectError(
      await call('GET', back(`/pricing-bundles/${bundleId}`), { token: branchAdmin }),
      403,
      'AUTH002',
    );
    expectError(
      await call('POST', back('/pricing-bundles'), {
        token: branchAdmin,
        body: { name: 'Nope', type: 'BOOKING', businessUnitId: stack.backend.seed.businessUnitId },
      }),
      403,
      'AUTH002',
    );
    expectError(
      await call('GET', back(`/on-demand-pricing-options?branchId=${stack.backend.seed.branchId}`), {
        token: branchAdmin,
      }),
      403,
      'AUTH002',
    );
    const hidden = await call('GET', back('/pricing-bundles'), { token: branchAdmin });
    expect(hidden.body).toEqual([]);
    expect((await call('GET', back(`/pricing-bundles/${bundleId}`), { token: unitFinance })).status).toBe(
      200,
    );
    expect(
      (await call('GET', back('/pricing-bundles?searchText=probe'), { token: unitFinance })).body,
    ).toHaveLength(1);
  });

  test("another tenant's bundles, branches and versions are not found", async () => {
    const rivalToken = await stack.token(rival.tenant, demoOperatorClient);
    const rivalBundles = await call('GET', `/v1/${rival.tenant}/back/pricing-bundles?includeVersions=true`, {
      token: rivalToken,
    });
    expect(rivalBundles.body).toHaveLength(3);
    const foreignId = rivalBundles.body[0].id;
    expectError(await call('GET', back(`/pricing-bundles/${foreignId}`), { token: operator }), 404, 'ODP100');
    expectError(
      await call('POST', back('/pricing-simulator/free-floating'), {
        token: operator,
        body: { branchId: rival.branchId, pricingBundleId: foreignId, phases: [] },
      }),
      404,
      'B404',
    );
    expectError(
      await call('POST', back('/on-demand-pricing-assignments'), {
        token: operator,
        body: { branchId: stack.backend.seed.branchId, vehicleCategoryId: 1, pricingBundleId: foreignId },
      }),
      404,
      'ODP100',
    );
  });

  test('the app sees published prices only', async () => {
    const bundleId = await createBundle('Draft only');
    const draft = (await createVersion(bundleId)).body;
    expectError(
      await call(
        'GET',
        front(
          `/pricing-bundles/pricing-simulator?branchId=${stack.backend.seed.branchId}&pricingBundleId=${bundleId}&pricingBundleVersionId=${draft.id}&drivingMinutes=5`,
        ),
        { token: app },
      ),
      404,
      'ODP101',
    );
    const operatorView = await call(
      'GET',
      back(
        `/pricing-bundles/pricing-simulator?branchId=${stack.backend.seed.branchId}&pricingBundleId=${bundleId}&pricingBundleVersionId=${draft.id}&drivingMinutes=5`,
      ),
      { token: operator },
    );
    expect(operatorView.body).toMatchObject({ versionStatus: 'DRAFT', price: { total: '2.50' } });
  });

  test('hostile input is refused with catalogue errors', async () => {
    const bundleId = await createBundle('Hostile');
    const bad = async (body: unknown) =>
      expectError(
        await call('POST', back(`/pricing-bundles/${bundleId}/versions`), { token: operator, body }),
        400,
        '0022',
      );
    await bad({ ...onDemandRules, onDemand: { ...onDemandRules.onDemand, unlockFee: 1 } });
    await bad({ ...onDemandRules, onDemand: { ...onDemandRules.onDemand, unlockFee: '1e3' } });
    await bad({ ...onDemandRules, onDemand: { ...onDemandRules.onDemand, unlockFee: '99999999999999' } });
    await bad({ ...onDemandRules, notes: 'a\u0000b' });
    await bad({ ...onDemandRules, onDemand: { ...onDemandRules.onDemand, billingIncrementMinutes: 1e12 } });
    expectError(
      await call('POST', back('/pricing-bundles'), {
        token: operator,
        body: { name: 'x\u0000', type: 'BOOKING', businessUnitId: stack.backend.seed.businessUnitId },
      }),
      400,
      '0022',
    );
    expectError(
      await call('POST', back('/pricing-simulator/booking'), {
        token: operator,
        body: {
          branchId: stack.backend.seed.branchId,
          pricingBundleId: bundleId,
          startTime: '2026-11-20T18:00:00Z',
          endTime: '2026-11-20T17:00:00Z',
        },
      }),
      422,
      'ODP110',
    );
    const { cars } = await categoryIds();
    expectError(
      await call('POST', back('/pricing-simulator/booking'), {
        token: operator,
        body: {
          branchId: stack.backend.seed.branchId,
          vehicleCategoryId: cars,
          startTime: '2026-11-20T18:00:00Z',
          endTime: '2026-11-20T17:00:00Z',
        },
      }),
      422,
      'ODP111',
    );
    expectError(
      await call('POST', back('/pricing-simulator/booking'), {
        token: operator,
        body: {
          branchId: stack.backend.seed.branchId,
          vehicleCategoryId: cars,
          startTime: '2026-11-20T18:00:00Z',
          endTime: '2036-11-20T17:00:00Z',
        },
      }),
      422,
      'ODP111',
    );
  });
});

describe('the engine inside a workflow', () => {
  test('domain/pricing.ts and decimal.js bundle and price in the workflow sandbox like in Node', async () => {
    const workflowBundle = await bundleWorkflowCode({
      workflowsPath: fileURLToPath(new URL('./support/pricing-workflows.ts', import.meta.url)),
      logger: new DefaultLogger('ERROR'),
    });
    const taskQueue = `pricing-engine-${randomBytes(3).toString('hex')}`;
    const worker = await Worker.create({
      connection: stack.backend.testEnv!.nativeConnection,
      taskQueue,
      workflowBundle,
    });
    const version: PricedVersion = {
      ref: { pricingBundleId: 1, pricingBundleVersionId: 1, version: 1, name: 'Demo' },
      bundleType: 'ON_DEMAND_LEGACY',
      currency: 'EUR',
      distanceUnit: 'KILOMETER',
      rules: demoScooterRules,
    };
    const start = Date.parse('2026-11-18T09:00:00Z');
    const phases: PhaseSpan[] = [
      { phase: 'RESERVATION_PAID', startMs: start, endMs: start + 90_000 },
      { phase: 'DRIVING', startMs: start + 90_000, endMs: start + 50 * 60_000 },
      { phase: 'PARKING', startMs: start + 50 * 60_000, endMs: start + 200 * 60_000 },
    ];
    const tax = { taxPercentage: '19.00', scale: 2, currency: 'EUR', timeZoneId: 'Europe/Berlin' };
    const inWorkflow = await worker.runUntil(
      stack.backend.testEnv!.client.workflow.execute('priceInWorkflow', {
        taskQueue,
        workflowId: `price-${randomBytes(4).toString('hex')}`,
        args: [version, phases, tax],
      }),
    );
    expect(inWorkflow).toEqual(priceOnDemandRental(version, { phases, distance: '12.5' }, tax));
  }, 60_000);
});
