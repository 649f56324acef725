// What a hostile client and a new user ran into (issue 21), each case failing before its fix: HEAD, loose
// numbers, impossible dates, unknown permissions, tokens with claims of the wrong shape, the customer
// timeline, and creating and deleting a business unit with the same permission.
import { SignJWT } from 'jose';
import { expectError, testJwtSecret, type HttpStack } from './support/http.js';
import { startSession, type Session } from './support/session.js';
import { ApiClient } from '../db/entities/ApiClient.js';
import { Role } from '../db/entities/Role.js';
import { RoleAssignment } from '../db/entities/RoleAssignment.js';
import { tenantEm } from '../db/orm.js';
import { hashSecret } from '../platform/secrets.js';

let session: Session;
let stack: HttpStack;
let operatorToken: string;
let annaToken: string;
let vehicleId: number;

beforeAll(async () => {
  session = await startSession({ signInDemoCustomer: true });
  ({ stack, operatorToken, annaToken } = session);
  const { seed } = stack.backend;
  const vehicles = await stack.call('GET', stack.back(`/vehicles?branchId=${seed.branchId}&size=1`), {
    token: operatorToken,
  });
  vehicleId = vehicles.body[0].id;
}, 120_000);

afterAll(async () => {
  await session?.stop();
});

/**
 * A token signed with the API's key whose claims the test chooses; its lifetime is the API's (10 minutes)
 * unless `lifetime` says otherwise (`null`: no `exp`; `noIssuedAt`: no `iat`).
 */
function forgedToken(
  claims: Record<string, unknown>,
  subject: string,
  lifetime: { expiresIn?: string | null; noIssuedAt?: boolean } = {},
): Promise<string> {
  const token = new SignJWT(claims)
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setIssuer('fleetflow')
    .setAudience('fleetflow-api')
    .setSubject(subject);
  if (!lifetime.noIssuedAt) token.setIssuedAt();
  if (lifetime.expiresIn !== null) token.setExpirationTime(lifetime.expiresIn ?? '10m');
  return token.sign(new TextEncoder().encode(testJwtSecret));
}

describe('HEAD answers as GET does, without a body', () => {
  test('a list: same status and paging headers, no body', async () => {
    const path = stack.back(`/vehicles?branchId=${stack.backend.seed.branchId}&size=5`);
    const get = await stack.call('GET', path, { token: operatorToken });
    const head = await stack.call('HEAD', path, { token: operatorToken });
    expect(head.status).toBe(200);
    expect(head.body).toBeUndefined();
    expect(head.headers.get('x-total-count')).toBe(get.headers.get('x-total-count'));
    expect(head.headers.get('content-type')).toMatch(/application\/json/);
  });

  test('an error keeps its status; Allow names HEAD beside GET', async () => {
    const head = await stack.call('HEAD', stack.back('/vehicles/2147483647'), { token: operatorToken });
    expect(head.status).toBe(404);
    const refused = await stack.call('PUT', stack.back('/vehicles'), { token: operatorToken, body: {} });
    expect(refused.status).toBe(405);
    expect(refused.headers.get('allow')).toMatch(/\bGET\b/);
    expect(refused.headers.get('allow')).toMatch(/\bHEAD\b/);
  });
});

