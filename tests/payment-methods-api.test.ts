// Payment methods in the app over HTTP, saved the way a real gateway saves them, against the real
// database, the sandbox gateway and (last) the Stripe adapter against stripe-mock: a setup started in the
// app, confirmed at the gateway (the sandbox's confirmation with a test token, a 3-D Secure challenge
// first, or a Stripe-signed setup_intent.succeeded webhook), the source stored once however often or
// concurrently the confirmation arrives; the list, the default and the removal (the operator's rule);
// the customer's and the business account's paymentState and events; refusals as PGS codes; denials
// (another customer's method, a business account's member) and hostile input as catalogue errors.
import { randomBytes } from 'node:crypto';
import Stripe from 'stripe';
import { Customer } from '../db/entities/Customer.js';
import { Event } from '../db/entities/Event.js';
import { GroupMembership } from '../db/entities/GroupMembership.js';
import { PaymentSetup } from '../db/entities/PaymentSetup.js';
import { PaymentSource } from '../db/entities/PaymentSource.js';
import { UserGroup } from '../db/entities/UserGroup.js';
import { loadConfig } from '../platform/config.js';
import { ensureStripeMock, startStripeMock, type StripeMockServer } from '../platform/stripe-mock.js';
import { expectError, type CallOptions, type Reply } from './support/http.js';
import { testCustomer } from './support/invoices.js';
import { startSession, type Session } from './support/session.js';

let session: Session;

const call = (method: string, path: string, options?: CallOptions): Promise<Reply> =>
  session.stack.call(method, path, options);
const front = (path: string) => session.stack.front(path);

/** A new customer of the seeded business unit without a payment method, signed in as the app does. */
async function newCustomer(fields: Partial<Pick<Customer, 'paymentState'>> = {}) {
  const id = await testCustomer(session);
  if (fields.paymentState) {
    const em = session.em();
    const customer = await em.findOneOrFail(Customer, id);
    customer.paymentState = fields.paymentState;
    await em.flush();
  }
  return { id, token: await session.customerToken(id) };
}

type Rider = Awaited<ReturnType<typeof newCustomer>>;

const customerRow = (id: number) => session.em().findOneOrFail(Customer, id, { refresh: true });
const sourcesOf = (where: { customer: number } | { group: number }) =>
  session.em().find(PaymentSource, where, { orderBy: { id: 'asc' } });
const eventsOf = (type: string, customerId: number) =>
  session.em().find(Event, { type, customerId }, { orderBy: { id: 'asc' } });

/** Starts a setup in the app; the started setup. */
async function started(rider: Rider, body?: Record<string, unknown>) {
  const reply = await call('POST', front('/payment-methods/setups'), { token: rider.token, body });
  expect(reply.status).toBe(201);
  return reply.body;
}

/** The client's confirmation of a sandbox setup (what the card form does). */
const confirm = (setup: { reference: string; clientSecret: string }, token: string, clientSecret?: string) =>
  call('POST', front(`/sandbox-gateway/setups/${setup.reference}/confirm`), {
    body: { clientSecret: clientSecret ?? setup.clientSecret, token },
  });

/** A payment method added through the sandbox with this token; the stored method's id. */
/** How many detaches the sandbox gateway has recorded (every suite's: compare before and after). */
async function detaches(): Promise<number> {
  const [row] = await session.backend.orm.em
    .getConnection()
    .execute<Array<{ count: string }>>(
      `select count(*)::text as count from sandbox_gateway_operation where kind = 'DETACH'`,
    );
  return Number(row!.count);
}

async function added(rider: Rider, token = 'tok_sandbox_visa', body?: Record<string, unknown>) {
  const setup = await started(rider, body);
  const confirmed = await confirm(setup, token);
  expect(confirmed.status).toBe(200);
  const read = await call('GET', front(`/payment-methods/setups/${setup.id}`), { token: rider.token });
  expect(read.body).toMatchObject({ state: 'SUCCEEDED', paymentMethodId: expect.any(Number) });
  return read.body.paymentMethodId as number;
}

