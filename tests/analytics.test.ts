// Analytics over HTTP against the real database: user-event and rental start-position TimePosition lists
// of a branch (and its child), for a period, from known APP_ events and rentals; the grid precision with
// and without POSITION_LOG_READ; paging; the period rules (ANL100); denials and hostile input. Responses
// are validated against the document.
import { randomUUID } from 'node:crypto';
import { ApiClient } from '../db/entities/ApiClient.js';
import { Area } from '../db/entities/Area.js';
import { AreaType } from '../db/entities/AreaType.js';
import { Branch } from '../db/entities/Branch.js';
import { BusinessUnit } from '../db/entities/BusinessUnit.js';
import { Customer } from '../db/entities/Customer.js';
import { Rental } from '../db/entities/Rental.js';
import { Role } from '../db/entities/Role.js';
import { RoleAssignment } from '../db/entities/RoleAssignment.js';
import { Vehicle } from '../db/entities/Vehicle.js';
import { recordEvent } from '../db/events.js';
import { tenantEm, type EntityManager } from '../db/orm.js';
import type { GeofenceGeometry } from '../domain/geofence.js';
import { demoAdministratorClient } from '../db/seed/access.js';
import { hashSecret } from '../platform/secrets.js';
import { expectError } from './support/http.js';
import { startSession, type Session } from './support/session.js';

let session: Session;
let operator: string;
/** POSITION_LOG_READ on every branch: precise positions of events of no branch too (issue 35.9). */
let admin: string;
let coarse: string;
let kpiOnly: string;
let town: Branch;
let district: Branch;
/** The hour (UTC) the fixture's recent events and rentals fall in, and the instant three days earlier. */
let hour: Date;

const square = (west: number, south: number, east: number, north: number): GeofenceGeometry => ({
  type: 'MultiPolygon',
  coordinates: [
    [
      [
        [west, south],
        [east, south],
        [east, north],
        [west, north],
        [west, south],
      ],
    ],
  ],
});

const minutes = (n: number) => n * 60 * 1000;

async function clientWith(em: EntityManager, name: string, permissions: string[], branchId: number) {
  const role = em.create(Role, { name, permissions });
  em.create(ApiClient, {
    clientId: name,
    name,
    secretHash: await hashSecret(`${name}-secret`),
    scopes: ['back'],
  });
  em.create(RoleAssignment, {
    role,
    subjectType: 'API_CLIENT',
    subjectId: name,
    branch: em.getReference(Branch, branchId),
  });
  return { clientId: name, clientSecret: `${name}-secret` };
}

