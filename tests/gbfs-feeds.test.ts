// The public GBFS feeds of the demo tenant (docs/feeds.md), end to end over HTTP: every file of both
// versions valid against MobilityData's official schemas, anonymous and CORS-open, ETag and 304, tenant
// and publication isolation, hostile paths, availability following reservations and rentals, vehicle ids
// rotated after each trip, a new no-parking area in geofencing_zones, and the operator endpoints.
import { request as httpRequest } from 'node:http';
import { ApiClient } from '../db/entities/ApiClient.js';
import { Branch } from '../db/entities/Branch.js';
import { Role } from '../db/entities/Role.js';
import { RoleAssignment } from '../db/entities/RoleAssignment.js';
import { Vehicle } from '../db/entities/Vehicle.js';
import { hashSecret } from '../platform/secrets.js';
import { tenantEm } from '../db/orm.js';
import { type SeededTenant } from '../db/seed.js';
import { demoFeedSystemId } from '../db/seed/feeds.js';
import { until } from './support/fleet.js';
import { allFeedFiles, getFeed, gbfsSchemaErrors, rawRequest } from './support/gbfs.js';
import { expectError, type CallOptions, type HttpStack, type Reply } from './support/http.js';
import { startSession, type Session } from './support/session.js';

// Feeds as fresh as a test needs: files replaced at every change, changes looked for every 100 ms.
process.env.FEEDS_REALTIME_TTL_SECONDS = '0';
process.env.FEEDS_STATIC_TTL_SECONDS = '0';
process.env.FEEDS_CHECK_INTERVAL_MS = '100';

let session: Session;
let stack: HttpStack;
let seed: SeededTenant;
let rival: SeededTenant;
let operatorToken: string;
let annaToken: string;
/** A client holding FEED_READ on the district only (below the demo system's root branch). */
let readerToken: string;

const call = (method: string, path: string, options?: CallOptions): Promise<Reply> =>
  stack.call(method, path, options);
const back = (path: string) => stack.back(path);
const front = (path: string) => stack.front(path);
const feed = (file: string, version = 'v3', tenant = seed.tenant) =>
  `/v1/${tenant}/gbfs/${demoFeedSystemId}/${version}/${file}.json`;

interface V3Vehicle {
  vehicle_id: string;
  is_reserved: boolean;
  is_disabled: boolean;
  lat?: number;
  lon?: number;
}
const vehiclesV3 = async (): Promise<V3Vehicle[]> =>
  (await getFeed(stack.baseUrl, feed('vehicle_status'))).body.data.vehicles;
const bikesV2 = async (): Promise<(V3Vehicle & { bike_id: string })[]> =>
  (await getFeed(stack.baseUrl, feed('free_bike_status', 'v2'))).body.data.bikes;

beforeAll(async () => {
  session = await startSession({ rival: true, signInDemoCustomer: true });
  ({ stack, seed, rival, operatorToken, annaToken } = session);
  const em = session.em();
  const role = em.create(Role, { name: 'Feed reader', permissions: ['FEED_READ'] });
  const client = em.create(ApiClient, {
    clientId: 'feed-reader',
    name: 'Feed reader',
    secretHash: await hashSecret('feed-reader-secret'),
    scopes: ['back'],
  });
  em.create(RoleAssignment, {
    role,
    subjectType: 'API_CLIENT',
    subjectId: client.clientId,
    branch: em.getReference(Branch, seed.branchId),
  });
  await em.flush();
  readerToken = await stack.token(seed.tenant, {
    clientId: 'feed-reader',
    clientSecret: 'feed-reader-secret',
  });
}, 120_000);

afterAll(async () => {
  await session?.stop();
});

/** A GET whose headers are sent exactly as given (fetch adds its own Accept-Encoding). */
function rawRequestWith(path: string, headers: Record<string, string>) {
  return new Promise<{ status: number; headers: Record<string, string | string[] | undefined> }>(
    (resolve, reject) => {
      const url = new URL(stack.baseUrl);
      const request = httpRequest({ host: url.hostname, port: url.port, path, headers }, (response) => {
        response.resume();
        response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers }));
      });
      request.on('error', reject);
      request.end();
    },
  );
}