describe('numbers are plain decimals', () => {
  test('an id written any other way is a validation error', async () => {
    const plain = await stack.call('GET', stack.back(`/vehicles/${vehicleId}`), { token: operatorToken });
    expect(plain.status).toBe(200);
    const variants = [
      `0x${vehicleId.toString(16)}`,
      `+${vehicleId}`,
      `%20${vehicleId}`,
      `${vehicleId}%20`,
      `${vehicleId}e0`,
      `${vehicleId}.0`,
      `0${vehicleId}`,
    ];
    for (const variant of variants)
      expectError(
        await stack.call('GET', stack.back(`/vehicles/${variant}`), { token: operatorToken }),
        400,
        '0022',
      );
  });

  test('an integer query parameter written any other way is a validation error', async () => {
    const branchId = stack.backend.seed.branchId;
    for (const variant of [
      `0x${branchId.toString(16)}`,
      `+${branchId}`,
      `${branchId}.0`,
      `${branchId}e0`,
      `0${branchId}`,
    ])
      expectError(
        await stack.call('GET', stack.back(`/vehicles?branchId=${variant}`), { token: operatorToken }),
        400,
        '0022',
      );
    expect(
      (await stack.call('GET', stack.back(`/vehicles?branchId=${branchId}`), { token: operatorToken }))
        .status,
    ).toBe(200);
  });

  test("a paged list's page and size are plain decimals too", async () => {
    const branchId = stack.backend.seed.branchId;
    for (const paging of ['page=1e3', 'page=0x1', 'size=1e1', 'size=+5', 'page=01'])
      expectError(
        await stack.call('GET', stack.back(`/vehicles?branchId=${branchId}&${paging}`), {
          token: operatorToken,
        }),
        400,
        '0022',
      );
    expect(
      (
        await stack.call('GET', stack.back(`/vehicles?branchId=${branchId}&page=0&size=5`), {
          token: operatorToken,
        })
      ).status,
    ).toBe(200);
  });

  test('the routes outside the interfaces (sign-in, signing) read their numbers the same way', async () => {
    // The contract fuzz found `timestamp=%0B` taken as 0: JavaScript reads blank text as zero.
    const reset = (timestamp: string) =>
      stack.call(
        'POST',
        `/v1/${stack.backend.seed.tenant}/auth/customer/password-reset/nobody%40example.com?signature=x&timestamp=${timestamp}`,
      );
    for (const variant of ['%0B', '%20', '%09', '0x1', '1e3', '+1'])
      expectError(await reset(variant), 400, '0022');
  });
});

describe('the most specific path decides the route', () => {
  test('a method a static path lacks is 405, not a parameter route with a non-number id', async () => {
    const reply = await stack.call('DELETE', stack.back('/rentals/export'), { token: operatorToken });
    expect(reply.status).toBe(405);
    expect(reply.body.errorCode).toBe('0021');
  });
});

describe('a date-time is a real instant', () => {
  const categories = (start: string, end: string) =>
    stack.front(
      `/bookings/available-categories?branchId=${stack.backend.seed.bookingStationIds[0]}&startTime=${start}&endTime=${end}`,
    );

  test.each([
    ['2027-02-30T10:00:00Z', '2027-03-02T10:00:00Z'],
    ['2027-02-29T10:00:00Z', '2027-03-02T10:00:00Z'],
    ['0000-01-01T10:00:00Z', '0000-01-02T10:00:00Z'],
    ['2027-04-31T10:00:00Z', '2027-05-02T10:00:00Z'],
    ['2027-01-01T24:00:00Z', '2027-01-02T10:00:00Z'],
    ['2027-13-01T10:00:00Z', '2027-13-02T10:00:00Z'],
  ])('%s is refused', async (start, end) => {
    expectError(await stack.call('GET', categories(start, end), { token: annaToken }), 400, '0022');
  });

  test('an instant of long ago filters like any other', async () => {
    const reply = await stack.call(
      'GET',
      stack.back(
        `/rentals?branchId=${stack.backend.seed.branchId}&reservedFrom=1802-03-15T17%3A46%3A08.98%2B12%3A18`,
      ),
      { token: operatorToken },
    );
    expect(reply.status).toBe(200);
  });

  test('a leap day that exists is accepted', async () => {
    const reply = await stack.call('GET', categories('2028-02-29T10:00:00Z', '2028-02-29T12:00:00Z'), {
      token: annaToken,
    });
    expect(reply.status).toBe(200);
  });
});

describe('permissions are known or refused', () => {
  test('an unknown permission is a validation error, a known one an answer', async () => {
    expectError(
      await stack.call('GET', stack.back('/roles/assignments/exists?permission=BOGUS'), {
        token: operatorToken,
      }),
      400,
      '0022',
    );
    const known = await stack.call('GET', stack.back('/roles/assignments/exists?permission=RENTAL_READ'), {
      token: operatorToken,
    });
    expect(known).toMatchObject({ status: 200, body: { exists: true } });
  });
});