beforeAll(async () => {
  session = await startSession({ rival: { prefix: 'rivalan', name: 'Rival Analytics' } });
  operator = session.operatorToken;
  const { seed } = session;
  const em = session.em();
  const unit = em.getReference(BusinessUnit, seed.businessUnitId);
  town = em.create(Branch, {
    name: 'Analytics town',
    code: 'AN-TOWN',
    parent: em.getReference(Branch, seed.cityBranchId),
    businessUnit: unit,
    timeZoneId: 'Europe/Berlin',
  });
  district = em.create(Branch, {
    name: 'Analytics district',
    code: 'AN-DISTRICT',
    parent: town,
    businessUnit: unit,
    timeZoneId: 'Europe/Berlin',
  });
  const type = em.create(AreaType, {
    id: randomUUID(),
    name: 'Analytics notice',
    style: { color: '#000000', lineThickness: 1, opacity: 0.5 },
    policyTypes: ['NOTICE_AREA_POLICY'],
  });
  // Any active area of a branch places position-only events in it: the town's, and the district's.
  for (const [branch, geofence, status] of [
    [town, square(13.3, 52.4, 13.4, 52.5), 'ACTIVE'],
    [district, square(13.5, 52.4, 13.6, 52.5), 'ACTIVE'],
    [town, square(13.7, 52.4, 13.8, 52.5), 'INACTIVE'],
  ] as const)
    em.create(Area, {
      id: randomUUID(),
      name: 'Analytics area',
      branch,
      areaType: type,
      geofence,
      status,
      policies: [{ type: 'NOTICE_AREA_POLICY' }],
    });
  const readers = [
    await clientWith(em, 'an-coarse', ['ANALYTICS_READ'], seed.cityBranchId),
    await clientWith(em, 'an-kpi-only', ['KPI_READ', 'POSITION_LOG_READ'], seed.cityBranchId),
  ];
  const vehicle = em.create(Vehicle, {
    code: 'AN-1',
    branch: town,
    category: (await em.findOneOrFail(Vehicle, { branch: seed.branchId })).category,
  });
  await em.flush();

  // Three hours ago, on the hour (UTC), so every recent row falls in one cell hour.
  const now = Date.now();
  hour = new Date(Math.floor((now - minutes(180)) / minutes(60)) * minutes(60));
  const at = (offset: number) => new Date(hour.getTime() + minutes(offset));
  const event = (
    type: string,
    createdAt: Date,
    position: { lat: number; lng: number } | null,
    branchId?: number,
  ) => recordEvent(em, { type, createdAt, position, branchId: branchId ?? null });
  event('APP_START', at(10), { lat: 52.45123, lng: 13.35123 }); // in the town's area
  event('APP_MAP_NAVIGATION', at(20), { lat: 52.45234, lng: 13.35345 }); // same 2-decimal cell
  event('APP_LOGIN', at(30), { lat: 48.1, lng: 11.5 }, town.id); // names the town, far away
  event('APP_START', at(40), { lat: 52.45123, lng: 13.35123 }, seed.otherBranchId); // names another branch
  event('RENTAL_START', at(10), { lat: 52.45123, lng: 13.35123 }); // not an app event
  event('APP_START', at(10), null, town.id); // no position
  event('APP_START', at(10), { lat: 52.45, lng: 13.55 }); // in the district's area
  event('APP_START', at(10), { lat: 52.45, lng: 13.75 }); // in the town's inactive area
  event('APP_START', new Date(now - minutes(60 * 50)), { lat: 52.46, lng: 13.36 }); // two days ago
  await em.flush();
  const rivalEm = tenantEm(session.backend.orm, session.rival.tenant);
  recordEvent(rivalEm, { type: 'APP_START', createdAt: at(10), position: { lat: 52.45123, lng: 13.35123 } });
  await rivalEm.flush();

  const customer = em.getReference(Customer, seed.customerIds[0]!);
  const rental = async (fields: Partial<Rental>, branch = town) => {
    const [{ id }] = await em.execute<[{ id: number }]>(`select nextval('rental_id_seq')::int as id`);
    em.create(Rental, {
      id,
      workflowId: `analytics-rental-${id}`,
      branch,
      vehicle,
      customer,
      reservedAt: new Date(now - minutes(60 * 24 * 50)),
      state: 'ENDED',
      endedAt: new Date(now - minutes(1)),
      ...fields,
    });
  };
  await rental({ startedAt: at(5), startPosition: { lat: 52.45123, lng: 13.35123 } });
  await rental({ startedAt: at(50), startPosition: { lat: 52.45121, lng: 13.35124 } });
  await rental({ startedAt: at(15), startPosition: { lat: 52.5, lng: 13.5 } }, district);
  await rental({ startedAt: new Date(now - minutes(60 * 24 * 40)), startPosition: { lat: 52.5, lng: 13.4 } });
  await rental({ state: 'CANCELLED', startPosition: null }); // never started
  await rental({ startedAt: at(5), startPosition: null }); // started without a known position
  await em.flush();
  [coarse, kpiOnly] = await Promise.all(readers.map((client) => session.stack.token(seed.tenant, client)));
  admin = await session.stack.token(seed.tenant, demoAdministratorClient);
}, 120_000);

afterAll(async () => {
  await session?.stop();
});

