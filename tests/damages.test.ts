// Damages end to end: report, triage, repair, ignore and reopen over HTTP against the real database;
// the per-vehicle view, the branch list and the open-damages overview; the state table; denials
// (permission, branch, tenant) and hostile input. Every response is validated against the document.
import { ApiClient } from '../db/entities/ApiClient.js';
import { Branch } from '../db/entities/Branch.js';
import { Damage } from '../db/entities/Damage.js';
import { Event } from '../db/entities/Event.js';
import { Role } from '../db/entities/Role.js';
import { RoleAssignment } from '../db/entities/RoleAssignment.js';
import { Vehicle } from '../db/entities/Vehicle.js';
import { tenantEm } from '../db/orm.js';
import { type SeededTenant } from '../db/seed.js';
import { hashSecret } from '../platform/secrets.js';
import {
  damageSeverityRefusal,
  damageStates,
  damageTransitionRefusal,
  type DamageState,
} from '../domain/damage.js';
import { expectError, type CallOptions, type HttpStack, type Reply } from './support/http.js';
import { startSession, type Session } from './support/session.js';

let session: Session;
let stack: HttpStack;
let seed: SeededTenant;
let rival: SeededTenant;
let operator: string;
let reader: string;
let rivalOperator: string;
let vehicles: Vehicle[];
let foreignVehicle: Vehicle;

const call = (method: string, path: string, options?: CallOptions): Promise<Reply> =>
  stack.call(method, path, options);
const back = (path: string) => stack.back(path);
const em = () => tenantEm(stack.backend.orm, seed.tenant);

const report = (body: Record<string, unknown>, token = operator) =>
  call('POST', back('/damages'), { token, body });
const patch = (id: number, body: Record<string, unknown>, token = operator) =>
  call('PATCH', back(`/damages/${id}`), { token, body });

beforeAll(async () => {
  session = await startSession({ rival: { prefix: 'rivaldmg', name: 'Rival Damages' } });
  ({ stack, seed, rival, operatorToken: operator, rivalOperatorToken: rivalOperator } = session);
  const setup = em();
  vehicles = await setup.find(Vehicle, { branch: seed.branchId }, { orderBy: { id: 'asc' } });
  const role = setup.create(Role, { name: 'Damage reader', permissions: ['VEHICLE_READ', 'DAMAGE_READ'] });
  const client = setup.create(ApiClient, {
    clientId: 'damage-reader',
    name: 'Damage reader',
    secretHash: await hashSecret('damage-reader-secret'),
    scopes: ['back'],
  });
  setup.create(RoleAssignment, {
    role,
    subjectType: 'API_CLIENT',
    subjectId: client.clientId,
    branch: setup.getReference(Branch, seed.branchId),
  });
  // A vehicle of the branch the operator client holds no role on.
  foreignVehicle = setup.create(Vehicle, {
    code: 'DMG-FOREIGN-1',
    branch: setup.getReference(Branch, seed.otherBranchId),
    category: vehicles[0]!.category,
  });
  await setup.flush();
  reader = await stack.token(seed.tenant, {
    clientId: 'damage-reader',
    clientSecret: 'damage-reader-secret',
  });
}, 120_000);

afterAll(async () => {
  await session?.stop();
});

describe('damage rules (table of cases)', () => {
  const allowed: Record<DamageState, DamageState[]> = {
    NEW: ['APPROVED', 'IGNORED'],
    APPROVED: ['UNDER_REPAIR', 'REPAIRED', 'IGNORED'],
    UNDER_REPAIR: ['REPAIRED', 'APPROVED'],
    REPAIRED: [],
    IGNORED: ['NEW'],
  };
  const cases = damageStates.flatMap((from) => damageStates.map((to) => [from, to] as const));
  it.each(cases)('%s → %s', (from, to) => {
    const permitted = from === to || allowed[from].includes(to);
    expect(damageTransitionRefusal(from, to) === undefined).toBe(permitted);
  });

  it('severity precedes approval and stays set from then on', () => {
    expect(damageSeverityRefusal('NEW', null)).toBeUndefined();
    expect(damageSeverityRefusal('IGNORED', null)).toBeUndefined();
    expect(damageSeverityRefusal('APPROVED', null)).toBeDefined();
    expect(damageSeverityRefusal('UNDER_REPAIR', undefined)).toBeDefined();
    expect(damageSeverityRefusal('REPAIRED', null)).toBeDefined();
    expect(damageSeverityRefusal('APPROVED', 'MINOR')).toBeUndefined();
  });
});

