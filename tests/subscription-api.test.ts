// Subscriptions over HTTP (time-skipping server, real database and sandbox gateway): the app's catalogue,
// buy, own list and detail, cancel/reactivate/renew by code, switch and DELETE; the operator's list,
// detail, cancel with cancelBenefits, buy on a customer's behalf and the deprecated /subscriptions;
// customers' isolation, another tenant, missing permissions and hostile input, each a catalogue error.
import { Invoice } from '../db/entities/Invoice.js';
import { Voucher } from '../db/entities/Voucher.js';
import { periodVoucherReference } from '../domain/subscription.js';
import { expectError, type CallOptions, type Reply } from './support/http.js';
import { payingCustomer, type FinanceBackend, financeOf } from './support/payments.js';
import { startSession, type Session } from './support/session.js';
import { createPlan, type SubscriptionBackend } from './support/subscriptions.js';

let session: Session;
let finance: FinanceBackend & SubscriptionBackend;

beforeAll(async () => {
  session = await startSession({ timeSkipping: true, rival: true });
  const { backend } = session;
  finance = financeOf(backend);
}, 120_000);

afterAll(async () => {
  await session?.stop();
});

const call = (method: string, path: string, options?: CallOptions): Promise<Reply> =>
  session.stack.call(method, path, options);
const back = (path: string) => session.stack.back(path);
const front = (path: string) => session.stack.front(path);
const seed = () => session.seed;

/** A fresh customer paying with `token`, and their app token. */
async function appCustomer(token = 'tok_sandbox_visa') {
  const customer = await payingCustomer(finance, seed().customerIds[0]!, token);
  return { id: customer.id, token: await session.customerToken(customer.id) };
}

test('the app: catalogue, buy, own list and detail, auto-renewal off and on, renew, switch, DELETE', async () => {
  const plan = await createPlan(finance, seed().businessUnitId, seed().branchId, { price: '7.50' });
  const premium = await createPlan(finance, seed().businessUnitId, seed().branchId, { price: '12.00' });
  const hidden = await createPlan(finance, seed().businessUnitId, seed().branchId, { showInUserApp: false });
  const anna = await appCustomer();
  const catalogue = await call('GET', front(`/subscriptions?branchId=${seed().branchId}`), {
    token: anna.token,
  });
  expect(catalogue.status).toBe(200);
  const codes = catalogue.body.map((item: { code: string }) => item.code);
  expect(codes).toEqual(expect.arrayContaining([plan.code, premium.code]));
  expect(codes).not.toContain(hidden.code);
  expect((await call('GET', front(`/subscriptions/${plan.code}`), { token: anna.token })).body).toMatchObject(
    {
      id: plan.id,
      price: '7.50',
      interval: 'MONTHLY',
    },
  );

  const bought = await call('POST', front(`/subscriptions/buy/${plan.code}`), {
    token: anna.token,
    body: { branchId: seed().branchId },
  });
  expect(bought.status).toBe(201);
  expect(bought.body).toMatchObject({
    userId: anna.id,
    state: 'RENEWING',
    autoRenewal: 'ACTIVE',
    currentPeriod: 1,
    subscription: { id: plan.id },
    remainingNumberOfRentals: 3,
    switchingTarget: null,
  });
  expect(bought.body.latestInvoiceId).toEqual(expect.any(Number));
  const id = bought.body.id as number;
  const vouchers = await session
    .em()
    .find(Voucher, { sourceKind: 'SUBSCRIPTION', sourceReference: periodVoucherReference(id, 1) });
  expect(vouchers).toHaveLength(2);
  expectError(
    await call('POST', front(`/subscriptions/buy/${plan.code}`), {
      token: anna.token,
      body: { branchId: seed().branchId },
    }),
    409,
    'SU103',
  );
  const mine = await call('GET', front('/user-subscriptions'), { token: anna.token });
  expect(mine.status).toBe(200);
  expect(mine.headers.get('X-Total-Count')).toBe('1');
  expect(
    (await call('GET', front('/subscriptions'), { token: anna.token })).body.map((p: { id: number }) => p.id),
  ).toEqual([plan.id]);

  const action = (name: string) =>
    call('POST', front(`/subscriptions/${name}/${plan.code}`), { token: anna.token });
  expect((await action('cancel')).body).toMatchObject({ autoRenewal: 'INACTIVE', state: 'RENEWING' });
  expectError(await action('cancel'), 409, 'SU108');
  expect((await action('reactivate')).body).toMatchObject({ autoRenewal: 'ACTIVE' });
  expectError(await action('reactivate'), 409, 'SU103');
  expectError(await action('renew'), 409, 'SU103');

  const switched = await call('POST', front(`/user-subscriptions/${id}/switch`), {
    token: anna.token,
    body: { subscriptionCode: premium.code },
  });
  expect(switched.body).toMatchObject({
    state: 'SWITCHING',
    switchingTarget: { subscription: { id: premium.id }, mode: 'DELAYED' },
  });
  expectError(
    await call('POST', front(`/user-subscriptions/${id}/switch`), {
      token: anna.token,
      body: { subscriptionCode: plan.code },
    }),
    409,
    'SU103',
  );
  expect(
    (await call('DELETE', front(`/user-subscriptions/${id}`), { token: anna.token })).body,
  ).toMatchObject({
    state: 'RENEWING',
    switchingTarget: null,
  });
  const cancelled = await call('DELETE', front(`/user-subscriptions/${id}`), { token: anna.token });
  expect(cancelled.body).toMatchObject({ state: 'CANCELLED', autoRenewal: 'INACTIVE' });
  expectError(await call('DELETE', front(`/user-subscriptions/${id}`), { token: anna.token }), 409, 'SU107');
  expectError(await action('cancel'), 409, 'SU104');
  // Bought again after the cancel: a new subscription.
  const again = await call('POST', front(`/subscriptions/buy/${plan.code}`), {
    token: anna.token,
    body: { branchId: seed().branchId },
  });
  expect(again.status).toBe(201);
  expect(again.body.id).not.toBe(id);
});

