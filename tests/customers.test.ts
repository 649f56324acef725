// Customers end to end: sign-up and every sign-in path with their codes, blocking, refresh and
// sign-out, request signing, the current-user routes, and the operator's customer and terms tools.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { randomBytes, randomUUID as randomUUIDv4 } from 'node:crypto';
import { ApiClient } from '../db/entities/ApiClient.js';
import { AppSigningKey } from '../db/entities/AppSigningKey.js';
import { Branch } from '../db/entities/Branch.js';
import { Customer } from '../db/entities/Customer.js';
import { OneTimeCode } from '../db/entities/OneTimeCode.js';
import { RefreshToken } from '../db/entities/RefreshToken.js';
import { Role } from '../db/entities/Role.js';
import { RoleAssignment } from '../db/entities/RoleAssignment.js';
import { Setting } from '../db/entities/Setting.js';
import { SignInThrottle } from '../db/entities/SignInThrottle.js';
import { tenantEm } from '../db/orm.js';
import { demoAppClient, demoOperatorClient, type SeededTenant } from '../db/seed.js';
import { demoCustomer, demoGroupCode } from '../db/seed/customers.js';
import { startMailCatcher, type CaughtMail } from '../platform/mail.js';
import { readSmsOutbox } from '../platform/sms.js';
import { hashSecret } from '../platform/secrets.js';
import { requestSignature, REQUEST_SIGNING_SETTING_KEY } from '../api/routes/auth/signing.js';
import { CREDIT_CHECK_SETTING_KEY } from '../platform/credit-check.js';
import { uniqueTenant } from './support/stack.js';
import { TokenService } from '../api/auth.js';
import {
  expectError,
  startHttpStack,
  testJwtSecret,
  type CallOptions,
  type HttpStack,
  type Reply,
} from './support/http.js';
import { seedTenant } from '../composition/seed.js';

let stack: HttpStack;
let mail: { url: string; messages: CaughtMail[]; stop(): Promise<void> };
let smsDir: string;
let operatorToken: string;
let appToken: string;
let rival: SeededTenant;

const call = (method: string, path: string, options?: CallOptions): Promise<Reply> =>
  stack.call(method, path, options);
const auth = (path: string) => `/v1/${stack.backend.seed.tenant}/auth${path}`;
const back = (path: string) => stack.back(path);
const front = (path: string) => stack.front(path);
const em = () => tenantEm(stack.backend.orm, stack.backend.seed.tenant);
const uniqueEmail = (name: string) => `${name}.${randomBytes(3).toString('hex')}@example.org`;
const uniquePhone = () => `+4917${String(Math.floor(Math.random() * 1e9)).padStart(9, '0')}`;

/** The code in the newest message to an address (waits briefly for delivery). */
async function mailedCode(to: string): Promise<string> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const message = mail.messages.filter((item) => item.to.includes(to)).at(-1);
    const code = message?.raw.match(/^ {4}(\d{6})\s*$/m)?.[1];
    if (code) return code;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`no code mailed to ${to}`);
}

async function smsCode(to: string): Promise<string> {
  const message = (await readSmsOutbox(smsDir, to)).at(-1);
  const code = message?.text.match(/(\d{6})/)?.[1];
  if (!code) throw new Error(`no SMS to ${to}`);
  return code;
}

/** Lets every block and cooldown of this tenant end, as if their time had passed. */
async function letTimePass(): Promise<void> {
  const past = new Date(Date.now() - 1000);
  await em().nativeUpdate(SignInThrottle, {}, { blockedUntil: past });
  await em().nativeUpdate(OneTimeCode, {}, { createdAt: new Date(Date.now() - 3_600_000) });
}

async function signIn(email: string, password: string): Promise<Reply> {
  return call('POST', auth('/customer/sign-in'), { body: { email, password } });
}

beforeAll(async () => {
  mail = await startMailCatcher({ port: 0 });
  smsDir = await fs.mkdtemp(path.join(os.tmpdir(), 'fleetflow-sms-'));
  process.env.SMTP_URL = mail.url;
  process.env.SMS_OUTBOX_DIR = smsDir;
  stack = await startHttpStack();
  rival = await seedTenant(stack.backend.orm.em, uniqueTenant('rival'), 'Rival Mobility');
  operatorToken = await stack.token(stack.backend.seed.tenant, demoOperatorClient);
  appToken = await stack.token(stack.backend.seed.tenant, demoAppClient);
}, 120_000);

