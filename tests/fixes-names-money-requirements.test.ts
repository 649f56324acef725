// Three behaviour fixes (issue 21), each shown failing before its fix: customer names are normalised and
// refused when blank, invisible or carrying bidirectional / zero-width characters (both interfaces); every
// amount of a response is written in its currency's minor digits by one formatter (domain/money.ts); and
// a customer without a payment method cannot rent a priced vehicle where nothing else is configured
// (the shipped start requirements, P104).
import { PaymentSource } from '../db/entities/PaymentSource.js';
import { Setting } from '../db/entities/Setting.js';
import { Vehicle } from '../db/entities/Vehicle.js';
import { VehicleCategory } from '../db/entities/VehicleCategory.js';
import { tenantEm } from '../db/orm.js';
import { demoOperatorClient } from '../db/seed/access.js';
import { demoCustomer } from '../db/seed/customers.js';
import { NAME_MAX_LENGTH, normaliseName } from '../domain/customer.js';
import { isDomainError } from '../domain/errors.js';
import { formatAmount, formatUnitPrice, minorDigitsOf } from '../domain/money.js';
import { priceFee } from '../domain/pricing-fees.js';
import type { PricedVersion, TaxContext } from '../domain/pricing.js';
import { RENTAL_DEPOSIT_SETTING_KEY } from '../domain/rental-pricing.js';
import { requirementsFor, shippedRentalRequirements } from '../domain/rental-requirements.js';
import { startMailCatcher } from '../platform/mail.js';
import { expectError, startHttpStack, type HttpStack, type Reply } from './support/http.js';

/** The catalogue code a call throws, or 'none'. */
function codeOf(work: () => unknown): string {
  try {
    work();
    return 'none';
  } catch (error) {
    return isDomainError(error) ? error.code : String(error);
  }
}

describe('names: normaliseName (domain/customer.ts)', () => {
  test('stores names in Unicode NFC, trimmed of white space', () => {
    expect(normaliseName('  Jose\u0301 ', 'firstName')).toBe('Jos\u00e9');
    expect(normaliseName('\tZoe\u0308\n', 'lastName')).toBe('Zo\u00eb');
    for (const name of ['Yılmaz', 'Müller', "O'Brien", 'Jean-Luc', '李', 'عائشة', 'Anna Maria'])
      expect(normaliseName(name, 'firstName')).toBe(name);
  });

  test('a name with nothing visible is needed: U130.5 for the first name, U130.6 for the last', () => {
    const blank = [undefined, null, '', '   ', '\u00a0\u2003', '\u200b', '\u2060\u200d', '\u2800', '\u3164'];
    for (const value of blank) {
      expect(codeOf(() => normaliseName(value, 'firstName'))).toBe('U130.5');
      expect(codeOf(() => normaliseName(value, 'lastName'))).toBe('U130.6');
    }
  });

  test('bidirectional controls, zero-width and control characters anywhere are 0022', () => {
    const hostile = [
      'An\u202ena', // right-to-left override
      '\u202eAnna',
      'Anna\u202c',
      'An\u2066na\u2069', // isolates
      'Anna\u200b', // zero-width space
      'An\u200cna',
      'An\u200dna',
      'A\u2060nna', // word joiner
      '\ufeffAnna', // zero-width no-break space (BOM): not white space, not trimmed
      'Ann\u0000a', // control characters
      'Ann\u0007a',
      'An\ud800na', // a lone surrogate
    ];
    for (const value of hostile)
      expect([value, codeOf(() => normaliseName(value, 'lastName'))]).toEqual([value, '0022']);
    // NFC may lengthen a name (U+0958 has no composed form): the stored name still fits its column.
    expect(codeOf(() => normaliseName('\u0958'.repeat(60), 'firstName'))).toBe('0022');
    expect(normaliseName('a'.repeat(NAME_MAX_LENGTH), 'firstName')).toHaveLength(NAME_MAX_LENGTH);
  });
});