describe('damages over HTTP', () => {
  it('shows the seeded damages per vehicle and in the open-damages overview', async () => {
    const first = vehicles[0]!;
    const list = await call('GET', back(`/vehicles/${first.id}/damages`), { token: operator });
    expect(list.status).toBe(200);
    expect(list.headers.get('x-total-count')).toBe('2');
    expect(list.body.map((damage: { part: string }) => damage.part)).toEqual(['deck', 'front brake']);
    const open = await call('GET', back(`/vehicles/${first.id}/damages?onlyOpen=true&severity=CRITICAL`), {
      token: reader,
    });
    expect(open.body).toEqual([
      expect.objectContaining({ part: 'front brake', critical: true, state: 'NEW', open: true }),
    ]);

    const overview = await call(
      'GET',
      back(`/vehicles/open-damages-overview?branchId=${seed.cityBranchId}&includeChildBranches=true`),
      { token: operator },
    );
    expect(overview.status).toBe(200);
    expect(overview.headers.get('x-total-count')).toBe('1');
    expect(overview.body).toEqual([
      {
        vehicleId: first.id,
        code: first.code,
        openDamages: 2,
        highestSeverity: 'CRITICAL',
        criticalNewDamages: 1,
        oldestOpenSince: expect.any(String),
      },
    ]);
    // Without the children the district's vehicles are not the city branch's.
    const cityOnly = await call(
      'GET',
      back(`/vehicles/open-damages-overview?branchId=${seed.cityBranchId}`),
      {
        token: operator,
      },
    );
    expect(cityOnly.body).toEqual([]);
    expect(cityOnly.headers.get('x-total-count')).toBe('0');
  });

  it('reports, triages, repairs, ignores and reopens a damage, with its events', async () => {
    const vehicle = vehicles[3]!;
    const created = await report({
      vehicleId: vehicle.id,
      part: '  handlebar grip ',
      location: 'RIGHT',
      description: 'Grip torn',
      userPosition: { lat: 52.52, lng: 13.4 },
    });
    expect(created.status).toBe(201);
    expect(created.headers.get('location')).toBe(`/v1/${seed.tenant}/back/damages/${created.body.id}`);
    expect(created.body).toMatchObject({
      vehicleId: vehicle.id,
      branchId: seed.branchId,
      part: 'handlebar grip',
      location: 'RIGHT',
      severity: null,
      critical: false,
      state: 'NEW',
      open: true,
      vehiclePosition: { lat: vehicle.latitude, lng: vehicle.longitude },
      userPosition: { lat: 52.52, lng: 13.4 },
      rentalId: null,
      currentRentalId: null,
      reportedBy: expect.stringContaining('demo-operator'),
      resolvedAt: null,
    });
    const id: number = created.body.id;

    // Severity must precede approval; both in one request works (fields apply first).
    expectError(await patch(id, { state: 'APPROVED' }), 422, 'DM101');
    expectError(await patch(id, { state: 'UNDER_REPAIR', severity: 'HIGH' }), 409, 'DM100');
    const approved = await patch(id, { state: 'APPROVED', severity: 'HIGH' });
    expect(approved.status).toBe(200);
    expect(approved.body).toMatchObject({ state: 'APPROVED', severity: 'HIGH' });
    expectError(await patch(id, { severity: null }), 422, 'DM101');
    expect((await patch(id, { state: 'UNDER_REPAIR' })).body.state).toBe('UNDER_REPAIR');
    const repaired = await patch(id, { state: 'REPAIRED', repairCode: 'HG-2' });
    expect(repaired.body).toMatchObject({ state: 'REPAIRED', open: false, repairCode: 'HG-2' });
    expect(repaired.body.resolvedAt).toEqual(expect.any(String));
    // Final: neither edits nor moves.
    expectError(await patch(id, { description: 'again' }), 409, 'DM100');
    expectError(await patch(id, { state: 'NEW' }), 409, 'DM100');
    // Sending a repaired damage's unchanged values is no edit.
    expect((await patch(id, { repairCode: 'HG-2' })).status).toBe(200);

    const fetched = await call('GET', back(`/damages/${id}`), { token: reader });
    expect(fetched.body).toEqual(repaired.body);

    const events = await em().find(
      Event,
      { vehicleId: vehicle.id, type: { $like: 'DAMAGE_%' } },
      { orderBy: { id: 'asc' } },
    );
    expect(events.map((event) => event.type)).toEqual([
      'DAMAGE_CREATED',
      'DAMAGE_UPDATED',
      'DAMAGE_STATE_APPROVED',
      'DAMAGE_STATE_UNDER_REPAIR',
      'DAMAGE_UPDATED',
      'DAMAGE_STATE_REPAIRED',
    ]);
    expect(events[2]!.payload).toMatchObject({ damageId: id, from: 'NEW', to: 'APPROVED', severity: 'HIGH' });

    // Ignore and reopen.
    const other = await report({ vehicleId: vehicle.id, part: 'bell' });
    expect((await patch(other.body.id, { state: 'IGNORED' })).body).toMatchObject({
      state: 'IGNORED',
      open: false,
    });
    const reopened = await patch(other.body.id, { state: 'NEW' });
    expect(reopened.body).toMatchObject({ state: 'NEW', open: true, resolvedAt: null });

    const list = await call(
      'GET',
      back(`/damages?branchId=${seed.branchId}&vehicleId=${vehicle.id}&state=REPAIRED&state=NEW&size=1`),
      { token: reader },
    );
    expect(list.status).toBe(200);
    expect(list.headers.get('x-total-count')).toBe('2');
    expect(list.headers.get('x-total-pages')).toBe('2');
    expect(list.body.map((damage: { id: number }) => damage.id)).toEqual([other.body.id]);
  });

  it('records the rentals around a damage and refuses another vehicle rental', async () => {
    const vehicle = vehicles[5]!;
    const rental = await call('POST', back('/rentals'), {
      token: operator,
      body: { guserId: seed.customerIds[1], vehicleId: vehicle.id },
    });
    expect(rental.status).toBe(201);
    const onIt = await report({ vehicleId: vehicle.id, part: 'seat', rentalId: rental.body.id });
    expect(onIt.body).toMatchObject({ rentalId: rental.body.id, currentRentalId: rental.body.id });
    expectError(
      await report({ vehicleId: vehicles[6]!.id, part: 'seat', rentalId: rental.body.id }),
      422,
      'DM102',
    );
    expectError(await report({ vehicleId: vehicle.id, part: 'seat', rentalId: 2_000_000_000 }), 404, 'R404');
    const caused = await report({
      vehicleId: vehicle.id,
      part: 'mirror',
      causedByCustomerId: seed.customerIds[1],
    });
    expect(caused.body.causedByCustomerId).toBe(seed.customerIds[1]);
    await call('DELETE', back(`/rentals/${rental.body.id}`), { token: operator });
  });

  it('refuses callers without the permission, on another branch, or of another tenant', async () => {
    const vehicle = vehicles[2]!;
    expectError(await report({ vehicleId: vehicle.id, part: 'x' }, reader), 403, 'AUTH002');
    const damage = await em().findOneOrFail(Damage, { vehicleId: vehicles[0]!.id, severity: 'CRITICAL' });
    expectError(await patch(damage.id, { severity: 'HIGH' }, reader), 403, 'AUTH002');
    // The reader may read its branch only.
    expectError(
      await call('GET', back(`/vehicles/open-damages-overview?branchId=${seed.otherBranchId}`), {
        token: reader,
      }),
      403,
      'AUTH002',
    );
    expectError(await report({ vehicleId: foreignVehicle.id, part: 'x' }), 403, 'AUTH002');
    expectError(
      await call('GET', back(`/vehicles/${foreignVehicle.id}/damages`), { token: operator }),
      403,
      'AUTH002',
    );
    expectError(
      await call('GET', back(`/damages?branchId=${seed.otherBranchId}`), { token: operator }),
      403,
      'AUTH002',
    );

    // Another tenant's ids are not found, and its token does not open this tenant.
    const rivalDamage = await tenantEm(stack.backend.orm, rival.tenant).findOneOrFail(Damage, {
      severity: 'CRITICAL',
    });
    expectError(
      await call('GET', back(`/damages/${rivalDamage.id + 100_000}`), { token: operator }),
      404,
      'DM404',
    );
    const rivalVehicle = await tenantEm(stack.backend.orm, rival.tenant).findOneOrFail(Vehicle, {
      id: rivalDamage.vehicleId,
    });
    const ours = await em().count(Damage, { id: rivalDamage.id });
    if (!ours)
      expectError(await call('GET', back(`/damages/${rivalDamage.id}`), { token: operator }), 404, 'DM404');
    if (!(await em().count(Vehicle, { id: rivalVehicle.id })))
      expectError(await report({ vehicleId: rivalVehicle.id, part: 'x' }), 404, 'V404');
    expectError(await report({ vehicleId: 2_000_000_000, part: 'x' }), 404, 'V404');
    expectError(
      await report({ vehicleId: vehicle.id, part: 'x', causedByCustomerId: rival.customerIds[0] }),
      404,
      'U106',
    );
    const denied = await call('GET', back(`/vehicles/${vehicle.id}/damages`), { token: rivalOperator });
    expect([401, 403]).toContain(denied.status);
    expect(await em().count(Damage, { vehicleId: vehicle.id })).toBe(0);
  });

  it('answers hostile input with catalogue errors', async () => {
    const vehicle = vehicles[4]!;
    const bad = [
      { vehicleId: vehicle.id, part: 'a\u0000b' },
      { vehicleId: vehicle.id, part: '\u00fc\u0000' },
      { vehicleId: vehicle.id, part: '\u0000' },
      { vehicleId: vehicle.id, part: '   ' },
      { vehicleId: vehicle.id, part: '' },
      { vehicleId: vehicle.id, part: 'x'.repeat(101) },
      { vehicleId: '1', part: 'x' },
      { vehicleId: 99_999_999_999, part: 'x' },
      { vehicleId: vehicle.id, part: 'x', severity: 'DISASTROUS' },
      { vehicleId: vehicle.id, part: 'x', state: 'REPAIRED' },
      { vehicleId: vehicle.id, part: 'x', vehiclePosition: { lat: 91, lng: 0 } },
      { vehicleId: vehicle.id, part: 'x', description: 'd'.repeat(4001) },
      { part: 'x' },
    ];
    for (const body of bad) expectError(await report(body), 400, '0022');
    expectError(
      await call('POST', back('/damages'), { token: operator, rawBody: '{"vehicleId": 1, "part": ' }),
      400,
      'AUTH001',
    );
    const damage = await report({ vehicleId: vehicle.id, part: 'stem' });
    expectError(await patch(damage.body.id, {}), 400, '0022');
    expectError(await patch(damage.body.id, { state: 'BROKEN' }), 400, '0022');
    expectError(await patch(damage.body.id, { repairCode: 'r'.repeat(65) }), 400, '0022');
    expectError(await call('GET', back('/damages/0'), { token: operator }), 400, '0022');
    expectError(await call('GET', back('/damages/abc'), { token: operator }), 400, '0022');
    expectError(
      await call('GET', back(`/vehicles/${vehicle.id}/damages?state=NOPE`), { token: operator }),
      400,
      '0022',
    );
    expectError(await call('GET', back('/damages?branchId=99999999999'), { token: operator }), 400, '0022');
    expect(await em().count(Damage, { vehicleId: vehicle.id })).toBe(1);
  });
});