afterAll(async () => {
  await stack?.stop();
  await mail?.stop();
  await fs.rm(smsDir, { recursive: true, force: true });
  delete process.env.SMTP_URL;
  delete process.env.SMS_OUTBOX_DIR;
});

describe('sign-up and e-mail verification', () => {
  test('sign-up needs acceptTnc when terms exist, answers tokens and mails a verification code', async () => {
    const email = uniqueEmail('new');
    const body = { email, password: 'secret-pass-1', firstName: 'Nora', lastName: 'Neu' };
    expectError(await call('POST', auth('/customer/sign-up'), { body }), 422, 'U601');
    expectError(
      await call('POST', auth('/customer/sign-up'), {
        body: { ...body, password: 'short', acceptTnc: true },
      }),
      400,
      'U101',
    );
    expectError(
      await call('POST', auth('/customer/sign-up'), {
        body: { ...body, phoneNumber: '0151 1234', acceptTnc: true },
      }),
      400,
      'AUTH107',
    );
    const created = await call('POST', auth('/customer/sign-up'), {
      body: { ...body, email: email.toUpperCase(), acceptTnc: true },
    });
    expect(created.status).toBe(201);
    expect(created.headers.get('cache-control')).toBe('no-store');
    expect(created.body).toMatchObject({
      token_type: 'Bearer',
      created: true,
      customerId: expect.any(Number),
    });
    expectError(
      await call('POST', auth('/customer/sign-up'), { body: { ...body, acceptTnc: true } }),
      409,
      'AUTH201',
    );

    const me = await call('GET', front('/account'), { token: created.body.access_token });
    expect(me.body).toMatchObject({ email, emailIsVerified: false, firstName: 'Nora' });
    const terms = await call('GET', front('/terms-and-conditions'), { token: created.body.access_token });
    expect(terms.body.termsAndConditionsAcceptanceState).toBe('ACCEPTED');

    const code = await mailedCode(email);
    const wrong = code === '000000' ? '000001' : '000000';
    expectError(
      await call('POST', auth('/customer/email-verification'), { body: { email, code: wrong } }),
      401,
      'AUTH119',
    );
    expect((await call('POST', auth('/customer/email-verification'), { body: { email, code } })).status).toBe(
      204,
    );
    expect(
      (await call('GET', front('/account'), { token: created.body.access_token })).body.emailIsVerified,
    ).toBe(true);
    // Verified accounts get no more verification mail, but the answer does not tell.
    expect((await call('POST', auth(`/customer/email-verification/${email}`))).status).toBe(202);
  });

  test('hostile input is refused with catalogue errors', async () => {
    expectError(
      await call('POST', auth('/customer/sign-up'), {
        body: { email: 'a\u0000@example.org', password: 'secret-pass-1', firstName: 'A', lastName: 'B' },
      }),
      400,
      '0022',
    );
    expectError(
      await call('POST', auth('/customer/sign-in'), { body: { email: 'x'.repeat(300), password: 'p' } }),
      400,
      '0022',
    );
    expectError(
      await call('POST', auth('/customer/sign-in'), { body: { email: 42, password: 'p' } }),
      400,
      '0022',
    );
    expectError(
      await call('POST', auth('/customer/email-code/sign-in'), { body: { email: 'a@b.de', code: '12345x' } }),
      400,
      '0022',
    );
    expectError(
      await call('POST', `/v1/no-such-tenant/auth/customer/sign-in`, {
        body: { email: 'a@b.de', password: 'p' },
      }),
      404,
      'AUTH051',
    );
  });
});

