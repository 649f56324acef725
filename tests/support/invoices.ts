// What the invoice and payment API suites share: invoices issued as rentals and bookings issue them
// (`issueInvoice`), customers paying with a sandbox test token, API clients holding a role on a branch
// or business unit, a business unit in another currency, raw downloads, and waiting for a state.
import { randomBytes } from 'node:crypto';
import { ApiClient } from '../../db/entities/ApiClient.js';
import { Branch } from '../../db/entities/Branch.js';
import { BusinessUnit } from '../../db/entities/BusinessUnit.js';
import { Customer } from '../../db/entities/Customer.js';
import { PaymentSource } from '../../db/entities/PaymentSource.js';
import { Rental } from '../../db/entities/Rental.js';
import { Role } from '../../db/entities/Role.js';
import { RoleAssignment } from '../../db/entities/RoleAssignment.js';
import { issueInvoice } from '../../db/invoices.js';
import { inTenantTransaction } from '../../db/orm.js';
import { businessUnitOfBranch } from '../../db/pricing.js';
import { deriveLinePrice, invoiceTotalsOf } from '../../domain/invoice-lines.js';
import type { PriceLineV4, PriceResult } from '../../domain/pricing.js';
import { hashSecret } from '../../platform/secrets.js';
import type { Session } from './session.js';

/** One line of a test invoice: its gross (or net) in the invoice's currency. */
export interface TestLine {
  code?: string;
  description?: string;
  gross?: string;
  net?: string;
}

/**
 * An OPEN invoice issued by `issueInvoice` (db/invoices.ts), as an ended rental's billing issues one:
 * the branch's business unit, its next number, one line per given amount with the unit's tax derived.
 */
export async function issueTestInvoice(
  session: Session,
  spec: {
    customerId: number;
    lines: TestLine[];
    branchId?: number;
    title?: string;
    rentalId?: number;
  },
): Promise<number> {
  const { backend, seed } = session;
  return inTenantTransaction(backend.orm, seed.tenant, async (tx) => {
    const branchId = spec.branchId ?? seed.branchId;
    const unit = await businessUnitOfBranch(tx, branchId);
    const context = { taxPercentage: unit.taxPercentage, scale: unit.scale, currency: unit.currency };
    const lines: PriceLineV4[] = spec.lines.map((line, index) => {
      const { basis, ...amounts } = deriveLinePrice(
        line.net !== undefined ? { net: line.net } : { gross: line.gross ?? '10.00' },
        context,
      );
      return {
        code: line.code ?? `FEE_${index + 1}`,
        group: 'ADJUSTMENT',
        phase: null,
        description: line.description ?? `Fee ${index + 1}`,
        quantity: '1.000',
        unit: 'PIECE',
        unitPrice: basis === 'NET' ? amounts.net : amounts.gross,
        ...amounts,
      };
    });
    const totals = invoiceTotalsOf(lines, unit.currency);
    const price = {
      priceV4: { currency: unit.currency, lines, taxes: [], totals, pricingBundleVersion: null },
    } as unknown as PriceResult;
    const invoice = await issueInvoice(tx, price, {
      tenant: seed.tenant,
      branchId,
      customer: await tx.findOneOrFail(Customer, spec.customerId),
      rental: spec.rentalId ? tx.getReference(Rental, spec.rentalId) : null,
      userGroup: null,
      costCenter: null,
      title: spec.title ?? 'Test invoice',
      at: new Date(),
      idempotencyKey: `test:${randomBytes(6).toString('hex')}`,
    });
    await tx.flush();
    return invoice.id;
  });
}

/** A fresh customer of the seeded business unit; with a token, her default card is that sandbox token. */
export async function testCustomer(
  session: Session,
  options: { token?: string; emailVerified?: boolean; phone?: string; firstName?: string } = {},
): Promise<number> {
  const em = session.em();
  const unit = await em.findOneOrFail(BusinessUnit, session.seed.businessUnitId);
  const suffix = randomBytes(4).toString('hex');
  const customer = em.create(Customer, {
    email: `invoice-test-${suffix}@example.org`,
    firstName: options.firstName ?? `Tess${suffix}`,
    lastName: 'Payer',
    homeBusinessUnit: unit,
    emailIsVerified: options.emailVerified ?? true,
    phoneNumber: options.phone ?? null,
    phoneIsVerified: options.phone !== undefined,
  });
  if (options.token)
    em.create(PaymentSource, {
      customer,
      businessUnit: unit,
      type: 'CARD',
      provider: 'sandbox',
      providerReference: options.token,
      label: `Card ${options.token}`,
      isDefault: true,
    });
  await em.flush();
  return customer.id;
}

/** An API client (scope back) holding a seeded role on a branch or a business unit; its token. */
export async function grantedClient(
  session: Session,
  grant: {
    role: 'Finance' | 'Administrator' | 'Fleet operations';
    branchId?: number;
    businessUnitId?: number;
  },
): Promise<string> {
  const em = session.em();
  const clientId = `invoices-${randomBytes(4).toString('hex')}`;
  const role = await em.findOneOrFail(Role, { name: grant.role });
  em.create(ApiClient, {
    clientId,
    name: clientId,
    secretHash: await hashSecret(`${clientId}-secret`),
    scopes: ['back'],
  });
  em.create(RoleAssignment, {
    subjectType: 'API_CLIENT',
    subjectId: clientId,
    role,
    ...(grant.branchId ? { branch: em.getReference(Branch, grant.branchId) } : {}),
    ...(grant.businessUnitId ? { businessUnit: em.getReference(BusinessUnit, grant.businessUnitId) } : {}),
  });
  await em.flush();
  return session.stack.token(session.seed.tenant, { clientId, clientSecret: `${clientId}-secret` });
}

/** A business unit of its own (currency, tax, scale) with one branch; the demo operator holds no grant on it. */
export async function otherBusinessUnit(
  session: Session,
  spec: { currency: string; taxPercentage: string; scale: number },
): Promise<{ unitId: number; branchId: number }> {
  const em = session.em();
  const code = `U${randomBytes(3).toString('hex')}`;
  const unit = em.create(BusinessUnit, {
    code,
    name: `Unit ${code}`,
    timeZoneId: 'Asia/Tokyo',
    currency: spec.currency,
    taxPercentage: spec.taxPercentage,
    scale: spec.scale,
  });
  const branch = em.create(Branch, {
    name: `Branch ${code}`,
    code: code.toLowerCase(),
    businessUnit: unit,
    timeZoneId: 'Asia/Tokyo',
  });
  await em.flush();
  return { unitId: unit.id, branchId: branch.id };
}

/** A raw request (downloads are not JSON): status, headers and the body's bytes. */
export async function rawCall(
  session: Session,
  path: string,
  options: { token?: string; headers?: Record<string, string>; method?: string } = {},
): Promise<{ status: number; headers: Headers; bytes: Buffer }> {
  const response = await fetch(`${session.stack.baseUrl}${path}`, {
    method: options.method ?? 'GET',
    headers: { ...options.headers, ...(options.token ? { authorization: `Bearer ${options.token}` } : {}) },
  });
  return {
    status: response.status,
    headers: response.headers,
    bytes: Buffer.from(await response.arrayBuffer()),
  };
}

/** Polls until `check` returns a value (not undefined), or fails after `timeoutMs`. */
export async function eventually<T>(
  check: () => Promise<T | undefined>,
  timeoutMs = 20_000,
  what = 'condition',
): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