describe('with the sandbox gateway', () => {
  beforeAll(async () => {
    session = await startSession();
  }, 180_000);
  afterAll(async () => {
    await session?.stop();
  });

  test('a new customer adds a card: setup, confirmation, one stored default source, SOURCE_ADDED', async () => {
    const rider = await newCustomer();
    expect((await customerRow(rider.id)).paymentState).toBe('NONE');
    const setup = await started(rider);
    expect(setup).toMatchObject({
      state: 'PENDING',
      gateway: 'sandbox',
      reference: expect.stringMatching(/^seti_sandbox_/),
      clientSecret: expect.stringMatching(/^seti_sandbox_\w+_secret_/),
      confirmUrl: expect.stringMatching(/\/front\/sandbox-gateway\/setups\/seti_sandbox_\w+\/confirm$/),
      businessUnitId: session.seed.businessUnitId,
      userGroupId: null,
      paymentMethodId: null,
    });
    const pending = await call('GET', front(`/payment-methods/setups/${setup.id}`), { token: rider.token });
    expect(pending.body).toMatchObject({ id: setup.id, state: 'PENDING' });
    expect(pending.body).not.toHaveProperty('clientSecret');

    const confirmed = await confirm(setup, 'tok_sandbox_visa');
    expect(confirmed.status).toBe(200);
    expect(confirmed.body).toEqual({
      state: 'SUCCEEDED',
      challenge: null,
      webhook: { eventId: expect.stringMatching(/^evt_sandbox_/), result: 'APPLIED' },
    });
    const done = await call('GET', front(`/payment-methods/setups/${setup.id}`), { token: rider.token });
    expect(done.body).toMatchObject({ state: 'SUCCEEDED', errorCode: null, completedAt: expect.any(String) });
    const list = await call('GET', front('/payment-methods'), { token: rider.token });
    expect(list.status).toBe(200);
    expect(list.body).toEqual([
      {
        id: done.body.paymentMethodId,
        type: 'CARD',
        label: 'Visa •••• 4242',
        expiry: expect.stringMatching(/^\d{4}-\d{2}$/),
        isDefault: true,
        provider: 'sandbox',
        businessUnitId: session.seed.businessUnitId,
        userGroupId: null,
        createdAt: expect.any(String),
      },
    ]);
    const [stored] = await sourcesOf({ customer: rider.id });
    expect(stored).toMatchObject({ providerReference: 'tok_sandbox_visa', setup: { id: setup.id } });
    expect((await customerRow(rider.id)).paymentState).toBe('SOURCE_ADDED');
    const [addedEvent] = await eventsOf('USER_PAYMENT_METHOD_ADD', rider.id);
    expect(addedEvent?.payload).toMatchObject({
      paymentSourceId: stored!.id,
      setupId: setup.id,
      isDefault: true,
      label: 'Visa •••• 4242',
    });

    // The same confirmation again (a retried request): the same webhook, received before, nothing stored.
    const again = await confirm(setup, 'tok_sandbox_visa');
    expect(again.body).toMatchObject({
      state: 'SUCCEEDED',
      webhook: { eventId: confirmed.body.webhook.eventId, result: 'DUPLICATE' },
    });
    expectError(await confirm(setup, 'tok_sandbox_mastercard'), 409, 'PGS108');
    expectError(await confirm(setup, 'tok_sandbox_visa', 'seti_sandbox_x_secret_wrong'), 404, 'PGS107');
    expect(await sourcesOf({ customer: rider.id })).toHaveLength(1);
    expect(await eventsOf('USER_PAYMENT_METHOD_ADD', rider.id)).toHaveLength(1);
  });

  test('a card asking for 3-D Secure is saved once the customer completes the challenge', async () => {
    const rider = await newCustomer();
    const setup = await started(rider);
    const confirmed = await confirm(setup, 'tok_sandbox_3ds');
    expect(confirmed.body).toEqual({
      state: 'REQUIRES_ACTION',
      challenge: {
        type: 'THREE_DS',
        url: expect.stringContaining(`/sandbox-gateway/challenges/${setup.reference}`),
      },
      webhook: null,
    });
    // Confirming again while the challenge waits answers the same challenge.
    expect((await confirm(setup, 'tok_sandbox_3ds')).body.state).toBe('REQUIRES_ACTION');
    const page = await call('GET', front(`/sandbox-gateway/challenges/${setup.reference}`));
    expect(page.body).toMatchObject({
      reference: setup.reference,
      kind: 'SETUP',
      type: 'THREE_DS',
      state: 'WAITING',
      amount: '0.00',
      currency: 'EUR',
    });
    expect(
      (await call('GET', front(`/payment-methods/setups/${setup.id}`), { token: rider.token })).body.state,
    ).toBe('PENDING');
    expect(await sourcesOf({ customer: rider.id })).toHaveLength(0);
    const answered = await call('POST', front(`/sandbox-gateway/challenges/${setup.reference}`), {
      body: { outcome: 'SUCCEEDED' },
    });
    expect(answered.status).toBe(200);
    expect(answered.body).toMatchObject({
      challenge: { state: 'SUCCEEDED' },
      webhook: { result: 'APPLIED' },
    });
    const done = await call('GET', front(`/payment-methods/setups/${setup.id}`), { token: rider.token });
    expect(done.body).toMatchObject({ state: 'SUCCEEDED', paymentMethodId: expect.any(Number) });
    const [stored] = await sourcesOf({ customer: rider.id });
    expect(stored).toMatchObject({
      providerReference: 'tok_sandbox_3ds',
      label: 'Visa •••• 3155',
      isDefault: true,
    });
    expect((await customerRow(rider.id)).paymentState).toBe('SOURCE_ADDED');
  });

  test('refusals are PGS103: a declined card, a failed 3-D Secure challenge, a token that is none', async () => {
    const rider = await newCustomer();
    const declined = await started(rider);
    expectError(await confirm(declined, 'tok_sandbox_stolen_card'), 422, 'PGS103');
    const read = await call('GET', front(`/payment-methods/setups/${declined.id}`), { token: rider.token });
    expect(read.body).toMatchObject({
      state: 'FAILED',
      errorCode: 'PGS103',
      failureCode: 'stolen_card',
      failureMessage: expect.any(String),
      paymentMethodId: null,
    });
    // Asked again, the refusal stands.
    expectError(await confirm(declined, 'tok_sandbox_stolen_card'), 422, 'PGS103');

    const challenged = await started(rider);
    expect((await confirm(challenged, 'tok_sandbox_3ds')).body.state).toBe('REQUIRES_ACTION');
    const failed = await call('POST', front(`/sandbox-gateway/challenges/${challenged.reference}`), {
      body: { outcome: 'THREE_DS_FAILED' },
    });
    expect(failed.body).toMatchObject({
      challenge: { state: 'THREE_DS_FAILED' },
      webhook: { result: 'APPLIED' },
    });
    const failedSetup = await call('GET', front(`/payment-methods/setups/${challenged.id}`), {
      token: rider.token,
    });
    expect(failedSetup.body).toMatchObject({
      state: 'FAILED',
      errorCode: 'PGS103',
      failureCode: 'three_ds_failed',
    });

    const bogus = await started(rider);
    expectError(await confirm(bogus, '4242424242424242'), 422, 'PGS103');
    expect(await sourcesOf({ customer: rider.id })).toHaveLength(0);
    expect((await customerRow(rider.id)).paymentState).toBe('NONE');
    expect(await eventsOf('USER_PAYMENT_METHOD_ADD', rider.id)).toHaveLength(0);
  });

  test('concurrent confirmations of one setup store one source', async () => {
    const rider = await newCustomer();
    const setup = await started(rider);
    const replies = await Promise.all(Array.from({ length: 6 }, () => confirm(setup, 'tok_sandbox_visa')));
    for (const reply of replies) expect(reply.status).toBe(200);
    const results = replies.map((reply) => reply.body.webhook.result).sort();
    expect(results.filter((result: string) => result === 'APPLIED')).toHaveLength(1);
    expect(await sourcesOf({ customer: rider.id })).toHaveLength(1);
    expect(await eventsOf('USER_PAYMENT_METHOD_ADD', rider.id)).toHaveLength(1);
    // Two setups of one customer confirmed at once: two sources, exactly one of them the default.
    const [first, second] = [await started(rider), await started(rider)];
    await Promise.all([confirm(first, 'tok_sandbox_mastercard'), confirm(second, 'tok_sandbox_visa')]);
    const sources = await sourcesOf({ customer: rider.id });
    expect(sources).toHaveLength(3);
    expect(sources.filter((source) => source.isDefault)).toHaveLength(1);
  });

  test('list, default and removal; paymentState back to NONE with the last; events recorded', async () => {
    const rider = await newCustomer();
    const visa = await added(rider, 'tok_sandbox_visa');
    const mastercard = await added(rider, 'tok_sandbox_mastercard');
    let list = await call('GET', front('/payment-methods'), { token: rider.token });
    expect(
      list.body.map((method: { id: number; isDefault: boolean }) => [method.id, method.isDefault]),
    ).toEqual([
      [visa, true],
      [mastercard, false],
    ]);
    const made = await call('POST', front(`/payment-methods/${mastercard}/default`), { token: rider.token });
    expect(made.status).toBe(200);
    expect(made.body).toMatchObject({ id: mastercard, isDefault: true, label: 'Mastercard •••• 5454' });
    list = await call('GET', front('/payment-methods'), { token: rider.token });
    expect(list.body.map((method: { id: number }) => method.id)).toEqual([mastercard, visa]);
    expect(list.body[1].isDefault).toBe(false);
    // Already the default: nothing changes, no second event.
    expect(
      (await call('POST', front(`/payment-methods/${mastercard}/default`), { token: rider.token })).status,
    ).toBe(200);
    const changed = await eventsOf('USER_PAYMENT_METHOD_CHANGED', rider.id);
    expect(changed).toHaveLength(1);
    expect(changed[0]!.payload).toMatchObject({ paymentSourceId: mastercard, previousDefaultId: visa });

    // Removing the default makes the other one the default.
    expect(
      (await call('DELETE', front(`/payment-methods/${mastercard}`), { token: rider.token })).status,
    ).toBe(204);
    list = await call('GET', front('/payment-methods'), { token: rider.token });
    expect(list.body).toEqual([expect.objectContaining({ id: visa, isDefault: true })]);
    expect((await customerRow(rider.id)).paymentState).toBe('SOURCE_ADDED');
    expectError(
      await call('DELETE', front(`/payment-methods/${mastercard}`), { token: rider.token }),
      404,
      'P405',
    );
    expect((await call('DELETE', front(`/payment-methods/${visa}`), { token: rider.token })).status).toBe(
      204,
    );
    expect((await call('GET', front('/payment-methods'), { token: rider.token })).body).toEqual([]);
    expect((await customerRow(rider.id)).paymentState).toBe('NONE');
    const removed = await eventsOf('USER_PAYMENT_METHOD_REMOVED', rider.id);
    expect(removed.map((event) => event.payload?.paymentSourceId)).toEqual([mastercard, visa]);
    expect(removed.every((event) => event.adminSubject === null)).toBe(true);
  });

  test("the operator's DELETE /payments and the app's removal are one rule", async () => {
    const rider = await newCustomer();
    const method = await added(rider);
    const before = await detaches();
    const reply = await call(
      'DELETE',
      session.stack.back(`/payments?sourceId=${method}&userId=${rider.id}`),
      {
        token: session.operatorToken,
      },
    );
    expect(reply.status).toBe(204);
    expect((await customerRow(rider.id)).paymentState).toBe('NONE');
    // The removal reached the gateway: the sandbox keeps the detach of the saved token.
    expect(await detaches()).toBeGreaterThan(before);
    const [removed] = await eventsOf('USER_PAYMENT_METHOD_REMOVED', rider.id);
    expect(removed).toMatchObject({ adminSubject: expect.any(String), payload: { paymentSourceId: method } });
  });

  test("an invoicing customer's paymentState stays INVOICING", async () => {
    const rider = await newCustomer({ paymentState: 'INVOICING' });
    const method = await added(rider);
    expect((await customerRow(rider.id)).paymentState).toBe('INVOICING');
    expect((await call('DELETE', front(`/payment-methods/${method}`), { token: rider.token })).status).toBe(
      204,
    );
    expect((await customerRow(rider.id)).paymentState).toBe('INVOICING');
  });

  test("another customer's methods and setups are not found; without a customer, 0001", async () => {
    const owner = await newCustomer();
    const other = await newCustomer();
    const method = await added(owner);
    const setup = await started(owner);
    expectError(
      await call('DELETE', front(`/payment-methods/${method}`), { token: other.token }),
      404,
      'P405',
    );
    expectError(
      await call('POST', front(`/payment-methods/${method}/default`), { token: other.token }),
      404,
      'P405',
    );
    expectError(
      await call('GET', front(`/payment-methods/setups/${setup.id}`), { token: other.token }),
      404,
      'PGS107',
    );
    expect((await call('GET', front('/payment-methods'), { token: other.token })).body).toEqual([]);
    expect(await sourcesOf({ customer: owner.id })).toHaveLength(1);
    expect((await call('GET', front('/payment-methods'))).status).toBe(401);
    expectError(await call('GET', front('/payment-methods'), { token: session.appClientToken }), 401, '0001');
  });

  test('hostile input answers catalogue errors, never 5xx', async () => {
    const rider = await newCustomer();
    const token = rider.token;
    const cases: Array<[string, string, unknown, number, string]> = [
      ['POST', '/payment-methods/setups', { branchId: 999_999 }, 404, 'B404'],
      ['POST', '/payment-methods/setups', { userGroupId: 999_999 }, 404, 'UG404'],
      ['GET', '/payment-methods/setups/999999', undefined, 404, 'PGS107'],
      ['DELETE', '/payment-methods/999999', undefined, 404, 'P405'],
      ['POST', '/payment-methods/999999/default', undefined, 404, 'P405'],
      ['GET', '/payment-methods?userGroupId=999999', undefined, 404, 'UG404'],
    ];
    for (const [method, path, body, status, code] of cases)
      expectError(await call(method, front(path), { token, body }), status, code);
    for (const [method, path, body] of [
      ['POST', '/payment-methods/setups', { branchId: 'x' }],
      ['POST', '/payment-methods/setups', { extra: true }],
      ['GET', '/payment-methods/setups/abc', undefined],
      ['DELETE', '/payment-methods/-1', undefined],
      ['GET', '/payment-methods?userGroupId=1.5', undefined],
    ] as const) {
      const reply = await call(method, front(path), { token, body });
      expect(reply.status).toBe(400);
      expect(reply.body).toMatchObject({ errorCode: expect.any(String), httpStatus: 400 });
    }
    const setup = await started(rider);
    expectError(
      await confirm({ ...setup, reference: 'seti_sandbox_unknown' }, 'tok_sandbox_visa'),
      404,
      'PGS107',
    );
    expectError(await confirm({ ...setup, reference: 'ch_sandbox_x' }, 'tok_sandbox_visa'), 404, 'PGS107');
    const longToken = await confirm(setup, 'tok_sandbox_' + 'a'.repeat(88));
    expectError(longToken, 422, 'PGS103');
    const missing = await call('POST', front(`/sandbox-gateway/setups/${setup.reference}/confirm`), {
      body: { token: 'tok_sandbox_visa' },
    });
    expect(missing.status).toBe(400);
  });

  describe("a business account's methods", () => {
    let owner: Rider;
    let member: Rider;
    let outsider: Rider;
    let groupId: number;

    beforeAll(async () => {
      [owner, member, outsider] = [await newCustomer(), await newCustomer(), await newCustomer()];
      const em = session.em();
      const group = em.create(UserGroup, {
        code: `pm-${randomBytes(4).toString('hex')}`,
        name: 'Payment Methods GmbH',
        branch: session.seed.branchId,
        billingCycle: 'PAY_AS_YOU_GO',
        maxMembers: 10,
        owner: owner.id,
      });
      for (const customer of [owner.id, member.id])
        em.create(GroupMembership, { group, customer, state: 'ACTIVE' });
      await em.flush();
      groupId = group.id;
    });

    test('the owner adds, lists and removes them; the account paymentState follows', async () => {
      const method = await added(owner, 'tok_sandbox_visa', { userGroupId: groupId });
      const list = await call('GET', front(`/payment-methods?userGroupId=${groupId}`), {
        token: owner.token,
      });
      expect(list.body).toEqual([
        expect.objectContaining({ id: method, userGroupId: groupId, isDefault: true }),
      ]);
      // The owner's own list stays the owner's own.
      expect((await call('GET', front('/payment-methods'), { token: owner.token })).body).toEqual([]);
      expect(await sourcesOf({ group: groupId })).toHaveLength(1);
      const group = () => session.em().findOneOrFail(UserGroup, groupId, { refresh: true });
      expect((await group()).paymentState).toBe('SOURCE_ADDED');
      expect((await customerRow(owner.id)).paymentState).toBe('NONE');
      const [event] = await eventsOf('USER_PAYMENT_METHOD_ADD', owner.id);
      expect(event?.payload).toMatchObject({ userGroupId: groupId, paymentSourceId: method });

      // A member may not manage them; an outsider learns nothing.
      expectError(
        await call('GET', front(`/payment-methods?userGroupId=${groupId}`), { token: member.token }),
        403,
        'A100',
      );
      expectError(
        await call('POST', front('/payment-methods/setups'), {
          token: member.token,
          body: { userGroupId: groupId },
        }),
        403,
        'A100',
      );
      expectError(
        await call('DELETE', front(`/payment-methods/${method}`), { token: member.token }),
        403,
        'A100',
      );
      expectError(
        await call('GET', front(`/payment-methods?userGroupId=${groupId}`), { token: outsider.token }),
        404,
        'UG404',
      );
      expectError(
        await call('DELETE', front(`/payment-methods/${method}`), { token: outsider.token }),
        404,
        'P405',
      );
      expect(await sourcesOf({ group: groupId })).toHaveLength(1);

      expect((await call('DELETE', front(`/payment-methods/${method}`), { token: owner.token })).status).toBe(
        204,
      );
      expect((await group()).paymentState).toBe('NONE');
    });
  });
});