describe('password sign-in, blocking and the current user', () => {
  test('the demo customer signs in; three failures block for 120 s (RL100), then sign-in works again', async () => {
    const ok = await signIn(demoCustomer.email, demoCustomer.password);
    expect(ok.status).toBe(200);
    expect(ok.body.created).toBe(false);
    for (let attempt = 0; attempt < 3; attempt++)
      expectError(await signIn(demoCustomer.email, 'wrong-password-1'), 401, 'AUTH101');
    const blocked = await signIn(demoCustomer.email, demoCustomer.password);
    expectError(blocked, 429, 'RL100');
    // Another address is not affected; an unknown address answers like a wrong password.
    expectError(await signIn(uniqueEmail('nobody'), 'whatever-1'), 401, 'AUTH101');
    const throttle = await em().findOneOrFail(SignInThrottle, { key: `password:${demoCustomer.email}` });
    expect(throttle.blockedUntil!.getTime() - Date.now()).toBeGreaterThan(100_000);
    await letTimePass();
    expect((await signIn(demoCustomer.email, demoCustomer.password)).status).toBe(200);
    expect(await em().count(SignInThrottle, { key: `password:${demoCustomer.email}` })).toBe(0);
  });

  test('a blocked customer is refused at sign-in and on current-user routes (AUTH222)', async () => {
    const email = uniqueEmail('blocked');
    const created = await call('POST', auth('/customer/sign-up'), {
      body: { email, password: 'secret-pass-1', firstName: 'B', lastName: 'L', acceptTnc: true },
    });
    await em().nativeUpdate(Customer, { id: created.body.customerId }, { isBlocked: true });
    expectError(await signIn(email, 'secret-pass-1'), 403, 'AUTH222');
    expectError(await call('GET', front('/account'), { token: created.body.access_token }), 403, 'AUTH222');
  });

  test('current-user routes need a customer token: an app client token is 0001, a customer token on back is 0005', async () => {
    const session = (await signIn(demoCustomer.email, demoCustomer.password)).body;
    expectError(await call('GET', front('/account'), { token: appToken }), 401, '0001');
    expectError(
      await call('GET', back(`/customers?branchId=${stack.backend.seed.branchId}`), {
        token: session.access_token,
      }),
      403,
      '0005',
    );
    // Another tenant's path with this tenant's customer token.
    expectError(
      await call('GET', `/v1/${rival.tenant}/front/account`, { token: session.access_token }),
      403,
      'AUTH002',
    );
    const me = await call('GET', front('/account'), { token: session.access_token });
    expect(me.body).toMatchObject({ id: session.customerId, email: demoCustomer.email });
    const patched = await call('PATCH', front('/account'), {
      token: session.access_token,
      body: { city: 'Potsdam' },
    });
    expect(patched.body).toMatchObject({ id: session.customerId, city: 'Potsdam', signupSettled: true });
    await call('PATCH', front('/account'), { token: session.access_token, body: { city: 'Berlin' } });
  });
});