describe('money: one format (domain/money.ts)', () => {
  test("amounts in the currency's minor digits, half-up, never binary floating point", () => {
    expect(formatAmount('1.5', 'EUR')).toBe('1.50');
    expect(formatAmount('1.60', 'EUR')).toBe('1.60');
    expect(formatAmount('0.125', 'CHF')).toBe('0.13');
    expect(formatAmount('150.4', 'JPY')).toBe('150');
    expect(formatAmount('7', 'HUF')).toBe('7.00');
    expect(formatAmount('7', 'XYZ')).toBe('7.00');
    expect(formatAmount('-0.001', 'EUR')).toBe('0.00');
    expect(formatAmount('1e21', 'USD')).toBe('1000000000000000000000.00');
    expect(formatAmount('0.1', 'eur')).toBe('0.10');
    expect(['EUR', 'CHF', 'GBP', 'USD', 'SEK', 'DKK', 'NOK', 'PLN', 'CZK', 'HUF'].map(minorDigitsOf)).toEqual(
      Array(10).fill(2),
    );
    expect(minorDigitsOf('JPY')).toBe(0);
  });

  test('unit prices are padded to the minor digits and never rounded', () => {
    expect(formatUnitPrice('1', 'EUR')).toBe('1.00');
    expect(formatUnitPrice('0.1', 'EUR')).toBe('0.10');
    expect(formatUnitPrice('0.125', 'EUR')).toBe('0.125');
    expect(formatUnitPrice('12', 'JPY')).toBe('12');
  });

  const version = (currency: string): PricedVersion => ({
    ref: { pricingBundleId: 1, pricingBundleVersionId: 1, version: 1, name: 'Fee' },
    bundleType: 'BOOKING',
    currency,
    distanceUnit: 'KILOMETER',
    rules: { pricesIncludeTax: true, freeFloatingPricingMode: null, onDemand: null, booking: null },
  });
  const tax = (currency: string, scale: number): TaxContext => ({
    taxPercentage: '19.00',
    scale,
    currency,
    timeZoneId: 'Europe/Berlin',
  });

  test('the engine writes every amount and unit price in the minor digits', () => {
    const fee = priceFee(version('EUR'), tax('EUR', 2), { code: 'FEE', description: 'Fee', amount: '1.5' });
    expect(fee.price.total).toBe('1.50');
    expect(fee.priceV3.groups[0]!.amount).toBe('1.50');
    expect(fee.priceV4.lines[0]).toMatchObject({
      unitPrice: '1.50',
      net: '1.26',
      tax: '0.24',
      gross: '1.50',
    });
    // A business unit rounding finer than its currency rounds to the currency: the totals stay their lines'.
    const fine = priceFee(version('EUR'), tax('EUR', 3), {
      code: 'FEE',
      description: 'Fee',
      amount: '0.005',
    });
    expect(fine.priceV4.lines[0]!.gross).toBe('0.01');
    expect(fine.priceV4.totals.gross).toBe('0.01');
    // A coarser rounding is kept, and still written in the minor digits.
    const whole = priceFee(version('EUR'), tax('EUR', 0), { code: 'FEE', description: 'Fee', amount: '1.5' });
    expect(whole.price.total).toBe('2.00');
  });
});

describe('rental requirements: the shipped default', () => {
  test('without a setting a rental needs a payment method (P104); a setting replaces the default', () => {
    expect(shippedRentalRequirements.start).toEqual(['PAYMENT_METHOD']);
    expect(requirementsFor(undefined, undefined)).toEqual({
      config: { start: ['PAYMENT_METHOD'], end: [] },
      profile: null,
    });
    expect(requirementsFor(null, 'bikes').config.start).toEqual(['PAYMENT_METHOD']);
    expect(requirementsFor({ default: { start: [], end: [] } }, undefined).config.start).toEqual([]);
  });
});