test('twenty purchases of one plan at once: one subscription, one invoice, nineteen SU103', async () => {
  const plan = await createPlan(finance, seed().businessUnitId, seed().branchId, { price: '4.00' });
  const cleo = await appCustomer();
  const answers = await Promise.all(
    Array.from({ length: 20 }, () =>
      call('POST', front(`/subscriptions/buy/${plan.code}`), {
        token: cleo.token,
        body: { branchId: seed().branchId },
      }),
    ),
  );
  expect(answers.filter((answer) => answer.status === 201)).toHaveLength(1);
  for (const refused of answers.filter((answer) => answer.status !== 201)) expectError(refused, 409, 'SU103');
  const mine = await call('GET', front('/user-subscriptions'), { token: cleo.token });
  expect(mine.headers.get('X-Total-Count')).toBe('1');
  const invoices = await session.em().find(Invoice, { customer: cleo.id });
  expect(invoices).toHaveLength(1);
});

test('a purchase the gateway refuses is SU119 and leaves an EXPIRED subscription with autoRenewal FAILED', async () => {
  const plan = await createPlan(finance, seed().businessUnitId, seed().branchId);
  const bob = await appCustomer('tok_sandbox_stolen_card');
  expectError(
    await call('POST', front(`/subscriptions/buy/${plan.code}`), {
      token: bob.token,
      body: { branchId: seed().branchId },
    }),
    402,
    'SU119',
  );
  const [row] = (await call('GET', front('/user-subscriptions'), { token: bob.token })).body;
  expect(row).toMatchObject({ state: 'EXPIRED', autoRenewal: 'FAILED', currentPeriod: 0 });
});