describe('code sign-in', () => {
  test('e-mail code: 429 when sent recently, AUTH119 wrong, U130 for a new address without names, AUTH122 expired', async () => {
    const email = uniqueEmail('code');
    expect((await call('POST', auth('/customer/email-code'), { body: { email } })).status).toBe(202);
    expectError(await call('POST', auth('/customer/email-code'), { body: { email } }), 429, 'AUTH225');
    const code = await mailedCode(email);
    const wrong = code === '111111' ? '222222' : '111111';
    expectError(
      await call('POST', auth('/customer/email-code/sign-in'), { body: { email, code: wrong } }),
      401,
      'AUTH119',
    );
    expectError(
      await call('POST', auth('/customer/email-code/sign-in'), { body: { email, code } }),
      422,
      'U130.5',
    );
    expectError(
      await call('POST', auth('/customer/email-code/sign-in'), {
        body: { email, code, firstName: 'E', lastName: 'C' },
      }),
      422,
      'U601',
    );
    const created = await call('POST', auth('/customer/email-code/sign-in'), {
      body: { email, code, firstName: 'E', lastName: 'C', acceptTnc: true },
    });
    expect(created.status).toBe(200);
    expect(created.body.created).toBe(true);
    // A used code does not work twice.
    expectError(
      await call('POST', auth('/customer/email-code/sign-in'), { body: { email, code } }),
      401,
      'AUTH119',
    );

    await letTimePass();
    await call('POST', auth('/customer/email-code'), { body: { email } });
    const second = await mailedCode(email);
    await em().nativeUpdate(
      OneTimeCode,
      { target: email, consumedAt: null },
      { expiresAt: new Date(Date.now() - 1000) },
    );
    expectError(
      await call('POST', auth('/customer/email-code/sign-in'), { body: { email, code: second } }),
      401,
      'AUTH122',
    );
  });

  test('e-mail code: three wrong codes block (RL100)', async () => {
    const email = uniqueEmail('brute');
    await call('POST', auth('/customer/email-code'), { body: { email } });
    const code = await mailedCode(email);
    const wrong = code === '333333' ? '444444' : '333333';
    for (let attempt = 0; attempt < 3; attempt++)
      expectError(
        await call('POST', auth('/customer/email-code/sign-in'), { body: { email, code: wrong } }),
        401,
        'AUTH119',
      );
    expectError(
      await call('POST', auth('/customer/email-code/sign-in'), { body: { email, code } }),
      429,
      'RL100',
    );
  });

  test('phone code: AUTH107 format, AUTH203 resend, AUTH102 wrong, U130.3 new number without e-mail, AUTH103 expired', async () => {
    const phone = uniquePhone();
    expectError(
      await call('POST', auth('/customer/phone-code'), { body: { phoneNumber: '030 1234567' } }),
      400,
      'AUTH107',
    );
    expect(
      (await call('POST', auth('/customer/phone-code'), { body: { phoneNumber: phone.replace('+', '00') } }))
        .status,
    ).toBe(202);
    expectError(
      await call('POST', auth('/customer/phone-code'), { body: { phoneNumber: phone } }),
      429,
      'AUTH203',
    );
    const code = await smsCode(phone);
    const wrong = code === '555555' ? '666666' : '555555';
    expectError(
      await call('POST', auth('/customer/phone-code/sign-in'), { body: { phoneNumber: phone, code: wrong } }),
      401,
      'AUTH102',
    );
    expectError(
      await call('POST', auth('/customer/phone-code/sign-in'), { body: { phoneNumber: phone, code } }),
      422,
      'U130.3',
    );
    const email = uniqueEmail('phone');
    const created = await call('POST', auth('/customer/phone-code/sign-in'), {
      body: { phoneNumber: phone, code, email, firstName: 'P', lastName: 'H', acceptTnc: true },
    });
    expect(created.status).toBe(200);
    expect(created.body.created).toBe(true);
    expect((await call('GET', front('/account'), { token: created.body.access_token })).body).toMatchObject({
      phoneNumber: phone,
      phoneIsVerified: true,
      email,
    });

    await letTimePass();
    await call('POST', auth('/customer/phone-code'), { body: { phoneNumber: phone } });
    const again = await smsCode(phone);
    const signedIn = await call('POST', auth('/customer/phone-code/sign-in'), {
      body: { phoneNumber: phone, code: again },
    });
    expect(signedIn.body).toMatchObject({ created: false, customerId: created.body.customerId });

    await letTimePass();
    await call('POST', auth('/customer/phone-code'), { body: { phoneNumber: phone } });
    const late = await smsCode(phone);
    await em().nativeUpdate(
      OneTimeCode,
      { target: phone, consumedAt: null },
      { expiresAt: new Date(Date.now() - 1000) },
    );
    expectError(
      await call('POST', auth('/customer/phone-code/sign-in'), { body: { phoneNumber: phone, code: late } }),
      401,
      'AUTH103',
    );
  });
});

