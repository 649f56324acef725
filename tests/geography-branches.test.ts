// Geography over HTTP, the organisation: branches (hierarchy, includeChildren, replacement, cycles,
// compatible branches), business units (delete conflicts), the app's view of branches and physical
// stations, and the demo geography; denials by branch and tenant. Every response is validated
// against the OpenAPI documents.
import { Area } from '../db/entities/Area.js';
import { BusinessUnit } from '../db/entities/BusinessUnit.js';
import { Role } from '../db/entities/Role.js';
import { RoleAssignment } from '../db/entities/RoleAssignment.js';
import { Vehicle } from '../db/entities/Vehicle.js';
import { loadBranchGeofence } from '../db/areas.js';
import { tenantEm } from '../db/orm.js';
import { type SeededTenant } from '../db/seed.js';
import { demoAppClient, demoOperatorClient } from '../db/seed/access.js';
import { geofenceProblem, geofenceVerdict } from '../domain/geofence.js';
import { expectError, type CallOptions, type HttpStack, type Reply } from './support/http.js';
import { as, startGeographySession, type GeographySession } from './support/geography.js';

let session: GeographySession;
let stack: HttpStack;
let seed: SeededTenant;
let rival: SeededTenant;
let operator: string;
let rivalOperator: string;
/** An operator with only read permissions on the district branch (for denials). */
let reader: string;

const call = (method: string, path: string, options?: CallOptions): Promise<Reply> =>
  stack.call(method, path, options);
const back = (path: string) => stack.back(path);

beforeAll(async () => {
  session = await startGeographySession();
  ({
    stack,
    seed,
    rival,
    operatorToken: operator,
    rivalOperatorToken: rivalOperator,
    readerToken: reader,
  } = session);
}, 120_000);

afterAll(async () => {
  await session?.stop();
});

describe('branches', () => {
  let childId: number;

  test('create below a parent, read with includeChildren, list with searchText and rootBranchId', async () => {
    const created = await call(
      'POST',
      back('/branches'),
      as(operator, {
        name: 'Berlin Mitte Nord',
        code: 'berlin-mitte-nord',
        parentId: seed.branchId,
        type: 'DISTRICT',
      }),
    );
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      parentId: seed.branchId,
      state: 'IN_PREPARATION',
      billableBranchId: seed.businessUnitId,
      currency: 'EUR',
      taxPercentage: '19.00',
      timeZoneId: 'Europe/Berlin',
    });
    childId = created.body.id;

    const city = await call('GET', back(`/branches/${seed.cityBranchId}?includeChildren=true`), as(operator));
    expect(city.status).toBe(200);
    expect(city.body.children.map((c: { id: number }) => c.id)).toEqual(
      expect.arrayContaining([seed.branchId, childId]),
    );
    const plain = await call('GET', back(`/branches/${seed.cityBranchId}`), as(operator));
    expect(plain.body.children).toBeUndefined();

    const listed = await call('GET', back('/branches?searchText=NORD'), as(operator));
    expect(listed.body.map((b: { id: number }) => b.id)).toEqual([childId]);
    expect(listed.headers.get('x-total-count')).toBe('1');
    // The operator holds no role on the sibling root branch (Spandau): it is not listed.
    const all = await call('GET', back('/branches-list'), as(operator));
    expect(all.body.map((b: { id: number }) => b.id)).not.toContain(seed.otherBranchId);
    const subtree = await call('GET', back(`/branches-list?rootBranchId=${seed.branchId}`), as(operator));
    expect(subtree.body.map((b: { id: number }) => b.id).sort()).toEqual([seed.branchId, childId].sort());
  });

  test('PUT replaces; a cycle or a taken code is refused', async () => {
    const current = (await call('GET', back(`/branches/${childId}`), as(operator))).body;
    const update = {
      name: 'Mitte Nord',
      code: current.code,
      parentId: seed.branchId,
      state: 'OPERATIONAL',
      type: null,
      operationMode: 'BOOKING',
      visibility: 'private',
      timeZoneId: 'Europe/Berlin',
      isBillable: false,
      billableBranchId: seed.businessUnitId,
      currency: 'CHF',
      taxPercentage: '8.10',
      contactInfo: { email: 'mitte@example.com' },
    };
    const replaced = await call('PUT', back(`/branches/${childId}`), as(operator, update));
    expect(replaced.status).toBe(200);
    expect(replaced.body).toMatchObject({ state: 'OPERATIONAL', currency: 'CHF', taxPercentage: '8.10' });
    expectError(
      await call(
        'PUT',
        back(`/branches/${seed.branchId}`),
        as(operator, { ...update, code: 'x-mitte', parentId: childId }),
      ),
      422,
      'B101',
    );
    expectError(
      await call(
        'PUT',
        back(`/branches/${childId}`),
        as(operator, { ...update, timeZoneId: 'Europe/Atlantis' }),
      ),
      422,
      'B105',
    );
    expectError(
      await call('PUT', back(`/branches/${childId}`), as(operator, { ...update, code: 'berlin' })),
      409,
      'B100',
    );
  });

  test('compatible branches keep isIncoming and isOutgoing apart', async () => {
    const put = await call(
      'PUT',
      back(`/branches/${seed.branchId}/compatible-branches`),
      as(operator, [
        { branchId: childId, isIncoming: true, isOutgoing: false },
        { branchId: seed.cityBranchId, isIncoming: false, isOutgoing: false },
      ]),
    );
    expect(put.status).toBe(200);
    expect(put.body).toEqual([{ branchId: childId, isIncoming: true, isOutgoing: false }]);
    const read = await call('GET', back(`/branches/${seed.branchId}/compatible-branches`), as(operator));
    expect(read.body).toEqual(put.body);
    expectError(
      await call(
        'PUT',
        back(`/branches/${seed.branchId}/compatible-branches`),
        as(operator, [{ branchId: seed.branchId, isIncoming: true, isOutgoing: true }]),
      ),
      422,
      'B104',
    );
  });

  test('every write is denied outside the caller’s branches; another tenant’s ids are not found', async () => {
    expectError(
      await call(
        'POST',
        back('/branches'),
        as(operator, { name: 'X', code: 'x-spandau', parentId: seed.otherBranchId }),
      ),
      403,
      'AUTH002',
    );
    expectError(
      await call(
        'POST',
        back('/branches'),
        as(reader, { name: 'X', code: 'x-reader', parentId: seed.branchId }),
      ),
      403,
      'AUTH002',
    );
    expectError(await call('GET', back(`/branches/${rival.branchId}`), as(operator)), 404, 'B404');
    expectError(
      await call('GET', `/v1/${rival.tenant}/back/branches/${seed.branchId}`, as(rivalOperator)),
      404,
      'B404',
    );
    expectError(
      await call('PUT', back(`/branches/${seed.otherBranchId}/compatible-branches`), as(operator, [])),
      403,
      'AUTH002',
    );
  });
});