test('the operator: buy on behalf, list with filters, detail, cancel with cancelBenefits; the deprecated /subscriptions', async () => {
  const plan = await createPlan(finance, seed().businessUnitId, seed().branchId);
  const carla = await appCustomer();
  const token = session.operatorToken;
  const bought = await call('POST', back('/user-subscriptions'), {
    token,
    body: { userId: carla.id, branchId: seed().branchId, voucherableId: plan.id },
  });
  expect(bought.status).toBe(201);
  expect(bought.body).toMatchObject({
    userId: carla.id,
    currentPeriod: 1,
  });
  const id = bought.body.id as number;
  const list = await call(
    'GET',
    back(`/user-subscriptions?branchId=${seed().branchId}&userId=${carla.id}&state=RENEWING`),
    {
      token,
    },
  );
  expect(list.status).toBe(200);
  expect(list.body.map((row: { id: number }) => row.id)).toEqual([id]);
  expect(list.headers.get('X-Total-Count')).toBe('1');
  expect((await call('GET', back(`/user-subscriptions/${id}`), { token })).body.id).toBe(id);
  const cancelled = await call('POST', back(`/user-subscriptions/${id}/cancel?cancelBenefits=true`), {
    token,
  });
  expect(cancelled.body).toMatchObject({ state: 'CANCELLED', remainingNumberOfRentals: null });
  const vouchers = await session
    .em()
    .find(Voucher, { sourceKind: 'SUBSCRIPTION', sourceReference: periodVoucherReference(id, 1) });
  expect(vouchers.map((v) => v.status)).toEqual(['CANCELED', 'CANCELED']);
  expectError(await call('POST', back(`/user-subscriptions/${id}/cancel`), { token }), 409, 'SU107');
  const legacy = await call('GET', back(`/subscriptions?branchId=${seed().branchId}`), { token });
  expect(legacy.status).toBe(200);
  const document = (await call('GET', '/openapi/back.json')).body;
  expect(document.paths['/v1/{tenant}/back/subscriptions'].get.deprecated).toBe(true);
  expect(legacy.body.every((item: { type: string }) => item.type === 'Subscription')).toBe(true);
  expect(legacy.body.map((item: { id: number }) => item.id)).toContain(plan.id);
});