describe('refresh, sign-out and password reset', () => {
  test('refresh rotates; a reused token revokes the sign-in (AUTH104); expiry and sign-out answer AUTH104', async () => {
    const first = (await signIn(demoCustomer.email, demoCustomer.password)).body;
    const refreshed = await call('POST', auth('/customer/refresh'), {
      body: { refresh_token: first.refresh_token },
    });
    expect(refreshed.status).toBe(200);
    expect(refreshed.body.refresh_token).not.toBe(first.refresh_token);
    expect((await call('GET', front('/account'), { token: refreshed.body.access_token })).status).toBe(200);
    expectError(
      await call('POST', auth('/customer/refresh'), { body: { refresh_token: first.refresh_token } }),
      401,
      'AUTH104',
    );
    // The reuse revoked the rotated token too.
    expectError(
      await call('POST', auth('/customer/refresh'), {
        body: { refresh_token: refreshed.body.refresh_token },
      }),
      401,
      'AUTH104',
    );

    const second = (await signIn(demoCustomer.email, demoCustomer.password)).body;
    await em().nativeUpdate(
      RefreshToken,
      { customer: second.customerId, revokedAt: null },
      { expiresAt: new Date(Date.now() - 1000) },
    );
    expectError(
      await call('POST', auth('/customer/refresh'), { body: { refresh_token: second.refresh_token } }),
      401,
      'AUTH104',
    );

    const third = (await signIn(demoCustomer.email, demoCustomer.password)).body;
    expect(
      (await call('POST', auth('/customer/sign-out'), { body: { refresh_token: third.refresh_token } }))
        .status,
    ).toBe(204);
    expect(
      (await call('POST', auth('/customer/sign-out'), { body: { refresh_token: third.refresh_token } }))
        .status,
    ).toBe(204);
    expectError(
      await call('POST', auth('/customer/refresh'), { body: { refresh_token: third.refresh_token } }),
      401,
      'AUTH104',
    );
    expectError(
      await call('POST', auth('/customer/refresh'), { body: { refresh_token: 'rt_unknown' } }),
      401,
      'AUTH104',
    );
  });

  test('password reset: no probing, AUTH105 wrong code, new password works, other sessions end', async () => {
    const email = uniqueEmail('reset');
    await call('POST', auth('/customer/sign-up'), {
      body: { email, password: 'old-password-1', firstName: 'R', lastName: 'S', acceptTnc: true },
    });
    const session = (await signIn(email, 'old-password-1')).body;
    const before = mail.messages.length;
    expect((await call('POST', auth(`/customer/password-reset/${uniqueEmail('ghost')}`))).status).toBe(202);
    expect(mail.messages.length).toBe(before);
    expect((await call('POST', auth(`/customer/password-reset/${email}`))).status).toBe(202);
    const code = await mailedCode(email);
    const wrong = code === '777777' ? '888888' : '777777';
    expectError(
      await call('POST', auth('/customer/password-reset'), {
        body: { email, code: wrong, password: 'new-password-2' },
      }),
      400,
      'AUTH105',
    );
    expectError(
      await call('POST', auth('/customer/password-reset'), { body: { email, code, password: 'weak' } }),
      400,
      'U101',
    );
    expect(
      (
        await call('POST', auth('/customer/password-reset'), {
          body: { email, code, password: 'new-password-2' },
        })
      ).status,
    ).toBe(204);
    expectError(await signIn(email, 'old-password-1'), 401, 'AUTH101');
    expect((await signIn(email, 'new-password-2')).status).toBe(200);
    expectError(
      await call('POST', auth('/customer/refresh'), { body: { refresh_token: session.refresh_token } }),
      401,
      'AUTH104',
    );
  });
});

describe('request signing', () => {
  test('when the tenant enables it: SE100.n missing, SE101 app or timestamp, SE102 signature; a signed request passes', async () => {
    const tenant = stack.backend.seed.tenant;
    const secret = randomBytes(32).toString('base64');
    const setup = em();
    setup.create(AppSigningKey, { appId: 'demo-app', secret });
    const setting = setup.create(Setting, {
      key: REQUEST_SIGNING_SETTING_KEY,
      name: 'Request signing',
      area: 'CORE',
      valueType: 'JSON',
      branchIds: [0],
      value: { enabled: true },
    });
    await setup.flush();
    try {
      const email = uniqueEmail('signed');
      const body = { email, password: 'secret-pass-1', firstName: 'S', lastName: 'G', acceptTnc: true };
      expectError(await call('POST', auth('/customer/sign-up'), { body }), 400, 'SE100.1');
      expectError(
        await call('POST', auth('/customer/phone-code'), { body: { phoneNumber: uniquePhone() } }),
        400,
        'SE100.2',
      );
      expectError(await call('POST', auth(`/customer/password-reset/${email}`)), 400, 'SE100.3');
      expectError(await call('POST', auth('/customer/email-code'), { body: { email } }), 400, 'SE100.4');
      const now = Math.floor(Date.now() / 1000);
      const signature = requestSignature(secret, 'SIGN_UP', now, email);
      const query = (ts: number, sig: string, app = 'demo-app') =>
        `?signature=${sig}&timestamp=${ts}&appId=${app}`;
      expectError(
        await call('POST', auth(`/customer/sign-up${query(now - 3600, signature)}`), { body }),
        401,
        'SE101',
      );
      expectError(
        await call('POST', auth(`/customer/sign-up${query(now, signature, 'other-app')}`), { body }),
        401,
        'SE101',
      );
      expectError(
        await call(
          'POST',
          auth(`/customer/sign-up${query(now, requestSignature(secret, 'SIGN_UP', now, 'x@y.z'))}`),
          { body },
        ),
        401,
        'SE102',
      );
      expect((await call('POST', auth(`/customer/sign-up${query(now, signature)}`), { body })).status).toBe(
        201,
      );
      void tenant;
    } finally {
      // Through the unit of work, as every settings write: the read cache sees it and forgets the key.
      const fork = em();
      await fork.remove(await fork.findOneOrFail(Setting, setting.id)).flush();
    }
    expect(
      (await call('POST', auth('/customer/email-code'), { body: { email: uniqueEmail('unsigned') } })).status,
    ).toBe(202);
  });
});

