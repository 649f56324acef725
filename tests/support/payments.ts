// What the payment, refund and recovery suites share: a customer paying with a sandbox test token, an
// OPEN invoice with lines, billing it (the automatic billing path: the bill, then the payment workflow),
// and a route context for the finance commands of api/shared/payment-commands.ts.
import type { Client } from '@temporalio/client';
import { Decimal } from 'decimal.js';
import type { RouteContext } from '../../api/kernel/route.js';
import { BusinessUnit } from '../../db/entities/BusinessUnit.js';
import { Customer } from '../../db/entities/Customer.js';
import { Invoice } from '../../db/entities/Invoice.js';
import { InvoiceLine } from '../../db/entities/InvoiceLine.js';
import { Payment } from '../../db/entities/Payment.js';
import { PaymentSource } from '../../db/entities/PaymentSource.js';
import { Setting } from '../../db/entities/Setting.js';
import { AUTO_BILL_SETTING_KEY } from '../../domain/finance.js';
import { tenantEm, type MikroORM } from '../../db/orm.js';
import { formatAmount } from '../../domain/money.js';
import type { PaymentGateways } from '../../platform/payment-gateway/port.js';
import { autoBillInvoice } from '../../activities/payment-billing.js';

/** What the helpers need of a backend (the in-process test backend, or a suite's own set-up). */
export interface FinanceBackend {
  orm: MikroORM;
  tenant: string;
  client: Client;
  taskQueue: string;
  paymentGateways: PaymentGateways;
}

/** The FinanceBackend of a started backend (its ORM, Temporal client, task queue and gateways), for `tenant`. */
export function financeOf(
  backend: Omit<FinanceBackend, 'tenant'> & { seed: { tenant: string } },
  tenant = backend.seed.tenant,
): FinanceBackend {
  const { orm, client, taskQueue, paymentGateways } = backend;
  return { orm, tenant, client, taskQueue, paymentGateways };
}

let customers = 0;

/** A fresh customer (of the seeded one's business unit) whose default payment source has this sandbox token. */
export async function payingCustomer(
  backend: Pick<FinanceBackend, 'orm' | 'tenant'>,
  seededCustomerId: number,
  token: string | null,
): Promise<Customer> {
  const em = tenantEm(backend.orm, backend.tenant);
  const seeded = await em.findOneOrFail(Customer, seededCustomerId);
  const customer = em.create(Customer, {
    tenant: seeded.tenant,
    email: `payer-${customers++}-${Date.now()}@example.com`,
    firstName: 'Test',
    lastName: 'Payer',
    homeBusinessUnit: seeded.homeBusinessUnit,
  });
  if (token)
    em.create(PaymentSource, {
      tenant: seeded.tenant,
      customer,
      businessUnit: seeded.homeBusinessUnit!,
      type: 'CARD',
      provider: 'sandbox',
      providerReference: token,
      label: `Card ${token}`,
      isDefault: true,
    });
  await em.flush();
  return customer;
}

/** Makes `token` the customer's default source (a new card, as the app adds one). */
export async function addDefaultSource(
  backend: FinanceBackend,
  customerId: number,
  token: string,
): Promise<void> {
  const em = tenantEm(backend.orm, backend.tenant);
  const customer = await em.findOneOrFail(Customer, customerId);
  for (const source of await em.find(PaymentSource, { customer: customerId })) source.isDefault = false;
  em.create(PaymentSource, {
    tenant: customer.tenant,
    customer,
    businessUnit: customer.homeBusinessUnit!,
    type: 'CARD',
    provider: 'sandbox',
    providerReference: token,
    label: `Card ${token}`,
    isDefault: true,
  });
  await em.flush();
}

/** An OPEN invoice of the customer with one line per gross amount (19 % tax split off each). */
export async function openInvoice(
  backend: FinanceBackend,
  customer: Customer,
  grosses: string[],
): Promise<Invoice> {
  const em = tenantEm(backend.orm, backend.tenant);
  const unit = await em.findOneOrFail(BusinessUnit, customer.homeBusinessUnit!.id);
  const lines = grosses.map((gross) => {
    const value = new Decimal(gross);
    const net = value.div(1.19).toDecimalPlaces(2, Decimal.ROUND_HALF_UP);
    return {
      gross: formatAmount(value, unit.currency),
      net: formatAmount(net, unit.currency),
      tax: formatAmount(value.minus(net), unit.currency),
    };
  });
  const sum = (key: 'net' | 'tax' | 'gross') =>
    formatAmount(
      lines.reduce((total, line) => total.plus(line[key]), new Decimal(0)),
      unit.currency,
    );
  const key = `test-invoice-${customers++}-${Date.now()}`;
  const invoice = em.create(Invoice, {
    number: key,
    type: 'REGULAR',
    state: 'OPEN',
    businessUnit: unit,
    customer,
    title: 'Test invoice',
    currency: unit.currency,
    totalNet: sum('net'),
    totalTax: sum('tax'),
    totalGross: sum('gross'),
    issuedAt: new Date(),
    idempotencyKey: key,
  });
  lines.forEach((line, index) =>
    em.create(InvoiceLine, {
      invoice,
      position: index + 1,
      code: `LINE_${index + 1}`,
      group: 'ADJUSTMENT',
      description: `Line ${index + 1}`,
      quantity: '1',
      unit: 'pcs',
      unitPrice: line.gross,
      net: line.net,
      tax: line.tax,
      gross: line.gross,
      taxPercentage: '19',
    }),
  );
  await em.flush();
  return invoice;
}

/** Bills the invoice and starts its payment's workflow (the automatic billing path); the payment row. */
export async function billAndPay(backend: FinanceBackend, invoiceId: number): Promise<Payment> {
  const payment = await autoBillInvoice(
    {
      orm: backend.orm,
      paymentGateways: backend.paymentGateways,
      temporal: { client: backend.client, taskQueue: backend.taskQueue },
    },
    backend.tenant,
    invoiceId,
    `test-bill-${invoiceId}`,
  );
  if (!payment) throw new Error(`invoice ${invoiceId} was not billed with a payment`);
  return payment;
}

/** A route context as the kernel hands it to a handler, for calling the finance commands directly. */
export function commandContext(backend: FinanceBackend, actor = 'operator:test'): RouteContext {
  return {
    tenant: backend.tenant,
    em: tenantEm(backend.orm, backend.tenant),
    actor,
    traceId: `trace-${customers++}-${Date.now()}`,
    services: {
      orm: backend.orm,
      temporal: backend.client,
      taskQueue: backend.taskQueue,
      paymentGateways: backend.paymentGateways,
    },
  } as unknown as RouteContext;
}

/**
 * Runs `work` with the tenant's `finance.invoice.autoBill` off (its fallback row on branch 0), and removes
 * the row afterwards: the ORM's own flush empties its read cache at once.
 */
export async function withAutoBillOff<T>(orm: MikroORM, tenant: string, work: () => Promise<T>): Promise<T> {
  const em = tenantEm(orm, tenant);
  const off = em.create(Setting, {
    key: AUTO_BILL_SETTING_KEY,
    name: 'Automatic billing',
    area: 'CORE',
    valueType: 'JSON',
    branchIds: [0],
    value: { enabled: false },
  });
  await em.flush();
  try {
    return await work();
  } finally {
    em.remove(off);
    await em.flush();
  }
}