test('isolation, denials and hostile input: every answer a catalogue error', async () => {
  const plan = await createPlan(finance, seed().businessUnitId, seed().branchId);
  const owner = await appCustomer();
  const other = await appCustomer();
  const bought = await call('POST', front(`/subscriptions/buy/${plan.code}`), {
    token: owner.token,
    body: { branchId: seed().branchId },
  });
  const id = bought.body.id as number;
  // Another customer never sees or touches it.
  expectError(await call('GET', front(`/user-subscriptions/${id}`), { token: other.token }), 404, 'USU100');
  expectError(
    await call('DELETE', front(`/user-subscriptions/${id}`), { token: other.token }),
    404,
    'USU100',
  );
  expectError(
    await call('POST', front(`/user-subscriptions/${id}/switch`), {
      token: other.token,
      body: { subscriptionCode: plan.code },
    }),
    404,
    'USU100',
  );
  expectError(
    await call('POST', front(`/subscriptions/cancel/${plan.code}`), { token: other.token }),
    409,
    'SU104',
  );
  expect((await call('GET', front('/user-subscriptions'), { token: other.token })).body).toEqual([]);
  // Another tenant's operator: not found in theirs; a customer token on the operator interface: scope.
  const rivalBack = `/v1/${session.rival.tenant}/back`;
  expectError(
    await call('GET', `${rivalBack}/user-subscriptions/${id}`, { token: session.rivalOperatorToken }),
    404,
    'USU100',
  );
  expectError(
    await call('GET', `${rivalBack}/user-subscriptions?branchId=${seed().branchId}`, {
      token: session.rivalOperatorToken,
    }),
    404,
    'B404',
  );
  expectError(await call('GET', back(`/user-subscriptions/${id}`), { token: owner.token }), 403, '0005');
  expectError(
    await call('GET', front('/user-subscriptions'), { token: session.appClientToken }),
    401,
    '0001',
  );
  // Hostile input.
  const cases: [string, string, unknown, number, string][] = [
    ['GET', front('/user-subscriptions/0x1'), undefined, 400, '0022'],
    ['GET', front('/user-subscriptions/1e3'), undefined, 400, '0022'],
    ['GET', front('/user-subscriptions/-1'), undefined, 400, '0022'],
    ['GET', front('/user-subscriptions/99999999999'), undefined, 400, '0022'],
    ['GET', front('/user-subscriptions?state=NOPE'), undefined, 400, '0022'],
    ['GET', front('/subscriptions/%00bad'), undefined, 400, '0022'],
    ['GET', front('/subscriptions/NO-SUCH-PLAN'), undefined, 404, 'SU101'],
    ['POST', front(`/subscriptions/buy/${plan.code}`), { branchId: '1' }, 400, '0022'],
    ['POST', front(`/subscriptions/buy/${plan.code}`), { branchId: 1.5 }, 400, '0022'],
    [
      'POST',
      front(`/subscriptions/buy/${plan.code}`),
      { branchId: seed().branchId, extra: true },
      400,
      '0022',
    ],
    ['POST', front(`/subscriptions/buy/${plan.code}`), { branchId: 2147483000 }, 404, 'B404'],
    ['POST', front(`/subscriptions/buy/${plan.code}`), { branchId: session.rival.branchId }, 404, 'B404'],
    ['POST', front(`/user-subscriptions/${id}/switch`), { subscriptionCode: 'x\u0000y' }, 400, '0022'],
    [
      'POST',
      front(`/user-subscriptions/${id}/switch`),
      { subscriptionCode: plan.code, immediate: 'yes' },
      400,
      '0022',
    ],
    ['POST', front(`/user-subscriptions/${id}/switch`), { subscriptionCode: 'NO-SUCH' }, 404, 'SU101'],
  ];
  for (const [method, path, body, status, code] of cases) {
    const reply = await call(method, path, { token: owner.token, body });
    try {
      expectError(reply, status, code);
    } catch (error) {
      throw new Error(
        `${method} ${path} ${JSON.stringify(body)}: ${JSON.stringify(reply.body)} (${String(error)})`,
      );
    }
  }
  const operator = session.operatorToken;
  const operatorCases: [string, string, unknown, number, string][] = [
    [
      'GET',
      back(`/user-subscriptions?branchId=${seed().branchId}&validUntilFrom=2027-02-30T00:00:00Z`),
      undefined,
      400,
      '0022',
    ],
    ['GET', back('/user-subscriptions'), undefined, 400, '0022'],
    ['POST', back(`/user-subscriptions/${id}/cancel?cancelBenefits=maybe`), undefined, 400, '0022'],
    ['POST', back('/user-subscriptions'), { userId: owner.id, branchId: seed().branchId }, 400, '0022'],
    [
      'POST',
      back('/user-subscriptions'),
      { userId: 2147483000, branchId: seed().branchId, voucherableId: plan.id },
      404,
      'U106',
    ],
    [
      'POST',
      back('/user-subscriptions'),
      { userId: owner.id, branchId: seed().branchId, voucherableId: 2147483000 },
      404,
      'SU101',
    ],
    [
      'POST',
      back('/user-subscriptions'),
      { userId: owner.id, branchId: seed().branchId, voucherableId: plan.id },
      409,
      'SU103',
    ],
    ['GET', back('/user-subscriptions/2147483000'), undefined, 404, 'USU100'],
  ];
  for (const [method, path, body, status, code] of operatorCases) {
    const reply = await call(method, path, { token: operator, body });
    try {
      expectError(reply, status, code);
    } catch (error) {
      throw new Error(
        `${method} ${path} ${JSON.stringify(body)}: ${JSON.stringify(reply.body)} (${String(error)})`,
      );
    }
  }
});