describe('business accounts', () => {
  const customerToken = (id: number) =>
    new TokenService(testJwtSecret, 600).issue({
      tenant: stack.backend.seed.tenant,
      subjectType: 'CUSTOMER',
      subjectId: String(id),
      scope: 'front',
    });
  async function acme() {
    const { UserGroup } = await import('../db/entities/UserGroup.js');
    return em().findOneOrFail(UserGroup, { code: demoGroupCode });
  }
  async function newCustomer(name: string) {
    const reply = await call('POST', auth('/customer/sign-up'), {
      body: {
        email: uniqueEmail(name),
        password: 'secret-pass-1',
        firstName: name,
        lastName: 'Test',
        acceptTnc: true,
      },
    });
    return reply.body as { access_token: string; customerId: number };
  }

  test('operator: create ignores billingCycle, UG131 receipts rule, one group per customer, maximum members, scope', async () => {
    const { cityBranchId, otherBranchId, customerIds } = stack.backend.seed;
    const [anna, ben, clara, deniz] = customerIds as [number, number, number, number];
    expectError(
      await call('POST', back('/groups'), {
        token: operatorToken,
        body: { name: 'Receipts', branchId: cityBranchId, useReceiptInsteadOfInvoice: true },
      }),
      422,
      'UG131',
    );
    expectError(
      await call('POST', back('/groups'), {
        token: operatorToken,
        body: { name: 'Other', branchId: otherBranchId },
      }),
      403,
      'AUTH002',
    );
    expectError(
      await call('POST', back('/groups'), {
        token: operatorToken,
        body: { name: 'Dup', branchId: cityBranchId, ownerId: anna },
      }),
      409,
      'UG133',
    );
    const created = await call('POST', back('/groups'), {
      token: operatorToken,
      body: {
        name: 'Beta GmbH',
        branchId: cityBranchId,
        billingCycle: 'WEEKLY',
        houseNumber: '5a',
        addressAddition: 'Hinterhaus',
      },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      billingCycle: 'MONTHLY',
      useReceiptInsteadOfInvoice: false,
      houseNumber: '5a',
      membersCount: 0,
      ownerId: null,
    });
    const id = created.body.id;
    const payg = await call('PATCH', back(`/groups/${id}`), {
      token: operatorToken,
      body: { billingCycle: 'PAY_AS_YOU_GO', useReceiptInsteadOfInvoice: true },
    });
    expect(payg.body).toMatchObject({ billingCycle: 'PAY_AS_YOU_GO', useReceiptInsteadOfInvoice: true });
    expectError(
      await call('PATCH', back(`/groups/${id}`), { token: operatorToken, body: { billingCycle: 'MONTHLY' } }),
      422,
      'UG131',
    );

    expectError(
      await call('POST', back(`/groups/${id}/members`), {
        token: operatorToken,
        body: { customerIds: [ben] },
      }),
      409,
      'UG133',
    );
    expectError(
      await call('POST', back(`/groups/${id}/members`), {
        token: operatorToken,
        body: { customerIds: [2147483647] },
      }),
      422,
      'UG408',
    );
    const added = await call('POST', back(`/groups/${id}/members`), {
      token: operatorToken,
      body: { customerIds: [clara] },
    });
    expect(added.body.map((m: { customer: { id: number } }) => m.customer.id)).toEqual([clara]);
    await call('PATCH', back(`/groups/${id}`), { token: operatorToken, body: { maxMembers: 1 } });
    expectError(
      await call('POST', back(`/groups/${id}/members`), {
        token: operatorToken,
        body: { customerIds: [deniz] },
      }),
      422,
      'UG132',
    );
    const members = await call('GET', back(`/groups/${(await acme()).id}/members?searchText=be`), {
      token: operatorToken,
    });
    expect(members.body.map((m: { customer: { firstName: string } }) => m.customer.firstName)).toEqual([
      'Ben',
    ]);
    const ofClara = await call('GET', back(`/customers/${clara}/groups?branchId=${cityBranchId}`), {
      token: operatorToken,
    });
    expect(ofClara.body).toMatchObject([{ state: 'ACTIVE', group: { id } }]);
    expect(
      (await call('DELETE', back(`/groups/${id}/members/${clara}`), { token: operatorToken })).status,
    ).toBe(204);
    expectError(
      await call('GET', back(`/groups/${id}`), {
        token: await stack.token(rival.tenant, demoOperatorClient),
      }),
      403,
      'AUTH002',
    );
    expectError(await call('GET', back('/groups/2147483647'), { token: operatorToken }), 404, 'UG404');
  });

  test('app: members see their account and cost centers, only managers manage, others learn nothing', async () => {
    const group = await acme();
    const [anna, ben] = stack.backend.seed.customerIds as [number, number];
    const annaToken = await customerToken(anna);
    const benToken = await customerToken(ben);
    const stranger = await newCustomer('Stranger');
    expect((await call('GET', front('/groups'), { token: benToken })).body).toMatchObject([
      { group: { code: demoGroupCode, costCenters: [{ code: 'OPS' }, { code: 'SALES' }] } },
    ]);
    expect(
      (await call('GET', front('/groups-management'), { token: annaToken })).body.map(
        (g: { id: number }) => g.id,
      ),
    ).toEqual([group.id]);
    expect((await call('GET', front('/groups-management'), { token: benToken })).body).toEqual([]);
    expectError(await call('GET', front(`/groups-management/${group.id}`), { token: benToken }), 403, 'A100');
    expectError(
      await call('GET', front(`/groups-management/${group.id}/members/${anna}`), { token: benToken }),
      403,
      'A100',
    );
    expectError(
      await call('GET', front(`/groups-management/${group.id}`), { token: stranger.access_token }),
      404,
      'UG404',
    );
    expectError(await call('GET', front(`/groups-management/${group.id}`), { token: appToken }), 401, '0001');

    const centers = await call('GET', front('/cost-centers'), { token: benToken });
    expect(centers.body.map((c: { code: string }) => c.code)).toEqual(['OPS', 'SALES']);
    expectError(
      await call('POST', front('/cost-centers'), { token: benToken, body: { code: 'LEGAL', name: 'Legal' } }),
      403,
      'A100',
    );
    const legal = await call('POST', front('/cost-centers'), {
      token: annaToken,
      body: { code: 'LEGAL', name: 'Legal' },
    });
    expect(legal.status).toBe(201);
    expectError(
      await call('POST', front('/cost-centers'), {
        token: annaToken,
        body: { code: 'LEGAL', name: 'Again' },
      }),
      409,
      'UG407',
    );
    expectError(
      await call('GET', front(`/cost-centers/${legal.body.id}`), { token: stranger.access_token }),
      404,
      'UG405',
    );
    const member = await call('PATCH', front(`/groups-management/${group.id}/members/${ben}`), {
      token: annaToken,
      body: { costCenterId: legal.body.id },
    });
    expect(member.body).toMatchObject({ costCenterId: legal.body.id, customer: { id: ben } });
    // PUT replaces both properties; leaving one out is a validation error.
    expectError(
      await call('PUT', front(`/groups-management/${group.id}/members/${ben}`), {
        token: annaToken,
        body: { costCenterId: null },
      }),
      400,
      '0022',
    );
    const replaced = await call('PUT', front(`/groups-management/${group.id}/members/${ben}`), {
      token: annaToken,
      body: { costCenterId: null, canManage: false },
    });
    expect(replaced.body).toMatchObject({ costCenterId: null, canManage: false });
    await call('PUT', front(`/groups-management/${group.id}/members/${ben}`), {
      token: annaToken,
      body: { costCenterId: legal.body.id, canManage: false },
    });
    const defaulted = await call('PATCH', front(`/groups-management/${group.id}`), {
      token: annaToken,
      body: { defaultCostCenterId: legal.body.id },
    });
    expect(defaulted.body.defaultCostCenterId).toBe(legal.body.id);
    expectError(
      await call('PATCH', front(`/groups-management/${group.id}`), {
        token: annaToken,
        body: { billingCycle: 'WEEKLY' },
      }),
      400,
      '0022',
    );
    expect((await call('DELETE', front(`/cost-centers/${legal.body.id}`), { token: annaToken })).status).toBe(
      204,
    );
    expect(
      (await call('GET', front(`/groups-management/${group.id}`), { token: annaToken })).body
        .defaultCostCenterId,
    ).toBeNull();
  });

  test('app: join by code, one account per customer, approval requests, leave; terms must be accepted (U601)', async () => {
    const group = await acme();
    const [anna, , , deniz] = stack.backend.seed.customerIds as [number, number, number, number];
    const annaToken = await customerToken(anna);
    expectError(
      await call('POST', front(`/groups/${demoGroupCode}/join`), { token: await customerToken(deniz) }),
      422,
      'U601',
    );
    const joiner = await newCustomer('Joiner');
    const joined = await call('POST', front(`/groups/${demoGroupCode}/join`), { token: joiner.access_token });
    expect(joined.body).toMatchObject({ state: 'ACTIVE', group: { id: group.id } });
    expectError(
      await call('POST', front(`/groups/${demoGroupCode}/join`), { token: joiner.access_token }),
      409,
      'UG133',
    );
    expectError(
      await call('POST', front('/groups/NO-SUCH-CODE/join'), { token: joiner.access_token }),
      404,
      'UG404',
    );
    expect(
      (await call('POST', front(`/groups/${demoGroupCode}/leave`), { token: joiner.access_token })).status,
    ).toBe(204);
    expectError(
      await call('POST', front(`/groups/${demoGroupCode}/leave`), { token: annaToken }),
      403,
      'A100',
    );

    await call('PATCH', front(`/groups-management/${group.id}`), {
      token: annaToken,
      body: { joinRequiresApproval: true },
    });
    const pending = await call('POST', front(`/groups/${demoGroupCode}/join`), {
      token: joiner.access_token,
    });
    expect(pending.body.state).toBe('PENDING');
    expect((await call('GET', front('/groups/requests'), { token: joiner.access_token })).body).toHaveLength(
      1,
    );
    const requests = await call('GET', front(`/groups-management/${group.id}/requests`), {
      token: annaToken,
    });
    expect(requests.body.map((r: { customer: { id: number } }) => r.customer.id)).toEqual([
      joiner.customerId,
    ]);
    const accepted = await call(
      'PATCH',
      front(`/groups-management/${group.id}/requests/${requests.body[0].membershipId}`),
      {
        token: annaToken,
        body: { state: 'ACCEPTED' },
      },
    );
    expect(accepted.body.state).toBe('ACTIVE');
    await call('PATCH', front(`/groups-management/${group.id}`), {
      token: annaToken,
      body: { joinRequiresApproval: false },
    });

    const owner = await newCustomer('Owner');
    const own = await call('POST', front('/groups-management'), {
      token: owner.access_token,
      body: {
        name: 'Owner & Co',
        branchId: stack.backend.seed.branchId,
        houseNumber: '7',
        addressAddition: '2. OG',
      },
    });
    expect(own.status).toBe(201);
    expect(own.body).toMatchObject({ ownerId: owner.customerId, membersCount: 1, billingCycle: 'MONTHLY' });
    const added = await call('POST', front(`/groups-management/${own.body.id}/add-members`), {
      token: owner.access_token,
      body: { emails: [demoCustomer.email] },
    });
    expectError(added, 409, 'UG133');
    // The join code: the owner sets a new one; another account's code is taken; outsiders learn nothing.
    const recoded = await call('PATCH', front(`/groups-management/${own.body.id}/OWNER-CO-2027`), {
      token: owner.access_token,
    });
    expect(recoded.status).toBe(200);
    expect(recoded.body.code).toBe('OWNER-CO-2027');
    expectError(
      await call('PATCH', front(`/groups-management/${own.body.id}/${demoGroupCode}`), {
        token: owner.access_token,
      }),
      409,
      'UG410',
    );
    expectError(
      await call('PATCH', front(`/groups-management/${own.body.id}/bad%20code`), {
        token: owner.access_token,
      }),
      400,
      '0022',
    );
    expectError(
      await call('PATCH', front(`/groups-management/${own.body.id}/STOLEN-CODE`), {
        token: (await newCustomer('Outsider')).access_token,
      }),
      404,
      'UG404',
    );
    expect(
      (await call('DELETE', front(`/groups-management/${own.body.id}`), { token: owner.access_token }))
        .status,
    ).toBe(204);
  });
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
    expect(sources.body).toMatchObject([{ providerReference: 'pm_demo_anna_visa', label: 'Visa •••• 4242' }]);
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