describe('with Stripe (stripe-mock)', () => {
  const secretKey = 'sk_test_fleetflow';
  const webhookSecret = 'whsec_fleetflow_payment_methods';
  const stripe = new Stripe(secretKey);
  const saved = { ...process.env };
  let mock: StripeMockServer;

  beforeAll(async () => {
    mock = await startStripeMock(await ensureStripeMock(loadConfig()));
    Object.assign(process.env, {
      STRIPE_SECRET_KEY: secretKey,
      STRIPE_API_BASE: mock.url,
      STRIPE_WEBHOOK_SECRET: webhookSecret,
    });
    session = await startSession();
  }, 600_000);
  afterAll(async () => {
    for (const name of ['STRIPE_SECRET_KEY', 'STRIPE_API_BASE', 'STRIPE_WEBHOOK_SECRET'])
      if (saved[name] === undefined) delete process.env[name];
      else process.env[name] = saved[name];
    await session?.stop();
    await mock?.stop();
  });

  /** A Stripe event about a SetupIntent, signed with the endpoint's secret. */
  function signedSetupEvent(type: string, intent: Record<string, unknown>) {
    const event = {
      id: `evt_${randomBytes(8).toString('hex')}`,
      object: 'event',
      api_version: '2025-01-27.acacia',
      created: Math.floor(Date.now() / 1000),
      livemode: false,
      pending_webhooks: 1,
      request: { id: null, idempotency_key: null },
      type,
      data: { object: { object: 'setup_intent', ...intent } },
    };
    const payload = JSON.stringify(event);
    return {
      event,
      payload,
      header: stripe.webhooks.generateTestHeaderString({ payload, secret: webhookSecret }),
    };
  }

  const post = (payload: string, header: string) =>
    call('POST', session.stack.back('/payment-gateways/stripe/webhooks'), {
      rawBody: payload,
      headers: { 'stripe-signature': header },
    });

  test('a SetupIntent for the client, setup_intent.succeeded stores the card once; setup_failed is PGS103', async () => {
    const rider = await newCustomer();
    const setup = await started(rider);
    expect(setup).toMatchObject({
      gateway: 'stripe',
      state: 'PENDING',
      reference: expect.stringMatching(/^seti_/),
      clientSecret: expect.stringMatching(/^seti_\w+_secret_/),
      confirmUrl: null,
    });
    const row = await session.em().findOneOrFail(PaymentSetup, setup.id);
    expect(row.gatewayCustomer).toMatch(/^cus_/);
    const intent = {
      id: setup.reference,
      status: 'succeeded',
      customer: row.gatewayCustomer,
      payment_method: 'pm_card_visa',
      usage: 'off_session',
      last_setup_error: null,
      metadata: { tenant: session.seed.tenant, setupId: String(setup.id) },
    };
    const { event, payload, header } = signedSetupEvent('setup_intent.succeeded', intent);
    expectError(
      await post(
        payload,
        signedSetupEvent('setup_intent.succeeded', intent).header.replace(/v1=\w+/, 'v1=00'),
      ),
      400,
      'PGS101',
    );
    // The same event delivered several times at once: applied once.
    const replies = await Promise.all(Array.from({ length: 4 }, () => post(payload, header)));
    expect(replies.map((reply) => reply.status)).toEqual([200, 200, 200, 200]);
    expect(replies.map((reply) => reply.body.result).sort()).toEqual([
      'APPLIED',
      'DUPLICATE',
      'DUPLICATE',
      'DUPLICATE',
    ]);
    expect(replies[0]!.body).toMatchObject({ eventId: event.id, type: 'SETUP_SUCCEEDED' });
    // Another event confirming the same setup (Stripe may send one twice): nothing more is stored.
    const second = signedSetupEvent('setup_intent.succeeded', intent);
    expect((await post(second.payload, second.header)).body.result).toBe('IGNORED');

    const read = await call('GET', front(`/payment-methods/setups/${setup.id}`), { token: rider.token });
    expect(read.body).toMatchObject({ state: 'SUCCEEDED', paymentMethodId: expect.any(Number) });
    const sources = await sourcesOf({ customer: rider.id });
    expect(sources).toHaveLength(1);
    expect(sources[0]).toMatchObject({
      provider: 'stripe',
      providerReference: `${row.gatewayCustomer}/pm_card_visa`,
      type: 'CARD',
      label: 'Visa •••• 4242',
      expiry: expect.stringMatching(/^\d{4}-\d{2}$/),
      isDefault: true,
    });
    expect((await customerRow(rider.id)).paymentState).toBe('SOURCE_ADDED');
    expect(await eventsOf('USER_PAYMENT_METHOD_ADD', rider.id)).toHaveLength(1);

    // A second setup of the customer is for the same Stripe customer; Stripe refuses the card.
    const next = await started(rider);
    const nextRow = await session.em().findOneOrFail(PaymentSetup, next.id);
    expect(nextRow.gatewayCustomer).toBe(row.gatewayCustomer);
    const failed = signedSetupEvent('setup_intent.setup_failed', {
      id: next.reference,
      status: 'requires_payment_method',
      customer: row.gatewayCustomer,
      payment_method: null,
      last_setup_error: {
        type: 'card_error',
        code: 'card_declined',
        decline_code: 'do_not_honor',
        message: 'Your card was declined.',
      },
      metadata: { tenant: session.seed.tenant, setupId: String(next.id) },
    });
    expect((await post(failed.payload, failed.header)).body).toMatchObject({
      type: 'SETUP_FAILED',
      result: 'APPLIED',
    });
    const refused = await call('GET', front(`/payment-methods/setups/${next.id}`), { token: rider.token });
    expect(refused.body).toMatchObject({
      state: 'FAILED',
      errorCode: 'PGS103',
      failureCode: 'do_not_honor',
      failureMessage: 'Your card was declined.',
    });
    expect(await sourcesOf({ customer: rider.id })).toHaveLength(1);

    // Another tenant's setup event reaching this endpoint changes nothing here.
    const foreign = signedSetupEvent('setup_intent.succeeded', {
      ...intent,
      id: 'seti_foreign',
      metadata: { tenant: 'another-tenant', setupId: '1' },
    });
    expect((await post(foreign.payload, foreign.header)).body.result).toBe('IGNORED');
  });
});
