// Customers from the operator's side, end to end: identity verification (the app's attempts, the review
// queue and decisions, provider outcomes), customer search, details, export and terms versions, app
// signing keys administered by the tenant, and credit checks; branch-scope and tenant denials.
import { randomUUID as randomUUIDv4 } from 'node:crypto';
import { ApiClient } from '../db/entities/ApiClient.js';
import { AppSigningKey } from '../db/entities/AppSigningKey.js';
import { Branch } from '../db/entities/Branch.js';
import { Role } from '../db/entities/Role.js';
import { RoleAssignment } from '../db/entities/RoleAssignment.js';
import { Setting } from '../db/entities/Setting.js';
import { type SeededTenant } from '../db/seed.js';
import { demoCustomer, demoGroupCode } from '../db/seed/customers.js';
import { demoOperatorClient } from '../db/seed/access.js';
import { hashSecret } from '../platform/secrets.js';
import { CREDIT_CHECK_SETTING_KEY } from '../platform/credit-check.js';
import { expectError, type CallOptions, type HttpStack, type Reply } from './support/http.js';
import { apiReloaded } from './support/read-cache.js';
import { type CustomerSession, startCustomerSession, uniqueEmail } from './support/customers.js';

let session: CustomerSession;
let stack: HttpStack;
let operatorToken: string;
let rival: SeededTenant;

const call = (method: string, path: string, options?: CallOptions): Promise<Reply> =>
  stack.call(method, path, options);
const auth = (path: string) => session.auth(path);
const back = (path: string) => stack.back(path);
const front = (path: string) => stack.front(path);
const em = () => session.em();
const signIn = (email: string, password: string) => session.signIn(email, password);

beforeAll(async () => {
  session = await startCustomerSession();
  ({ stack, operatorToken, rival } = session);
}, 120_000);

afterAll(async () => {
  await session?.stop();
});