describe('token claims are checked strictly before any use', () => {
  const tenant = () => stack.backend.seed.tenant;
  const customerClaims = () => ({ tid: tenant(), scope: 'front', sty: 'CUSTOMER' });

  test.each(['abc', '1.0', '0x1', ' 1', '1 ', '+1', '01', '', '99999999999'])(
    'customer subject %j is AUTH005',
    async (subject) => {
      const token = await forgedToken(customerClaims(), subject);
      expectError(await stack.call('GET', stack.front('/account'), { token }), 401, 'AUTH005');
    },
  );

  test('a missing or unknown subject type, tenant or scope is AUTH005', async () => {
    const anna = String(stack.backend.seed.customerIds[0]);
    for (const claims of [
      { tid: tenant(), scope: 'front' },
      { tid: tenant(), scope: 'front', sty: 'ROOT' },
      { tid: 'NOT A TENANT', scope: 'front', sty: 'CUSTOMER' },
      { tid: tenant(), scope: 'everything', sty: 'CUSTOMER' },
      { tid: tenant(), scope: 'back', sty: 'CUSTOMER' },
    ])
      expectError(
        await stack.call('GET', stack.front('/account'), { token: await forgedToken(claims, anna) }),
        401,
        'AUTH005',
      );
    const valid = await forgedToken(customerClaims(), anna);
    expect((await stack.call('GET', stack.front('/account'), { token: valid })).status).toBe(200);
  });

  test('a properly signed token without an expiry, without its issue time or living longer than the API issues is AUTH005', async () => {
    const anna = String(stack.backend.seed.customerIds[0]);
    for (const lifetime of [
      { expiresIn: null },
      { noIssuedAt: true },
      { expiresIn: '1d' },
      { expiresIn: '11m' },
    ])
      expectError(
        await stack.call('GET', stack.front('/account'), {
          token: await forgedToken(customerClaims(), anna, lifetime),
        }),
        401,
        'AUTH005',
      );
  });
});

describe('validation messages', () => {
  test('a missing property is named once: where, then that it is required', async () => {
    const reply = await stack.call('PATCH', stack.back('/tasks/complete'), {
      token: operatorToken,
      body: {},
    });
    expectError(reply, 400, '0022');
    expect(reply.body.userMessage).toBe('/body/taskIds is required');
  });
});

describe('the customer timeline', () => {
  test('a customer has a timeline; an unknown one is U106', async () => {
    const anna = stack.backend.seed.customerIds[0];
    const events = await stack.call('GET', stack.back(`/CUSTOMERS/${anna}/events`), { token: operatorToken });
    expect(events.status).toBe(200);
    expect(Array.isArray(events.body)).toBe(true);
    for (const event of events.body) expect(event.guserId).toBe(anna);
    expectError(
      await stack.call('GET', stack.back('/CUSTOMERS/2147483647/events'), { token: operatorToken }),
      404,
      'U106',
    );
  });

  test('a customer token cannot read it', async () => {
    const anna = stack.backend.seed.customerIds[0];
    const reply = await stack.call('GET', stack.back(`/CUSTOMERS/${anna}/events`), { token: annaToken });
    expect(reply.status).toBe(403);
  });
});

describe('who may create a business unit may delete it', () => {
  test('create, then delete with the same grant', async () => {
    const created = await stack.call('POST', stack.back('/business-units'), {
      token: operatorToken,
      body: {
        code: 'HST',
        name: 'Hostile test unit',
        timeZoneId: 'Europe/Berlin',
        currency: 'EUR',
        taxPercentage: '19.00',
      },
    });
    expect(created.status).toBe(201);
    const deleted = await stack.call('DELETE', stack.back(`/business-units/${created.body.id}`), {
      token: operatorToken,
    });
    expect(deleted.status).toBe(204);
  });

  test('a caller without BUSINESS_UNIT_CREATE can do neither', async () => {
    const { seed, orm } = stack.backend;
    const em = tenantEm(orm, seed.tenant);
    const operations = await em.findOneOrFail(Role, { name: 'Fleet operations' });
    const client = em.create(ApiClient, {
      clientId: 'ops-only',
      name: 'Operations only',
      secretHash: await hashSecret('ops-only-secret'),
      scopes: ['back'],
    });
    em.create(RoleAssignment, {
      role: operations,
      subjectType: 'API_CLIENT',
      subjectId: client.clientId,
      branch: seed.cityBranchId,
    });
    await em.flush();
    const opsToken = await stack.token(seed.tenant, {
      clientId: 'ops-only',
      clientSecret: 'ops-only-secret',
    });
    const body = { code: 'OPS', name: 'Ops unit', timeZoneId: 'UTC', currency: 'EUR', taxPercentage: '0.00' };
    expectError(
      await stack.call('POST', stack.back('/business-units'), { token: opsToken, body }),
      403,
      'AUTH002',
    );
    const created = await stack.call('POST', stack.back('/business-units'), { token: operatorToken, body });
    expectError(
      await stack.call('DELETE', stack.back(`/business-units/${created.body.id}`), { token: opsToken }),
      403,
      'AUTH002',
    );
  });
});