describe('the demo system', () => {
  test('every file of GBFS 3.0 and 2.3 is valid against the official schemas', async () => {
    const { bodies, errors } = await allFeedFiles(stack.baseUrl, seed.tenant, demoFeedSystemId);
    expect(errors).toEqual({});
    const gbfs = bodies.get('v3/gbfs');
    expect(gbfs.version).toBe('3.0');
    expect(gbfs.data.feeds.map((f: { name: string }) => f.name)).toContain('vehicle_status');
    expect(bodies.get('v2/gbfs').data.de.feeds.map((f: { name: string }) => f.name)).toContain(
      'free_bike_status',
    );
    const versions = bodies.get('v3/gbfs_versions').data.versions;
    expect(versions.map((v: { version: string }) => v.version)).toEqual(['2.3', '3.0']);
    expect(versions[0].url).toMatch(new RegExp(`/v1/${seed.tenant}/gbfs/berlin/v2/gbfs\\.json$`));
    // The demo fleet: vehicles listed with rotating ids (never the internal id), types from the mapping.
    const vehicles = bodies.get('v3/vehicle_status').data.vehicles as V3Vehicle[];
    expect(vehicles.length).toBeGreaterThan(3);
    const internal = await tenantEm(stack.backend.orm, seed.tenant).find(Vehicle, {});
    const internalIds = new Set(internal.flatMap((v) => [String(v.id), v.code, v.rotatingUuid ?? '']));
    for (const vehicle of vehicles) {
      expect(vehicle.vehicle_id).toMatch(/^[0-9a-f-]{36}$/);
      expect(internalIds.has(vehicle.vehicle_id)).toBe(false);
    }
    expect(vehicles.some((v) => v.is_disabled)).toBe(true);
    const types = bodies.get('v3/vehicle_types').data.vehicle_types;
    expect(types).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          form_factor: 'scooter_standing',
          propulsion_type: 'electric',
          max_range_meters: 40000,
        }),
        expect.objectContaining({
          form_factor: 'car',
          propulsion_type: 'electric',
          max_range_meters: 400000,
        }),
      ]),
    );
    // The seeded no-parking zone and the business area's speed limits.
    const zones = bodies.get('v3/geofencing_zones').data.geofencing_zones.features;
    const alex = zones.find((z: { properties: { name: { text: string }[] } }) =>
      z.properties.name[0]!.text.includes('Alexanderplatz'),
    );
    expect(alex.properties.rules[0]).toMatchObject({ ride_end_allowed: false, ride_through_allowed: true });
    expect(bodies.get('v3/system_information').data).toMatchObject({
      system_id: `${seed.tenant}-berlin`,
      languages: ['de'],
      timezone: 'Europe/Berlin',
    });
    expect(bodies.get('v3/station_information').data.stations.length).toBeGreaterThan(0);
    // Pricing plans from the bundles assigned to the system's branches; vehicles and types name theirs.
    const plans = bodies.get('v3/system_pricing_plans').data.plans as { plan_id: string }[];
    expect(plans.length).toBeGreaterThan(0);
    const planIds = new Set(plans.map((plan) => plan.plan_id));
    const priced = vehicles.filter((v) => (v as { pricing_plan_id?: string }).pricing_plan_id);
    expect(priced.length).toBeGreaterThan(0);
    for (const v of priced)
      expect(planIds.has((v as { pricing_plan_id?: string }).pricing_plan_id!)).toBe(true);
    expect(bodies.get('v3/system_regions').data.regions.length).toBeGreaterThanOrEqual(2);
    const manifest = await getFeed(stack.baseUrl, `/v1/${seed.tenant}/gbfs/manifest.json`);
    expect(manifest.status).toBe(200);
    expect(gbfsSchemaErrors('manifest', 'manifest', manifest.body)).toEqual([]);
  });

  test('anonymous, CORS-open, with ETag and 304', async () => {
    const first = await getFeed(stack.baseUrl, feed('system_information'), {
      origin: 'https://planner.example',
    });
    expect(first.status).toBe(200);
    expect(first.headers.get('access-control-allow-origin')).toBe('*');
    expect(first.headers.get('content-type')).toMatch(/^application\/json/);
    const etag = first.headers.get('etag')!;
    expect(etag).toMatch(/^"[A-Za-z0-9_-]+"$/);
    const again = await getFeed(stack.baseUrl, feed('system_information'), { 'if-none-match': etag });
    expect(again.status).toBe(304);
    expect(again.text).toBe('');
    expect(again.headers.get('etag')).toBe(etag);
    expect(again.headers.get('access-control-allow-origin')).toBe('*');
    expect(
      (await getFeed(stack.baseUrl, feed('system_information'), { 'if-none-match': '"other"' })).status,
    ).toBe(200);
    // Stored compressed too, for pollers that accept gzip; either tag validates.
    const zipped = await rawRequestWith(feed('vehicle_status'), { 'accept-encoding': 'gzip' });
    expect(zipped.headers['content-encoding']).toBe('gzip');
    expect(zipped.headers.vary).toBe('Accept-Encoding');
    const plain = await rawRequestWith(feed('vehicle_status'), { 'accept-encoding': 'identity' });
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(zipped.headers.etag).not.toBe(plain.headers.etag);
    expect(
      (await rawRequestWith(feed('vehicle_status'), { 'if-none-match': String(zipped.headers.etag) })).status,
    ).toBe(304);
    const preflight = await fetch(`${stack.baseUrl}${feed('vehicle_status')}`, {
      method: 'OPTIONS',
      headers: { origin: 'https://planner.example', 'access-control-request-method': 'GET' },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe('*');
    const head = await fetch(`${stack.baseUrl}${feed('vehicle_status')}`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.headers.get('etag')).toBeTruthy();
    // last_updated and ttl in the header members, true to the snapshot.
    const body = first.body;
    expect(Date.parse(body.last_updated)).toBeLessThanOrEqual(Date.now());
    expect(body.ttl).toBe(0);
    // A token is not needed and not looked at.
    const withToken = await getFeed(stack.baseUrl, feed('system_information'), {
      authorization: 'Bearer nonsense',
    });
    expect(withToken.status).toBe(200);
  });
});