describe('verification', () => {
  const picture =
    'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';
  const media = [{ label: 'FRONT', contentType: 'image/png', dataBase64: picture }];

  test('manual attempt: review queue, media by file id, operator approves; RETRY resubmission; scope denials', async () => {
    const { branchId, otherBranchId } = stack.backend.seed;
    const customer = (
      await call('POST', auth('/customer/sign-up'), {
        body: {
          email: uniqueEmail('verify'),
          password: 'secret-pass-1',
          firstName: 'V',
          lastName: 'R',
          acceptTnc: true,
        },
      })
    ).body;
    const started = await call('POST', front('/verifications'), {
      token: customer.access_token,
      body: { type: 'MANUAL', media },
    });
    expect(started.status).toBe(201);
    expect(started.body).toMatchObject({
      type: 'MANUAL',
      state: 'PROCESSING',
      guserId: customer.customerId,
      media: [{ label: 'FRONT', sizeBytes: 70 }],
    });
    expectError(
      await call('POST', front('/verifications'), {
        token: customer.access_token,
        body: { type: 'MANUAL', media },
      }),
      409,
      'UV409',
    );
    const queue = await call('GET', back(`/verification-queue?branchId=${branchId}&size=200`), {
      token: operatorToken,
    });
    expect(queue.body.map((v: { id: number }) => v.id)).toContain(started.body.id);
    const file = await call(
      'GET',
      back(`/verification/media/${started.body.media[0].fileUuid}?branchId=${branchId}`),
      { token: operatorToken },
    );
    expect(file.body).toMatchObject({ contentType: 'image/png', dataBase64: picture });
    expectError(
      await call('GET', back(`/verification-queue?branchId=${otherBranchId}`), { token: operatorToken }),
      403,
      'AUTH002',
    );

    const retry = await call('POST', back(`/verification/${started.body.id}/decision?branchId=${branchId}`), {
      token: operatorToken,
      body: { decision: 'RETRY', reason: 'blurred' },
    });
    expect(retry.body).toMatchObject({ state: 'RETRY', reason: 'blurred' });
    expectError(
      await call('POST', back(`/verification/${started.body.id}/decision?branchId=${branchId}`), {
        token: operatorToken,
        body: { decision: 'VERIFIED' },
      }),
      409,
      'UV409',
    );
    const other = await signIn(demoCustomer.email, demoCustomer.password);
    expectError(
      await call('PATCH', front(`/verifications/${started.body.id}`), {
        token: other.body.access_token,
        body: { media },
      }),
      404,
      'UV404',
    );
    const resubmitted = await call('PATCH', front(`/verifications/${started.body.id}`), {
      token: customer.access_token,
      body: { media },
    });
    expect(resubmitted.body.state).toBe('PROCESSING');
    expectError(
      await call('POST', back(`/verification/${started.body.id}/decision?branchId=${branchId}`), {
        token: operatorToken,
        body: { decision: 'VERIFIED', drivingLicenseCategories: ['B'] },
      }),
      409,
      'UV409',
    );
    const approved = await call(
      'POST',
      back(`/verification/${started.body.id}/decision?branchId=${branchId}`),
      {
        token: operatorToken,
        body: { decision: 'VERIFIED' },
      },
    );
    expect(approved.body.state).toBe('VERIFIED');
    const details = await call(
      'GET',
      back(`/customers/${customer.customerId}/details?branchId=${branchId}`),
      { token: operatorToken },
    );
    expect(details.body.manualVerificationState).toBe('VERIFIED');
    // A licence in review: the operator records the categories read from it when verifying.
    const licence = await call('POST', front('/verifications'), {
      token: customer.access_token,
      body: { type: 'LICENSE', media },
    });
    expect(licence.body.state).toBe('REVIEW');
    await call('POST', back(`/verification/${licence.body.id}/decision?branchId=${branchId}`), {
      token: operatorToken,
      body: { decision: 'VERIFIED', drivingLicenseCategories: ['b', 'A1'] },
    });
    const licensed = await call(
      'GET',
      back(`/customers/${customer.customerId}/details?branchId=${branchId}`),
      { token: operatorToken },
    );
    expect(licensed.body).toMatchObject({
      licenseVerificationState: 'VERIFIED',
      drivingLicenseCategories: ['B', 'A1'],
    });
    const list = await call(
      'GET',
      back(`/verification?branchId=${branchId}&guserId=${customer.customerId}&includeDetails=false`),
      { token: operatorToken },
    );
    expect(list.body).toContainEqual(
      expect.objectContaining({ id: started.body.id, media: [], reason: null }),
    );
    expectError(
      await call(
        'GET',
        back(`/verification/${started.body.id}?branchId=${branchId}&attemptUuid=${randomUUIDv4()}`),
        { token: operatorToken },
      ),
      404,
      'UV404',
    );
    expect(
      (await call('GET', front('/verifications'), { token: other.body.access_token })).body.map(
        (v: { id: number }) => v.id,
      ),
    ).not.toContain(started.body.id);
  });

  test('licence attempts go to the provider adapter: its configured outcome, else review', async () => {
    const customer = (
      await call('POST', auth('/customer/sign-up'), {
        body: {
          email: uniqueEmail('licence'),
          password: 'secret-pass-1',
          firstName: 'L',
          lastName: 'C',
          acceptTnc: true,
        },
      })
    ).body;
    const review = await call('POST', front('/verifications'), {
      token: customer.access_token,
      body: { type: 'LICENSE', media },
    });
    expect(review.body).toMatchObject({ state: 'REVIEW', provider: 'configured' });
    const setup = em();
    setup.create(Setting, {
      key: 'customers.verification',
      name: 'Verification providers',
      area: 'CORE',
      valueType: 'JSON',
      branchIds: [0],
      value: { ID_DOCUMENT: 'REJECTED' },
    });
    await setup.flush();
    await apiReloaded(stack);
    const rejected = await call('POST', front('/verifications'), {
      token: customer.access_token,
      body: { type: 'ID_DOCUMENT', media },
    });
    expect(rejected.body.state).toBe('REJECTED');
    expect((await call('GET', front('/account'), { token: customer.access_token })).body).toMatchObject({
      licenseVerificationState: 'REVIEW',
      idVerificationState: 'REJECTED',
    });
    expectError(
      await call('POST', front('/verifications'), {
        token: customer.access_token,
        body: { type: 'MANUAL', media: [{ ...media[0], dataBase64: 'not base64!' }] },
      }),
      400,
      '0022',
    );
  });
});