describe('business units', () => {
  const unitBody = {
    code: 'MUC',
    name: 'Demo Mobility München',
    timeZoneId: 'Europe/Berlin',
    currency: 'EUR',
    taxPercentage: '19.00',
  };

  test('create needs BUSINESS_UNIT_CREATE; read, patch, replace through /branches/billable', async () => {
    expectError(await call('POST', back('/business-units'), as(reader, unitBody)), 403, 'AUTH002');
    const created = await call(
      'POST',
      back('/business-units'),
      as(operator, { ...unitBody, reserveAmountOnCc: '50.00', scale: 2 }),
    );
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ code: 'MUC', reserveAmountOnCc: '50.00', branchCount: 0 });
    expectError(await call('POST', back('/business-units'), as(operator, unitBody)), 409, 'B103');
    const id = created.body.id;
    // The creator holds finance roles only on the demo unit: the new unit is not theirs yet.
    expectError(await call('GET', back(`/business-units/${id}`), as(operator)), 403, 'AUTH002');

    const patched = await call(
      'PATCH',
      back(`/business-units/${seed.businessUnitId}`),
      as(operator, { sepaHandlingFeeNet: '0.35', contactInfo: { phoneNumber: '+49301234567' } }),
    );
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ sepaHandlingFeeNet: '0.35', code: 'BER', currency: 'EUR' });

    const billable = await call(
      'PUT',
      back(`/branches/billable/${seed.businessUnitId}`),
      as(operator, {
        code: 'BER',
        name: 'Demo Mobility Berlin GmbH',
        timeZoneId: 'Europe/Berlin',
        currency: 'EUR',
        taxPercentage: '19.00',
      }),
    );
    expect(billable.status).toBe(200);
    expect(billable.body.sepaHandlingFeeNet).toBeNull();

    const list = await call('GET', back('/business-units?searchText=berlin'), as(operator));
    expect(list.body.map((u: { id: number }) => u.id)).toEqual([seed.businessUnitId]);
  });

  test('a referenced unit cannot be deleted (B102); an unreferenced one can', async () => {
    expectError(
      await call('DELETE', back(`/business-units/${seed.businessUnitId}`), as(operator)),
      409,
      'B102',
    );
    // A fresh unit the operator is granted finance rights on, referenced by nothing but that grant.
    const em = tenantEm(stack.backend.orm, seed.tenant);
    const unit = em.create(BusinessUnit, {
      code: 'TMP',
      name: 'Temporary',
      timeZoneId: 'UTC',
      currency: 'EUR',
      taxPercentage: '0.00',
    });
    await em.flush();
    const finance = await em.findOneOrFail(Role, { name: 'Finance' });
    em.create(RoleAssignment, {
      role: finance,
      subjectType: 'API_CLIENT',
      subjectId: demoOperatorClient.clientId,
      businessUnit: unit,
    });
    await em.flush();
    // Grants on the unit go with it; nothing else references it.
    expect((await call('DELETE', back(`/business-units/${unit.id}`), as(operator))).status).toBe(204);
    expect(await em.fork().count(RoleAssignment, { businessUnit: unit.id })).toBe(0);
    expectError(
      await call('GET', back(`/business-units/${rival.businessUnitId + 1000}`), as(operator)),
      404,
      'B405',
    );
  });
});