const back = (path: string) => session.stack.back(path);
const get = (path: string, token = operator) => session.stack.call('GET', back(path), { token });
const cell = (lat: number, lng: number, weight: number, time = hour) => ({
  time: time.toISOString().replace('.000Z', 'Z'),
  pos: { lat, lng },
  weight,
});

describe('analytics', () => {
  test('user events: the branch named or the position in its active areas, APP_ types only', async () => {
    const reply = await get(`/analytics/userEvents?branchId=${town.id}`, admin);
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual([cell(48.1, 11.5, 1), cell(52.4512, 13.3512, 1), cell(52.4523, 13.3535, 1)]);
    expect(reply.headers.get('x-total-count')).toBe('3');
    // POSITION_LOG_READ on the city only: precise where the event names a branch, rounded where it names
    // none, as GET /events hides such a position unless the permission is held tenant-wide (issue 35.9).
    const cityOnly = await get(`/analytics/userEvents?branchId=${town.id}`);
    expect(cityOnly.body).toEqual([cell(48.1, 11.5, 1), cell(52.45, 13.35, 2)]);
    // With the child: the district's area too.
    const both = await get(`/analytics/userEvents?branchId=${town.id}&includeChildBranches=true`, admin);
    expect(both.body).toEqual([
      cell(48.1, 11.5, 1),
      cell(52.45, 13.55, 1),
      cell(52.4512, 13.3512, 1),
      cell(52.4523, 13.3535, 1),
    ]);
    // A longer period reaches the event of two days ago (its own hour).
    const from = new Date(Date.now() - 3 * 24 * 3600 * 1000).toISOString();
    const longer = await get(`/analytics/userEvents?branchId=${town.id}&from=${from}`, admin);
    expect(longer.body).toHaveLength(4);
    expect(longer.body[0]).toEqual(expect.objectContaining({ pos: { lat: 52.46, lng: 13.36 }, weight: 1 }));
  });

  test('without POSITION_LOG_READ positions are rounded to two decimals', async () => {
    const reply = await get(`/analytics/userEvents?branchId=${town.id}`, coarse);
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual([cell(48.1, 11.5, 1), cell(52.45, 13.35, 2)]);
    const starts = await get(`/analytics/rentals/startPositions?branchId=${town.id}`, coarse);
    expect(starts.body).toEqual([cell(52.45, 13.35, 2)]);
  });

  test('rental start positions: started in the period, at a known position', async () => {
    const reply = await get(`/analytics/rentals/startPositions?branchId=${town.id}`);
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual([cell(52.4512, 13.3512, 2)]);
    const both = await get(`/analytics/rentals/startPositions?branchId=${town.id}&includeChildBranches=true`);
    expect(both.body).toEqual([cell(52.4512, 13.3512, 2), cell(52.5, 13.5, 1)]);
    // An explicit period: the rental of 40 days ago alone.
    const from = new Date(Date.now() - 41 * 24 * 3600 * 1000);
    const to = new Date(from.getTime() + 30 * 24 * 3600 * 1000);
    const old = await get(
      `/analytics/rentals/startPositions?branchId=${town.id}&from=${from.toISOString()}&to=${to.toISOString()}`,
    );
    expect(old.body).toEqual([expect.objectContaining({ pos: { lat: 52.5, lng: 13.4 }, weight: 1 })]);
  });

  test('pages count cells', async () => {
    const first = await get(`/analytics/userEvents?branchId=${town.id}&size=2`, admin);
    expect(first.body).toEqual([cell(48.1, 11.5, 1), cell(52.4512, 13.3512, 1)]);
    expect(first.headers.get('x-total-count')).toBe('3');
    expect(first.headers.get('x-total-pages')).toBe('2');
    const second = await get(`/analytics/userEvents?branchId=${town.id}&size=2&page=1`, admin);
    expect(second.body).toEqual([cell(52.4523, 13.3535, 1)]);
    const beyond = await get(`/analytics/userEvents?branchId=${town.id}&size=2&page=7`, admin);
    expect(beyond.body).toEqual([]);
    expect(beyond.headers.get('x-total-count')).toBe('3');
  });

  test('period rules: ANL100 for empty, reversed or over 31 days; defaults fill the other end', async () => {
    const now = Date.now();
    const iso = (ms: number) => new Date(ms).toISOString();
    const day = 24 * 3600 * 1000;
    for (const path of ['/analytics/userEvents', '/analytics/rentals/startPositions'])
      for (const query of [
        `from=${iso(now - day)}&to=${iso(now - 2 * day)}`,
        `from=${iso(now - day)}&to=${iso(now - day)}`,
        `from=${iso(now - 32 * day)}&to=${iso(now)}`,
        `from=${iso(now - 32 * day)}`,
        `to=${iso(now - 40 * day)}&from=${iso(now)}`,
        `from=${iso(now + day)}`,
        'from=0001-01-01T00:00:00Z&to=9999-12-31T23:59:59Z',
      ])
        expectError(await get(`${path}?branchId=${town.id}&${query}`), 422, 'ANL100');
    // `to` alone: the 24 hours before it; a leap second is a real instant.
    const earlier = await get(`/analytics/userEvents?branchId=${town.id}&to=${iso(now - 40 * day)}`);
    expect(earlier.body).toEqual([]);
    const leap = await get(
      `/analytics/userEvents?branchId=${town.id}&from=2016-12-31T12:00:00Z&to=2016-12-31T23:59:60Z`,
    );
    expect(leap.status).toBe(200);
  });

  test('denials: permission, branch, tenant, no token', async () => {
    for (const path of ['/analytics/userEvents', '/analytics/rentals/startPositions']) {
      expectError(await get(`${path}?branchId=${town.id}`, kpiOnly), 403, 'AUTH002');
      expectError(await get(`${path}?branchId=${session.seed.otherBranchId}`), 403, 'AUTH002');
      expectError(await get(`${path}?branchId=${session.rival.cityBranchId}`), 404, 'B404');
      expectError(
        await session.stack.call('GET', `/v1/${session.rival.tenant}/back${path}?branchId=${town.id}`, {
          token: session.rivalOperatorToken,
        }),
        404,
        'B404',
      );
      expectError(await session.stack.call('GET', back(`${path}?branchId=${town.id}`)), 401, 'JWT006');
    }
  });

  test('hostile input answers 400 0022', async () => {
    const cases = [
      '',
      'branchId=0x1',
      'branchId=1e3',
      'branchId=abc',
      `branchId=${encodeURIComponent('1\u0000')}`,
      `branchId=${town.id}&includeChildBranches=maybe`,
      `branchId=${town.id}&from=2025-02-30T00:00:00Z`,
      `branchId=${town.id}&from=2025-13-01T00:00:00Z`,
      `branchId=${town.id}&to=2025-01-01T24:00:00Z`,
      `branchId=${town.id}&from=0000-01-01T00:00:00Z`,
      `branchId=${town.id}&from=yesterday`,
      `branchId=${town.id}&from=2025-01-01`,
      `branchId=${town.id}&from=1735689600`,
      `branchId=${town.id}&from=${encodeURIComponent('2025-01-01T00:00:00Z\u0000')}`,
      `branchId=${town.id}&size=0`,
      `branchId=${town.id}&size=5001`,
      `branchId=${town.id}&page=-1`,
      `branchId=${town.id}&page=0x1`,
    ];
    const replies: [string, string, number, string][] = [];
    for (const path of ['/analytics/userEvents', '/analytics/rentals/startPositions'])
      for (const query of cases) {
        const reply = await get(`${path}?${query}`);
        replies.push([path, query, reply.status, reply.body?.errorCode]);
      }
    expect(replies).toEqual(
      ['/analytics/userEvents', '/analytics/rentals/startPositions'].flatMap((path) =>
        cases.map((query) => [path, query, 400, '0022']),
      ),
    );
  });
});