describe('operator customer tools and terms', () => {
  test('search: exact e-mail, birth date range, signupSettled, search text, paging; branch scope denial', async () => {
    const { branchId, otherBranchId } = stack.backend.seed;
    const byEmail = await call(
      'GET',
      back(`/customers?branchId=${branchId}&email=ANNA.SCHMIDT@example.com`),
      { token: operatorToken },
    );
    expect(byEmail.body.map((c: { email: string }) => c.email)).toEqual([demoCustomer.email]);
    const range = await call(
      'GET',
      back(`/customers?branchId=${branchId}&birthDateFrom=1985-01-01&birthDateTo=1995-12-31`),
      { token: operatorToken },
    );
    expect(range.body.map((c: { firstName: string }) => c.firstName).sort()).toEqual(['Anna', 'Ben']);
    const unsettled = await call(
      'GET',
      back(`/customers?branchId=${branchId}&signupSettled=false&searchText=Den`),
      { token: operatorToken },
    );
    expect(unsettled.body.map((c: { firstName: string }) => c.firstName)).toEqual(['Deniz']);
    const paged = await call('GET', back(`/customers?branchId=${branchId}&size=2&page=1`), {
      token: operatorToken,
    });
    expect(paged.body).toHaveLength(2);
    expect(Number(paged.headers.get('x-total-count'))).toBeGreaterThanOrEqual(4);
    expectError(
      await call('GET', back(`/customers?branchId=${otherBranchId}`), { token: operatorToken }),
      403,
      'AUTH002',
    );
    expectError(
      await call('GET', back(`/customers?branchId=${rival.branchId}`), { token: operatorToken }),
      404,
      'B404',
    );
    expectError(
      await call('GET', back(`/customers?branchId=${branchId}&searchText=%00`), { token: operatorToken }),
      400,
      '0022',
    );
  });

  test("details with every signal and the terms state; accept-terms; another tenant's customer is U106", async () => {
    const { branchId, otherBranchId, customerIds } = stack.backend.seed;
    const details = await call('GET', back(`/customers/${customerIds[0]}/details?branchId=${branchId}`), {
      token: operatorToken,
    });
    expect(details.body).toMatchObject({
      email: demoCustomer.email,
      blockState: 'NOT_BLOCKED',
      licenseVerificationState: 'VERIFIED',
      termsAndConditionsAcceptanceState: 'ACCEPTED',
      userGroupId: expect.any(Number),
    });
    const deniz = await call('GET', back(`/customers/${customerIds[3]}/details?branchId=${branchId}`), {
      token: operatorToken,
    });
    expect(deniz.body.termsAndConditionsAcceptanceState).toBe('NOT_ACCEPTED');
    const accepted = await call(
      'POST',
      back(`/customers/${customerIds[3]}/accept-terms-and-conditions?branchId=${branchId}`),
      { token: operatorToken },
    );
    expect(accepted.body.termsAndConditionsAcceptanceState).toBe('ACCEPTED');
    expectError(
      await call('GET', back(`/customers/${rival.customerIds[0]}/details?branchId=${branchId}`), {
        token: operatorToken,
      }),
      404,
      'U106',
    );
    expectError(
      await call('GET', back(`/customers/${customerIds[0]}/details?branchId=${otherBranchId}`), {
        token: operatorToken,
      }),
      403,
      'AUTH002',
    );
    expect(details.body).toMatchObject({ paymentSourceIsAvailable: true, creditStatus: 'GOOD' });
    const sources = await call(
      'GET',
      back(`/customers/${customerIds[0]}/payment-sources?branchId=${branchId}`),
      { token: operatorToken },
    );
    expect(sources.body).toMatchObject([{ providerReference: 'tok_sandbox_visa', label: 'Visa •••• 4242' }]);
    // An operations-only client holds no finance permission: no payment sources.
    const ops = em();
    const opsRole = await ops.findOneOrFail(Role, { name: 'Fleet operations' });
    ops.create(ApiClient, {
      clientId: 'ops-only',
      name: 'Ops',
      secretHash: await hashSecret('ops-only-secret'),
      scopes: ['back'],
    });
    ops.create(RoleAssignment, {
      role: opsRole,
      subjectType: 'API_CLIENT',
      subjectId: 'ops-only',
      branch: stack.backend.seed.cityBranchId,
    });
    await ops.flush();
    const opsToken = await stack.token(stack.backend.seed.tenant, {
      clientId: 'ops-only',
      clientSecret: 'ops-only-secret',
    });
    expectError(
      await call('GET', back(`/customers/${customerIds[0]}/payment-sources?branchId=${branchId}`), {
        token: opsToken,
      }),
      403,
      'AUTH002',
    );
    const ratings = await call('GET', back(`/customers/${customerIds[0]}/ratings?branchId=${branchId}`), {
      token: opsToken,
    });
    expect(ratings.body).toMatchObject([{ status: 'GOOD', score: 712 }]);
    const part = await call('GET', back(`/customers/export?branchId=${branchId}&limit=2`), {
      token: operatorToken,
    });
    expect(part.body.map((row: { id: number }) => row.id)).toEqual(customerIds.slice(0, 2));
    const rest = await call(
      'GET',
      back(`/customers/export?branchId=${branchId}&afterId=${customerIds[1]}&limit=2`),
      { token: operatorToken },
    );
    expect(rest.body[0]).toMatchObject({ id: customerIds[2], licenseVerificationState: 'REJECTED' });
    expectError(
      await call('GET', back(`/customers/export?branchId=${otherBranchId}`), { token: operatorToken }),
      403,
      'AUTH002',
    );
    expectError(
      await call(
        'POST',
        back(`/customers/${customerIds[3]}/accept-terms-and-conditions?branchId=${otherBranchId}`),
        { token: operatorToken },
      ),
      403,
      'AUTH002',
    );
  });

  test('terms versions: branch terms override tenant-wide, new versions make acceptance OUTDATED (U602 state), accepted versions are frozen', async () => {
    const { branchId, cityBranchId, customerIds } = stack.backend.seed;
    const tenant = stack.backend.seed.tenant;
    expectError(
      await call('POST', back('/terms-and-conditions'), {
        token: operatorToken,
        body: { branchId: null, name: 'All', url: 'https://x.example/t' },
      }),
      403,
      'AUTH002',
    );
    // A URL needs a host name: an IPv6 literal cut short, credentials or spaces are refused by the contract.
    for (const url of ['http://[', 'https://user@x.example/t', 'https://x.example/a b', 'ftp://x.example/t'])
      expectError(
        await call('POST', back('/terms-and-conditions'), {
          token: operatorToken,
          body: { branchId: cityBranchId, name: 'Berlin terms', url },
        }),
        400,
        '0022',
      );
    const branchTerms = await call('POST', back('/terms-and-conditions'), {
      token: operatorToken,
      body: { branchId: cityBranchId, name: 'Berlin terms', url: 'https://x.example/berlin/v1' },
    });
    expect(branchTerms.status).toBe(201);
    expect(branchTerms.body).toMatchObject({ version: 1, branchId: cityBranchId });
    const session = (await signIn(demoCustomer.email, demoCustomer.password)).body;
    const state = await call('GET', front(`/terms-and-conditions?branchId=${branchId}`), {
      token: session.access_token,
    });
    expect(state.body).toMatchObject({
      termsAndConditions: { id: branchTerms.body.id },
      termsAndConditionsAcceptanceState: 'NOT_ACCEPTED',
    });
    await call('POST', front(`/terms-and-conditions/${branchTerms.body.id}/accept`), {
      token: session.access_token,
    });
    const v2 = await call('POST', back('/terms-and-conditions'), {
      token: operatorToken,
      body: { branchId: cityBranchId, name: 'Berlin terms', url: 'https://x.example/berlin/v2' },
    });
    expect(v2.body.version).toBe(2);
    const outdated = await call('GET', front(`/terms-and-conditions?branchId=${branchId}`), {
      token: session.access_token,
    });
    expect(outdated.body.termsAndConditionsAcceptanceState).toBe('OUTDATED');
    expectError(
      await call('PUT', back(`/terms-and-conditions/${branchTerms.body.id}`), {
        token: operatorToken,
        body: { name: 'x', url: 'https://x.example/y' },
      }),
      409,
      'U605',
    );
    const fixed = await call('PUT', back(`/terms-and-conditions/${v2.body.id}`), {
      token: operatorToken,
      body: { name: 'Berlin terms', url: 'https://x.example/berlin/v2b' },
    });
    expect(fixed.body.url).toBe('https://x.example/berlin/v2b');
    const list = await call('GET', back(`/terms-and-conditions?branchId=${branchId}`), {
      token: operatorToken,
    });
    expect(list.body.map((t: { version: number }) => t.version)).toEqual([2, 1, 1]);
    expect(
      (await call('DELETE', back(`/terms-and-conditions/${v2.body.id}`), { token: operatorToken })).status,
    ).toBe(204);
    expectError(
      await call('GET', back(`/terms-and-conditions/${v2.body.id}`), { token: operatorToken }),
      404,
      'U604',
    );

    // Tenant-wide terms need the permission over the whole tenant.
    const admin = em();
    const adminRole = await admin.findOneOrFail(Role, { name: 'Administrator' });
    admin.create(ApiClient, {
      clientId: 'terms-admin',
      name: 'Terms admin',
      secretHash: await hashSecret('terms-admin-secret'),
      scopes: ['back'],
    });
    for (const root of await admin.find(Branch, { parent: null }))
      admin.create(RoleAssignment, {
        role: adminRole,
        subjectType: 'API_CLIENT',
        subjectId: 'terms-admin',
        branch: root,
      });
    await admin.flush();
    const adminToken = await stack.token(tenant, {
      clientId: 'terms-admin',
      clientSecret: 'terms-admin-secret',
    });
    const wide = await call('POST', back('/terms-and-conditions'), {
      token: adminToken,
      body: { branchId: null, name: 'Terms of use', url: 'https://fleetflow.example/terms/v2' },
    });
    expect(wide.body).toMatchObject({ version: 2, branchId: null });
    const details = await call(
      'GET',
      back(`/customers/${customerIds[1]}/details?branchId=${stack.backend.seed.otherBranchId}`),
      { token: adminToken },
    );
    expect(details.body.termsAndConditionsAcceptanceState).toBe('OUTDATED');
    void demoGroupCode;
  });
});