describe('isolation and hostile input', () => {
  test('another tenant, an unknown or unpublished system, an unknown file: FD410 alike', async () => {
    const notFound = async (path: string) => {
      const reply = await getFeed(stack.baseUrl, path);
      expect({ path, status: reply.status, code: reply.body?.errorCode }).toEqual({
        path,
        status: 404,
        code: 'FD410',
      });
      expect(reply.headers.get('access-control-allow-origin')).toBe('*');
    };
    await notFound(`/v1/${seed.tenant}/gbfs/nowhere/v3/gbfs.json`);
    await notFound(`/v1/no-such-tenant/gbfs/berlin/v3/gbfs.json`);
    await notFound(`/v1/${seed.tenant}/gbfs/berlin/v3/free_bike_status.json`);
    await notFound(`/v1/${seed.tenant}/gbfs/berlin/v2/vehicle_status.json`);
    await notFound(`/v1/${seed.tenant}/gbfs/berlin/v4/gbfs.json`);
    await notFound(`/v1/${seed.tenant}/gbfs/berlin/v3/system_calendar.json`);
    await notFound(`/v1/${seed.tenant}/gbfs`);
    // The rival tenant's own demo system is its own: none of its vehicle ids in ours.
    const ours = new Set((await vehiclesV3()).map((v) => v.vehicle_id));
    const theirs = (await getFeed(stack.baseUrl, feed('vehicle_status', 'v3', rival.tenant))).body.data
      .vehicles as V3Vehicle[];
    expect(theirs.length).toBeGreaterThan(0);
    expect(theirs.filter((v) => ours.has(v.vehicle_id))).toEqual([]);

    // Unpublishing makes the feeds not found; publishing again brings them back.
    const [system] = (await call('GET', back('/feed-systems'), { token: operatorToken })).body;
    expect(system).toMatchObject({ systemId: 'berlin', published: true, rootBranchId: seed.cityBranchId });
    expect(
      (await call('POST', back(`/feed-systems/${system.id}/unpublish`), { token: operatorToken })).status,
    ).toBe(200);
    await notFound(feed('gbfs'));
    await notFound(feed('vehicle_status'));
    await notFound(`/v1/${seed.tenant}/gbfs/manifest.json`);
    expect(
      (await call('POST', back(`/feed-systems/${system.id}/publish`), { token: operatorToken })).status,
    ).toBe(200);
    expect((await getFeed(stack.baseUrl, feed('gbfs'))).status).toBe(200);
  });

  test('hostile paths and methods answer catalogue errors, never 5xx', async () => {
    const tenant = seed.tenant;
    const paths = [
      `/v1/${tenant}/gbfs/berlin/v3/../v2/gbfs.json`,
      `/v1/${tenant}/gbfs/berlin/v3//gbfs.json`,
      `/v1/${tenant}/gbfs/berlin/v3/gbfs.json%00`,
      `/v1/${tenant}/gbfs/berlin%00/v3/gbfs.json`,
      `/v1/${tenant}/gbfs/BERLIN/v3/gbfs.json`,
      `/v1/${tenant}/gbfs/berlin/V3/gbfs.json`,
      `/v1/${tenant}/gbfs/berlin/v3/gbfs.JSON`,
      `/v1/${tenant}/gbfs/berlin/v3/gbfs`,
      `/v1/${tenant}/gbfs/${'a'.repeat(2000)}/v3/gbfs.json`,
      `/v1/${tenant}/gbfs/berlin/v3/%2e%2e/gbfs.json`,
      `/v1/${tenant}/gbfs/berlin/v3/gbfs.json/`,
      `/v1/%FF/gbfs/berlin/v3/gbfs.json`,
      `/v1/${tenant}'%20or%201=1/gbfs/berlin/v3/gbfs.json`,
      `/v1/${tenant}/gbfs/0x1/v3/gbfs.json`,
    ];
    for (const path of paths) {
      const reply = await rawRequest(stack.baseUrl, 'GET', path);
      expect({ path, status: reply.status }).toEqual({ path, status: 404 });
      expect(JSON.parse(reply.body)).toMatchObject({ errorCode: 'FD410', httpStatus: 404 });
    }
    for (const method of ['POST', 'PUT', 'DELETE', 'PATCH']) {
      const reply = await rawRequest(stack.baseUrl, method, feed('gbfs'));
      expect({ method, status: reply.status }).toEqual({ method, status: 405 });
      expect(JSON.parse(reply.body)).toMatchObject({ errorCode: 'FD405' });
    }
  });
});