describe('over HTTP', () => {
  let stack: HttpStack;
  let mail: Awaited<ReturnType<typeof startMailCatcher>>;
  let operator: string;
  let anna: string;
  let scooters: Vehicle[] = [];
  const auth = (path: string) => `/v1/${stack.backend.seed.tenant}/auth${path}`;
  const em = () => tenantEm(stack.backend.orm, stack.backend.seed.tenant);
  let serial = 0;
  const uniqueEmail = (name: string) => `${name}.${Date.now()}.${serial++}@example.org`;

  beforeAll(async () => {
    mail = await startMailCatcher({ port: 0 });
    process.env.SMTP_URL = mail.url;
    stack = await startHttpStack();
    const { seed } = stack.backend;
    operator = await stack.token(seed.tenant, demoOperatorClient);
    const signedIn = await stack.call('POST', auth('/customer/sign-in'), {
      body: { email: demoCustomer.email, password: demoCustomer.password },
    });
    anna = signedIn.body.access_token;
    const available = await stack.call(
      'GET',
      stack.front(`/vehicles?branchId=${seed.branchId}&onlyAvailable=true&size=100`),
      { token: anna },
    );
    const ids = new Set<number>(available.body.map((vehicle: { id: number }) => vehicle.id));
    const scooter = await em().findOneOrFail(VehicleCategory, { name: 'E-Scooter' });
    scooters = (
      await em().find(Vehicle, { category: scooter, branch: seed.branchId }, { orderBy: { id: 'asc' } })
    ).filter((vehicle) => ids.has(vehicle.id));
    expect(scooters.length).toBeGreaterThanOrEqual(3);
  }, 180_000);

  afterAll(async () => {
    await stack?.stop();
    await mail?.stop();
    delete process.env.SMTP_URL;
  });

  function takeScooter(): Vehicle {
    const vehicle = scooters.shift();
    if (!vehicle) throw new Error('no scooter left');
    return vehicle;
  }

  const signUp = (body: Record<string, unknown>) =>
    stack.call('POST', auth('/customer/sign-up'), {
      body: { email: uniqueEmail('name'), password: 'correct-horse-42', acceptTnc: true, ...body },
    });

  async function mailedCode(to: string): Promise<string> {
    for (let attempt = 0; attempt < 50; attempt++) {
      const message = mail.messages.filter((item) => item.to.includes(to)).at(-1);
      const code = message?.raw.match(/^ {4}(\d{6})\s*$/m)?.[1];
      if (code) return code;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error(`no code mailed to ${to}`);
  }

  test('sign-up refuses blank, invisible and bidi-overridden names and stores normalised ones', async () => {
    expectError(await signUp({ firstName: '   ', lastName: 'Weber' }), 422, 'U130.5');
    expectError(await signUp({ firstName: 'Lena', lastName: '\u200b' }), 422, 'U130.6');
    expectError(await signUp({ firstName: '\u2800\u3164', lastName: 'Weber' }), 422, 'U130.5');
    expectError(await signUp({ firstName: 'Lena', lastName: 'Web\u202ere' }), 400, '0022');
    expectError(await signUp({ firstName: 'Le\u200bna', lastName: 'Weber' }), 400, '0022');
    const created = await signUp({ firstName: '  Jose\u0301 ', lastName: ' Ruiz\t' });
    expect(created.status).toBe(201);
    const account = await stack.call('GET', stack.front('/account'), { token: created.body.access_token });
    expect(account.body).toMatchObject({ firstName: 'Jos\u00e9', lastName: 'Ruiz' });
  });

  test('creating an account with an e-mail code applies the same rule', async () => {
    const email = uniqueEmail('code');
    expect((await stack.call('POST', auth('/customer/email-code'), { body: { email } })).status).toBe(202);
    const code = await mailedCode(email);
    const signIn = (names: object) =>
      stack.call('POST', auth('/customer/email-code/sign-in'), {
        body: { email, code, acceptTnc: true, ...names },
      });
    expectError(await signIn({ firstName: '\u00a0', lastName: 'Kim' }), 422, 'U130.5');
    expectError(await signIn({ firstName: 'Mina', lastName: 'K\u2066im' }), 400, '0022');
    const created = await signIn({ firstName: 'Mina', lastName: ' Kim ' });
    expect(created.status).toBe(200);
    expect(created.body.created).toBe(true);
    const account = await stack.call('GET', stack.front('/account'), { token: created.body.access_token });
    expect(account.body).toMatchObject({ firstName: 'Mina', lastName: 'Kim' });
  });

  test('the app profile update applies the same rule', async () => {
    const created = await signUp({ firstName: 'Paul', lastName: 'Berg' });
    const token = created.body.access_token;
    const patch = (body: object) => stack.call('PATCH', stack.front('/account'), { token, body });
    expectError(await patch({ firstName: ' \u200b ' }), 422, 'U130.5');
    expectError(await patch({ lastName: '\u3000' }), 422, 'U130.6');
    expectError(await patch({ firstName: 'Pa\u202dul' }), 400, '0022');
    expectError(await patch({ lastName: 'Berg\ufeff' }), 400, '0022');
    expect((await stack.call('GET', stack.front('/account'), { token })).body).toMatchObject({
      firstName: 'Paul',
      lastName: 'Berg',
    });
    const renamed = await patch({ firstName: '  Zoe\u0308 ', lastName: 'Berg-Lund' });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toMatchObject({ firstName: 'Zo\u00eb', lastName: 'Berg-Lund' });
  });

  test('a new customer without a payment method cannot rent a priced scooter (P104); with one, can', async () => {
    const created = await signUp({ firstName: 'Nora', lastName: 'Neu' });
    expect(created.status).toBe(201);
    const token = created.body.access_token;
    const vehicle = takeScooter();
    const report = await stack.call('GET', stack.front(`/rentals/requirements?vehicleId=${vehicle.id}`), {
      token,
    });
    expect(report.body).toMatchObject({
      profile: null,
      evaluated: true,
      passed: false,
      requirements: [{ name: 'PAYMENT_METHOD', passed: false, code: 'P104' }],
    });
    expectError(
      await stack.call('POST', stack.front('/rentals'), { token, body: { vehicleId: vehicle.id } }),
      422,
      'P104',
    );
    const tx = em();
    tx.create(PaymentSource, {
      customer: created.body.customerId,
      businessUnit: stack.backend.seed.businessUnitId,
      type: 'SEPA',
      provider: 'test',
      providerReference: `pm_nora_${Date.now()}`,
      label: 'DE89 •••• 3000',
    });
    await tx.flush();
    const reserved = await stack.call('POST', stack.front('/rentals'), {
      token,
      body: { vehicleId: vehicle.id },
    });
    expect(reserved.status).toBe(201);
    const cancelled = await stack.call('DELETE', stack.front(`/rentals/${reserved.body.id}`), { token });
    expect(cancelled.status).toBe(200);
  });

  /** Every amount of a price shape: the currency's two digits; unit prices at least two. */
  function expectMoneyFormat(path: string, value: unknown): void {
    const amountKeys = new Set(['total', 'taxAmount', 'amount', 'net', 'tax', 'gross']);
    if (Array.isArray(value))
      return value.forEach((item, index) => expectMoneyFormat(`${path}[${index}]`, item));
    if (typeof value !== 'object' || value === null) return;
    for (const [key, field] of Object.entries(value)) {
      if (amountKeys.has(key) && typeof field === 'string')
        expect([`${path}.${key}`, field]).toEqual([
          `${path}.${key}`,
          expect.stringMatching(/^-?\d+\.\d{2}$/),
        ]);
      else if (key === 'unitPrice')
        expect([`${path}.${key}`, field]).toEqual([
          `${path}.${key}`,
          expect.stringMatching(/^-?\d+\.\d{2,}$/),
        ]);
      else expectMoneyFormat(`${path}.${key}`, field);
    }
  }

  test('the billing overview writes every amount in the minor digits (it wrote "1.5" and "1")', async () => {
    const { seed } = stack.backend;
    const vehicle = takeScooter();
    const tx = em();
    tx.create(Setting, {
      key: RENTAL_DEPOSIT_SETTING_KEY,
      name: 'Rental deposit',
      area: 'CORE',
      valueType: 'RENTAL_DEPOSIT_SETTINGS',
      branchIds: [seed.branchId],
      value: { vehicleCategoryAmounts: { [String(vehicle.category.id)]: '1.5' } },
    });
    await tx.flush();
    const operate = (rentalId: number, operationType: string) =>
      stack.call('POST', stack.front(`/rentals/${rentalId}/operation`), {
        token: anna,
        body: { operationType },
      });
    const reserved = await stack.call('POST', stack.front('/rentals'), {
      token: anna,
      body: { vehicleId: vehicle.id },
    });
    expect(reserved.status).toBe(201);
    const rentalId: number = reserved.body.id;
    expect((await operate(rentalId, 'START')).status).toBe(200);
    stack.backend.simulator.ride(String(vehicle.id), 300);
    const ended: Reply = await operate(rentalId, 'END');
    expect(ended.status).toBe(200);
    expectMoneyFormat('rental', {
      price: ended.body.price,
      priceV3: ended.body.priceV3,
      priceV4: ended.body.priceV4,
    });

    const overview = await stack.call('GET', stack.back(`/rentals/${rentalId}/billing-overview`), {
      token: operator,
    });
    expect(overview.status).toBe(200);
    // The deposit setting said "1.5"; the unlock fee's rate is "1.00" in the bundle.
    expect(overview.body.deposit).toMatchObject({ amount: '1.50', currency: 'EUR' });
    expect(
      overview.body.priceV4.lines.find((line: { code: string }) => line.code === 'UNLOCK_FEE'),
    ).toMatchObject({ unitPrice: '1.00', gross: '1.00' });
    expect(
      overview.body.invoice.lines.find((line: { code: string }) => line.code === 'UNLOCK_FEE'),
    ).toMatchObject({ unitPrice: '1.00', gross: '1.00' });
    expectMoneyFormat('overview', overview.body);
    const invoice = await stack.call('GET', stack.back(`/invoices/${overview.body.invoice.id}`), {
      token: operator,
    });
    expectMoneyFormat('invoice', invoice.body);
    const released = await stack.call('POST', stack.back(`/rentals/${rentalId}/release-deposit`), {
      token: operator,
    });
    expect(released.body).toMatchObject({ state: 'RELEASED', amount: '1.50' });
  });
});