describe('tenant administration of app signing keys, and credit checks', () => {
  test('signing keys: issued once per app, rotated, revoked; tenant administrators only', async () => {
    const tenant = stack.backend.seed.tenant;
    expectError(await call('GET', back('/app-signing-keys'), { token: operatorToken }), 403, 'AUTH002');
    const admin = em();
    const adminRole = await admin.findOneOrFail(Role, { name: 'Administrator' });
    admin.create(ApiClient, {
      clientId: 'keys-admin',
      name: 'Keys admin',
      secretHash: await hashSecret('keys-admin-secret'),
      scopes: ['back'],
    });
    for (const root of await admin.find(Branch, { parent: null }))
      admin.create(RoleAssignment, {
        role: adminRole,
        subjectType: 'API_CLIENT',
        subjectId: 'keys-admin',
        branch: root,
      });
    admin.create(ApiClient, {
      clientId: 'kiosk-app',
      name: 'Kiosk app',
      secretHash: await hashSecret('kiosk-app-secret'),
      scopes: ['front'],
    });
    await admin.flush();
    const token = await stack.token(tenant, { clientId: 'keys-admin', clientSecret: 'keys-admin-secret' });
    expectError(
      await call('POST', back('/app-signing-keys'), { token, body: { appId: demoOperatorClient.clientId } }),
      422,
      'SK422',
    );
    const issued = await call('POST', back('/app-signing-keys'), { token, body: { appId: 'kiosk-app' } });
    expect(issued.status).toBe(201);
    expect(Buffer.from(issued.body.secret, 'base64')).toHaveLength(32);
    expectError(
      await call('POST', back('/app-signing-keys'), { token, body: { appId: 'kiosk-app' } }),
      409,
      'SK409',
    );
    const listed = await call('GET', back('/app-signing-keys'), { token });
    const kiosk = listed.body.find((key: { appId: string }) => key.appId === 'kiosk-app');
    expect(kiosk).toEqual({
      id: issued.body.id,
      appId: 'kiosk-app',
      active: true,
      rotatedAt: expect.any(String),
    });
    expect(JSON.stringify(listed.body)).not.toContain(issued.body.secret);
    expect((await call('DELETE', back(`/app-signing-keys/${issued.body.id}`), { token })).status).toBe(204);
    const revoked = await em().findOneOrFail(AppSigningKey, issued.body.id);
    expect(revoked.active).toBe(false);
    const rotated = await call('POST', back(`/app-signing-keys/${issued.body.id}/rotate`), { token });
    expect(rotated.body).toMatchObject({ active: true, appId: 'kiosk-app' });
    expect(rotated.body.secret).not.toBe(issued.body.secret);
    expect((await em().findOneOrFail(AppSigningKey, issued.body.id)).secret).toBe(rotated.body.secret);
    expectError(await call('POST', back('/app-signing-keys/999999/rotate'), { token }), 404, 'SK404');
    expectError(
      await call('DELETE', back(`/app-signing-keys/${issued.body.id}`), { token: operatorToken }),
      403,
      'AUTH002',
    );
  });

  test('credit check: the configured agency decides, the newest rating is the creditStatus; scope denials', async () => {
    const { branchId, otherBranchId, customerIds } = stack.backend.seed;
    const deniz = customerIds[3]!;
    const unknown = await call('POST', back(`/customers/${deniz}/ratings?branchId=${branchId}`), {
      token: operatorToken,
    });
    expect(unknown.status).toBe(201);
    expect(unknown.body).toMatchObject({ provider: 'configured', status: 'UNKNOWN', score: null });
    const settings = em();
    settings.create(Setting, {
      key: CREDIT_CHECK_SETTING_KEY,
      name: 'Credit agency',
      area: 'CORE',
      valueType: 'JSON',
      branchIds: [0],
      value: { status: 'GOOD', score: 720 },
    });
    await settings.flush();
    await apiReloaded(stack);
    try {
      const good = await call('POST', back(`/customers/${deniz}/ratings?branchId=${branchId}`), {
        token: operatorToken,
      });
      expect(good.body).toMatchObject({ status: 'GOOD', score: 720 });
      const ratings = await call('GET', back(`/customers/${deniz}/ratings?branchId=${branchId}`), {
        token: operatorToken,
      });
      expect(ratings.body[0].id).toBe(good.body.id);
      const details = await call('GET', back(`/customers/${deniz}/details?branchId=${branchId}`), {
        token: operatorToken,
      });
      expect(details.body.creditStatus).toBe('GOOD');
    } finally {
      const fork = em();
      await fork.remove(await fork.find(Setting, { key: CREDIT_CHECK_SETTING_KEY })).flush();
      await apiReloaded(stack);
    }
    expectError(
      await call('POST', back(`/customers/${deniz}/ratings?branchId=${otherBranchId}`), {
        token: operatorToken,
      }),
      403,
      'AUTH002',
    );
    expectError(
      await call('POST', back(`/customers/99999999/ratings?branchId=${branchId}`), { token: operatorToken }),
      404,
      'U106',
    );
  });
});