describe('availability, rotation and zones follow the data', () => {
  test('a reserved vehicle is no longer available; a rented one leaves; after the trip it has a new id', async () => {
    const available = await call(
      'GET',
      front(`/vehicles?branchId=${seed.branchId}&onlyAvailable=true&size=100`),
      {
        token: annaToken,
      },
    );
    const vehicle = available.body.find((v: { code: string }) => v.code)!;
    const em = tenantEm(stack.backend.orm, seed.tenant);
    const idOf = async () =>
      (
        await em
          .getConnection()
          .execute<{ public_id: string }[]>(
            'select public_id from feed_vehicle_id where tenant_id = ? and vehicle_id = ?',
            [seed.tenant, vehicle.id],
          )
      )[0]?.public_id;
    const before = await until(async () => {
      const id = await idOf();
      return id && (await vehiclesV3()).some((v) => v.vehicle_id === id && !v.is_reserved) ? id : undefined;
    });

    const reserved = await call('POST', front('/rentals'), {
      token: annaToken,
      body: { vehicleId: vehicle.id },
    });
    expect(reserved.status).toBe(201);
    const rentalId = reserved.body.id as number;
    // 3.0 and 2.3: listed as reserved, so not available.
    await until(async () => (await vehiclesV3()).find((v) => v.vehicle_id === before)?.is_reserved === true);
    await until(async () => (await bikesV2()).find((v) => v.bike_id === before)?.is_reserved === true);
    const station = (await getFeed(stack.baseUrl, feed('station_status'))).body;
    expect(gbfsSchemaErrors('v3', 'station_status', station)).toEqual([]);

    const operate = (operationType: string) =>
      call('POST', front(`/rentals/${rentalId}/operation`), {
        token: annaToken,
        body: {
          operationType,
          ...(operationType === 'START' ? { userPosition: { lat: 52.53, lng: 13.4 } } : {}),
        },
      });
    expect((await operate('START')).status).toBe(200);
    // In a trip: not in the feed at all (neither version).
    await until(async () => !(await vehiclesV3()).some((v) => v.vehicle_id === before));
    expect((await bikesV2()).some((v) => v.bike_id === before)).toBe(false);
    expect((await operate('END')).status).toBe(200);

    // Back after the trip under a new random id; the old one never reappears.
    const after = await until(async () => {
      const id = await idOf();
      return id && id !== before && (await vehiclesV3()).some((v) => v.vehicle_id === id) ? id : undefined;
    });
    expect(after).not.toBe(before);
    expect((await vehiclesV3()).some((v) => v.vehicle_id === before)).toBe(false);
    expect((await bikesV2()).some((v) => v.bike_id === after)).toBe(true);
  });

  test('a new no-parking area appears in geofencing_zones with its rules', async () => {
    const types = await call('GET', back('/areatypes'), { token: operatorToken });
    const noParking = types.body.find((t: { policyTypes: string[] }) =>
      t.policyTypes.includes('NO_PARKING_POLICY'),
    );
    const geofence = {
      type: 'MultiPolygon',
      coordinates: [
        [
          [
            [13.41, 52.515],
            [13.415, 52.515],
            [13.415, 52.518],
            [13.41, 52.518],
            [13.41, 52.515],
          ],
        ],
      ],
    };
    const created = await call('POST', back('/areas'), {
      token: operatorToken,
      body: {
        name: 'Feeds test no-parking',
        branchId: seed.branchId,
        areaTypeId: noParking.id,
        geofence,
        policies: [{ type: 'NO_PARKING_POLICY' }],
      },
    });
    expect(created.status).toBe(201);
    const zone = await until(async () => {
      const body = (await getFeed(stack.baseUrl, feed('geofencing_zones'))).body;
      return body.data.geofencing_zones.features.find(
        (f: { properties: { name: { text: string }[] } }) =>
          f.properties.name[0]!.text === 'Feeds test no-parking',
      );
    });
    expect(zone.geometry).toEqual(geofence);
    expect(zone.properties.rules).toEqual([
      { ride_start_allowed: true, ride_end_allowed: false, ride_through_allowed: true },
    ]);
    const v2 = (await getFeed(stack.baseUrl, feed('geofencing_zones', 'v2'))).body;
    expect(gbfsSchemaErrors('v2', 'geofencing_zones', v2)).toEqual([]);
    const v2zone = v2.data.geofencing_zones.features.find(
      (f: { properties: { name: string } }) => f.properties.name === 'Feeds test no-parking',
    );
    expect(v2zone.properties.rules).toEqual([{ ride_allowed: false, ride_through_allowed: true }]);
  });
});

