// A package's vouchers go with its money (db/voucher-packages.ts `cancelRefundedPackage`): a package bought
// through a real payment grants its vouchers; a partial refund of its invoice leaves them; the refund that
// completes it cancels the vouchers still open and marks the purchase REFUNDED, once.
import { InvoiceLine } from '../db/entities/InvoiceLine.js';
import { Voucher } from '../db/entities/Voucher.js';
import { VoucherPackagePurchase } from '../db/entities/VoucherPackagePurchase.js';
import { type CallOptions, type Reply } from './support/http.js';
import { testCustomer } from './support/invoices.js';
import { startSession, type Session } from './support/session.js';

let session: Session;
const call = (method: string, path: string, options?: CallOptions): Promise<Reply> =>
  session.stack.call(method, path, options);
const back = (path: string) => session.stack.back(path);
const front = (path: string) => session.stack.front(path);

beforeAll(async () => {
  session = await startSession();
}, 120_000);

afterAll(async () => {
  await session?.stop();
});

/** Polls until `check` holds (the refund workflow finishes after the request answered). */
async function until<T>(read: () => Promise<T>, check: (value: T) => boolean, what: string): Promise<T> {
  for (let attempt = 0; attempt < 100; attempt++) {
    const value = await read();
    if (check(value)) return value;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`timed out waiting for ${what}`);
}

test('a package refunded in full cancels its open vouchers; a partial refund leaves them', async () => {
  const code = `PKG${Date.now()}`;
  const created = await call('POST', back('/voucherables'), {
    token: session.operatorToken,
    body: {
      branchId: session.seed.branchId,
      type: 'Package',
      name: 'Refundable minutes',
      code,
      price: '5.00',
      showInUserApp: true,
      benefits: [
        { type: 'FreeMinutes', amount: '30' },
        { type: 'FreeUnlocks', amount: '2' },
      ],
    },
  });
  expect([created.status, created.body.errorCode]).toEqual([201, undefined]);
  await call('POST', back(`/voucherables/${created.body.id}/activate`), { token: session.operatorToken });
  const customer = await testCustomer(session, { token: 'tok_sandbox_visa' });
  const token = await session.customerToken(customer);
  const bought = await call('POST', front('/packages/buy'), { token, body: { packageCode: code } });
  expect(bought.body).toMatchObject({ state: 'GRANTED', invoiceState: 'PAID' });
  const voucherIds: number[] = bought.body.vouchers.map((voucher: { id: number }) => voucher.id);
  expect(voucherIds).toHaveLength(2);
  const invoiceId: number = bought.body.invoiceId;
  const [line] = await session.em().find(InvoiceLine, { invoice: invoiceId });
  const vouchers = () =>
    session.em().find(Voucher, { id: { $in: voucherIds } }, { refresh: true, orderBy: { id: 'asc' } });
  const purchase = () =>
    session.em().findOneOrFail(VoucherPackagePurchase, bought.body.id, { refresh: true });
  const invoiceState = async () =>
    (await call('GET', back(`/invoices/${invoiceId}`), { token: session.operatorToken })).body.state;

  // A partial refund: the package stays the customer's.
  const partial = await call('POST', back(`/invoices/${invoiceId}/refund`), {
    token: session.operatorToken,
    body: { reason: 'Goodwill', items: [{ lineItemId: line!.id, amount: '1.00' }] },
  });
  expect(partial.status).toBe(201);
  await until(invoiceState, (state) => state === 'ALLOWS_REFUND', 'the partial refund');
  expect((await vouchers()).map((voucher) => voucher.status)).toEqual(['ACTIVE', 'ACTIVE']);
  expect((await purchase()).state).toBe('GRANTED');

  // The rest: the invoice REFUNDED, the vouchers CANCELED, the purchase REFUNDED.
  const rest = await call('POST', back(`/invoices/${invoiceId}/refund`), {
    token: session.operatorToken,
    body: { reason: 'Returned', items: [{ lineItemId: line!.id, amount: '4.00' }] },
  });
  expect(rest.status).toBe(201);
  await until(invoiceState, (state) => state === 'REFUNDED', 'the full refund');
  const canceled = await until(
    vouchers,
    (rows) => rows.every((voucher) => voucher.status === 'CANCELED'),
    'the vouchers to be canceled',
  );
  expect(canceled.every((voucher) => voucher.canceledAt !== null)).toBe(true);
  expect((await purchase()).state).toBe('REFUNDED');
  // The app shows the purchase refunded and the vouchers no longer apply.
  const mine = await call('GET', front(`/vouchers?branchId=${session.seed.branchId}&active=true`), { token });
  expect(mine.status).toBe(200);
  expect(mine.body.map((voucher: { id: number }) => voucher.id)).not.toEqual(
    expect.arrayContaining([voucherIds[0]]),
  );
}, 60_000);