describe('app interface', () => {
  test('branches: public ones in service; intersectable ones with contact details', async () => {
    const app = await stack.token(seed.tenant, demoAppClient);
    const branches = await call('GET', stack.front('/branches?searchText=berlin'), as(app));
    expect(branches.status).toBe(200);
    const names = branches.body.map((b: { name: string }) => b.name);
    expect(names).toContain('Berlin Mitte');
    // The branch created in preparation and made private above is not shown.
    expect(names).not.toContain('Mitte Nord');
    await call(
      'PUT',
      back(`/branches/${seed.branchId}/compatible-branches`),
      as(operator, [{ branchId: seed.cityBranchId, isIncoming: true, isOutgoing: true }]),
    );
    const intersectable = await call('GET', stack.front(`/branches/${seed.branchId}/intersectable`), as(app));
    expect(intersectable.body).toEqual([
      expect.objectContaining({
        id: seed.cityBranchId,
        isIncoming: true,
        isOutgoing: true,
        contactInfo: expect.objectContaining({ email: 'berlin@example.com' }),
      }),
    ]);
    expectError(
      await call('GET', stack.front(`/branches/${rival.branchId}/intersectable`), as(app)),
      404,
      'B404',
    );
  });

  test('physical stations: only those open to customers', async () => {
    const app = await stack.token(seed.tenant, demoAppClient);
    const before = await call('GET', stack.front(`/physical-stations?branchId=${seed.branchId}`), as(app));
    const station = await call(
      'POST',
      back('/physical-stations'),
      as(operator, {
        branchId: seed.branchId,
        name: 'Open dock',
        position: { lat: 52.52, lng: 13.4 },
        state: 'OPERATIONAL',
      }),
    );
    const after = await call('GET', stack.front(`/physical-stations?branchId=${seed.branchId}`), as(app));
    expect(after.body.map((s: { id: number }) => s.id)).toContain(station.body.id);
    expect(after.body.length).toBe(before.body.length + 1);
    expect(after.headers.get('x-total-count')).toBe(String(after.body.length));
  });
});

describe('demo geography', () => {
  test('the seeded areas are valid and put the seeded fleet where Berlin has it', async () => {
    const em = tenantEm(stack.backend.orm, seed.tenant);
    const areas = await em.find(Area, { tags: { $contains: ['demo'] } });
    expect(areas).toHaveLength(2);
    for (const area of areas) expect(geofenceProblem(area.geofence)).toBeNull();
    const geofence = await loadBranchGeofence(em, seed.tenant, seed.branchId);
    const scooter = await em.findOneOrFail(Vehicle, { code: 'SC-001' });
    const at = (lat: number, lng: number) =>
      geofenceVerdict(geofence, { position: { lat, lng }, vehicleCategoryId: scooter.category.id });
    // Alexanderplatz: inside the pedestrian zone; Hackescher Markt: a fine place to end; Kottbusser Tor: outside.
    expect(at(52.521918, 13.413215)).toMatchObject({
      noParking: { forbidden: true },
      endRental: { refusal: 'NO_END_RENTAL_AREA' },
    });
    expect(at(52.52249, 13.40228)).toMatchObject({ endRental: { allowed: true }, speedLimit: { kmh: 20 } });
    expect(at(52.49906, 13.41812).endRental.refusal).toBe('OUTSIDE_END_RENTAL_AREA');
    const car = await em.findOneOrFail(Vehicle, { code: 'B-FF 1002' });
    expect(
      geofenceVerdict(geofence, {
        position: { lat: 52.52249, lng: 13.40228 },
        vehicleCategoryId: car.category.id,
      }).speedLimit?.kmh,
    ).toBe(30);
  });
});