describe('operator endpoints', () => {
  test('create, read, update, publish, delete; refusals', async () => {
    const body = {
      systemId: 'mitte',
      name: 'Mitte',
      rootBranchId: seed.branchId,
      language: 'en',
      feedContactEmail: 'feeds@example.org',
    };
    const created = await call('POST', back('/feed-systems'), { token: operatorToken, body });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ systemId: 'mitte', published: false, timezone: 'Europe/Berlin' });
    const id = created.body.id as number;
    expectError(await call('POST', back('/feed-systems'), { token: operatorToken, body }), 409, 'FD100');
    expect((await getFeed(stack.baseUrl, `/v1/${seed.tenant}/gbfs/mitte/v3/gbfs.json`)).status).toBe(404);
    expect(
      (await call('POST', back(`/feed-systems/${id}/publish`), { token: operatorToken })).body.published,
    ).toBe(true);
    const { errors } = await allFeedFiles(stack.baseUrl, seed.tenant, 'mitte');
    expect(errors).toEqual({});
    expectError(await call('DELETE', back(`/feed-systems/${id}`), { token: operatorToken }), 409, 'FD103');
    const patched = await call('PATCH', back(`/feed-systems/${id}`), {
      token: operatorToken,
      body: { name: 'Berlin-Mitte', timezone: 'Europe/Paris' },
    });
    expect(patched.body).toMatchObject({ name: 'Berlin-Mitte', timezone: 'Europe/Paris' });
    expectError(
      await call('PATCH', back(`/feed-systems/${id}`), {
        token: operatorToken,
        body: { timezone: 'Mars/Olympus' },
      }),
      422,
      'FD102',
    );
    expectError(
      await call('PATCH', back(`/feed-systems/${id}`), { token: operatorToken, body: { language: 'EN' } }),
      400,
      '0022',
    );
    expectError(
      await call('PATCH', back(`/feed-systems/${id}`), {
        token: operatorToken,
        body: { systemId: 'Bad Id' },
      }),
      400,
      '0022',
    );
    expectError(
      await call('POST', back('/feed-systems'), {
        token: operatorToken,
        body: { ...body, systemId: 'x', rootBranchId: 999999 },
      }),
      404,
      'B404',
    );
    // Another tenant's system is not found; the sibling branch is not the operator's.
    expectError(
      await call('GET', `/v1/${rival.tenant}/back/feed-systems/${id}`, { token: session.rivalOperatorToken }),
      404,
      'FD404',
    );
    expectError(
      await call('POST', back('/feed-systems'), {
        token: operatorToken,
        body: { ...body, systemId: 'spandau', rootBranchId: seed.otherBranchId },
      }),
      403,
      'AUTH002',
    );
    expect((await call('POST', back(`/feed-systems/${id}/unpublish`), { token: operatorToken })).status).toBe(
      200,
    );
    expect((await call('DELETE', back(`/feed-systems/${id}`), { token: operatorToken })).status).toBe(204);
    expectError(await call('GET', back(`/feed-systems/${id}`), { token: operatorToken }), 404, 'FD404');
  });

  test('vehicle types: a motorised type needs its range', async () => {
    const list = await call('GET', back('/feed-vehicle-types'), { token: operatorToken });
    expect(list.status).toBe(200);
    const categoryId = list.body[0].categoryId as number;
    expect((await call('GET', back('/feed-vehicle-types'), { token: readerToken })).status).toBe(200);
    expectError(
      await call('PUT', back(`/feed-vehicle-types/${categoryId}`), {
        token: readerToken,
        body: { formFactor: 'bicycle', propulsionType: 'human' },
      }),
      403,
      'AUTH002',
    );
    expectError(
      await call('DELETE', back(`/feed-vehicle-types/${categoryId}`), { token: readerToken }),
      403,
      'AUTH002',
    );
    expectError(
      await call('PUT', back(`/feed-vehicle-types/${categoryId}`), {
        token: operatorToken,
        body: { formFactor: 'moped', propulsionType: 'electric' },
      }),
      422,
      'FD104',
    );
    expectError(
      await call('PUT', back('/feed-vehicle-types/999999'), {
        token: operatorToken,
        body: { formFactor: 'bicycle', propulsionType: 'human' },
      }),
      404,
      'VC404',
    );
    expectError(
      await call('PUT', back(`/feed-vehicle-types/${categoryId}`), {
        token: operatorToken,
        body: { formFactor: 'hoverboard', propulsionType: 'human' },
      }),
      400,
      '0022',
    );
  });
});
