// Customers signing in, end to end: sign-up with e-mail verification, password sign-in with blocking
// and the current user, e-mail and phone codes, refresh, sign-out and password reset, and request
// signing. Codes are read from a local SMTP catcher and an SMS outbox.
import { randomBytes } from 'node:crypto';
import { AppSigningKey } from '../db/entities/AppSigningKey.js';
import { Customer } from '../db/entities/Customer.js';
import { OneTimeCode } from '../db/entities/OneTimeCode.js';
import { RefreshToken } from '../db/entities/RefreshToken.js';
import { Setting } from '../db/entities/Setting.js';
import { SignInThrottle } from '../db/entities/SignInThrottle.js';
import { type SeededTenant } from '../db/seed.js';
import { demoCustomer } from '../db/seed/customers.js';
import { requestSignature, REQUEST_SIGNING_SETTING_KEY } from '../api/routes/auth/signing.js';
import { expectError, type CallOptions, type HttpStack, type Reply } from './support/http.js';
import { apiReloaded } from './support/read-cache.js';
import {
  type CustomerSession,
  type MailCatcher,
  startCustomerSession,
  uniqueEmail,
  uniquePhone,
} from './support/customers.js';

let session: CustomerSession;
let stack: HttpStack;
let appToken: string;
let rival: SeededTenant;
let mail: MailCatcher;

const call = (method: string, path: string, options?: CallOptions): Promise<Reply> =>
  stack.call(method, path, options);
const auth = (path: string) => session.auth(path);
const back = (path: string) => stack.back(path);
const front = (path: string) => stack.front(path);
const em = () => session.em();
const mailedCode = (to: string) => session.mailedCode(to);
const smsCode = (to: string) => session.smsCode(to);
const letTimePass = () => session.letTimePass();
const signIn = (email: string, password: string) => session.signIn(email, password);

beforeAll(async () => {
  session = await startCustomerSession();
  ({ stack, appClientToken: appToken, rival, mail } = session);
}, 120_000);

afterAll(async () => {
  await session?.stop();
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
    await apiReloaded(stack);
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
      // Through the unit of work, as every settings write: this ORM's cache forgets the key at once, and
      // apiReloaded empties the API's without waiting for the notification.
      const fork = em();
      await fork.remove(await fork.findOneOrFail(Setting, setting.id)).flush();
      await apiReloaded(stack);
    }
    expect(
      (await call('POST', auth('/customer/email-code'), { body: { email: uniqueEmail('unsigned') } })).status,
    ).toBe(202);
  });
});
