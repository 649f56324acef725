// The voucher suites' common set-up: a session with a rival tenant, a foreign business unit with its own
// finance client, and the helpers both suites use (templates, customers, codes, rental rows).
import { Branch } from '../../db/entities/Branch.js';
import { Customer } from '../../db/entities/Customer.js';
import { Rental } from '../../db/entities/Rental.js';
import { Vehicle } from '../../db/entities/Vehicle.js';
import { type CallOptions, type Reply } from './http.js';
import { grantedClient, otherBusinessUnit, testCustomer } from './invoices.js';
import { startSession, type Session } from './session.js';

/** What a voucher suite's beforeAll hands to its file. */
export interface VoucherSuiteContext {
  session: Session;
  operator: string;
  foreignOperator: string;
  foreignUnit: { unitId: number; branchId: number };
}

/** Registers the suite's beforeAll/afterAll (the context is handed to `ready`) and returns its helpers. */
export function voucherSuite(rivalPrefix: string, ready: (context: VoucherSuiteContext) => void) {
  let session: Session | undefined;
  const current = (): Session => {
    if (!session) throw new Error('the voucher suite has not started');
    return session;
  };

  beforeAll(async () => {
    session = await startSession({ rival: { prefix: rivalPrefix, name: 'Rival Vouchers' } });
    const foreignUnit = await otherBusinessUnit(session, { currency: 'EUR', taxPercentage: '19', scale: 2 });
    const foreignOperator = await grantedClient(session, {
      role: 'Finance',
      businessUnitId: foreignUnit.unitId,
    });
    ready({ session, operator: session.operatorToken, foreignOperator, foreignUnit });
  }, 180_000);

  afterAll(async () => {
    await session?.stop();
  });

  const call = (method: string, path: string, options?: CallOptions): Promise<Reply> =>
    current().stack.call(method, path, options);
  const back = (path: string) => current().stack.back(path);
  const front = (path: string) => current().stack.front(path);

  let counter = 0;
  const freshCode = () => `V${Date.now().toString(36)}${(counter++).toString(36)}`.toUpperCase();

  /** An ACTIVE template of the seeded business unit (created and activated over HTTP); its id. */
  async function activeTemplate(extra: Record<string, unknown> = {}): Promise<number> {
    const reply = await call('POST', back('/voucherables'), {
      token: current().operatorToken,
      body: {
        branchId: current().seed.branchId,
        type: 'Promotion',
        name: 'Test offer',
        benefits: [{ type: 'Discount', amount: '0.1' }],
        ...extra,
      },
    });
    expect([reply.status, reply.body.errorCode]).toEqual([201, undefined]);
    const activated = await call('POST', back(`/voucherables/${reply.body.id}/activate`), {
      token: current().operatorToken,
    });
    expect(activated.body.status).toBe('ACTIVE');
    return reply.body.id;
  }

  /** A fresh customer of the seeded unit and their app token. */
  async function customer(options: { emailVerified?: boolean } = {}): Promise<{ id: number; token: string }> {
    const id = await testCustomer(current(), { emailVerified: options.emailVerified ?? true });
    return { id, token: await current().customerToken(id) };
  }

  const redeem = (token: string, code: string) =>
    call('POST', front(`/vouchers/redeem-code?code=${encodeURIComponent(code)}`), { token });

  /** A rental row of the customer in the given state (as the rental workflow leaves them). */
  async function rentalOf(customerId: number, state: 'ENDED' | 'CANCELLED'): Promise<void> {
    const em = current().em();
    const vehicle = await em.findOneOrFail(
      Vehicle,
      { branch: current().seed.branchId },
      { orderBy: { id: 'asc' } },
    );
    const [{ id }] = await em.execute<[{ id: number }]>(`select nextval('rental_id_seq')::int as id`);
    em.create(Rental, {
      id,
      workflowId: `vouchers-test-rental-${id}`,
      state,
      branch: em.getReference(Branch, current().seed.branchId),
      vehicle: em.getReference(Vehicle, vehicle.id),
      customer: em.getReference(Customer, customerId),
      reservedAt: new Date(Date.now() - 3_600_000),
      startedAt: new Date(Date.now() - 3_000_000),
      endedAt: new Date(),
    });
    await em.flush();
  }

  return { call, back, front, freshCode, activeTemplate, customer, redeem, rentalOf };
}
