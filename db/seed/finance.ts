// Demo data of the finance domain, so `npm start` shows each finance screen filled: invoices in every
// state family with their payments and attempts, a refunded invoice with its refunding invoice, a
// customer whose card keeps declining (her payment is OPEN here; the worker starts its workflow, which
// moves it to AWAITING_RETRY), balances with history, and line-item templates. Only the demo tenant gets
// these records: test and benchmark tenants start without invoices.
import type { RequiredEntityData } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { Decimal } from 'decimal.js';
import { Balance } from '../entities/Balance.js';
import { Event } from '../entities/Event.js';
import { EventKey } from '../entities/EventKey.js';
import { BalanceUpdate } from '../entities/BalanceUpdate.js';
import { type BusinessUnit } from '../entities/BusinessUnit.js';
import { type Customer } from '../entities/Customer.js';
import { Invoice } from '../entities/Invoice.js';
import { InvoiceLine } from '../entities/InvoiceLine.js';
import { InvoiceLineTemplate } from '../entities/InvoiceLineTemplate.js';
import { Payment } from '../entities/Payment.js';
import { PaymentAttempt } from '../entities/PaymentAttempt.js';
import { PaymentSource } from '../entities/PaymentSource.js';
import { UserGroup } from '../entities/UserGroup.js';
import { invoiceCreatedPayload, nextInvoiceNumber } from '../invoices.js';
import type { InvoiceState, PaymentAttemptState, PaymentState } from '../../domain/finance.js';
import { formatAmount } from '../../domain/money.js';
import { DEMO_TENANT } from '../seed.js';
import { fromBoard, type DomainSeed, type SeedBoard } from './board.js';

const DAY = 86_400_000;

/** One demo line: a gross amount split into net and tax with the business unit's rate. */
function lineAmounts(gross: string, unit: BusinessUnit) {
  const rate = new Decimal(unit.taxPercentage);
  const grossValue = new Decimal(gross);
  const net = grossValue.div(rate.div(100).plus(1)).toDecimalPlaces(2, Decimal.ROUND_HALF_UP);
  return {
    net: formatAmount(net, unit.currency),
    tax: formatAmount(grossValue.minus(net), unit.currency),
    gross: formatAmount(grossValue, unit.currency),
  };
}

interface DemoInvoice {
  customer: Customer;
  userGroup?: UserGroup;
  title: string;
  state: InvoiceState;
  lines: { code: string; description: string; gross: string }[];
  /** Days before now it was issued (and billed unless OPEN). */
  daysAgo: number;
  refundedInvoice?: Invoice;
  refundReason?: string;
}

/** The lines each demo invoice was written with (a refunding invoice names the line it gives back). */
const linesOfInvoice = new WeakMap<Invoice, InvoiceLine[]>();

/**
 * Writes a demo invoice with its lines; totals are the sums of the lines. A refunding invoice is written
 * as the refund workflow writes one: numbered `{original}-R{id}`, each line naming the line it gives back,
 * the money's way back recorded (through the gateway when the original was charged there).
 */
async function demoInvoice(tx: EntityManager, tenant: string, unit: BusinessUnit, spec: DemoInvoice) {
  const at = new Date(Date.now() - spec.daysAgo * DAY);
  const sign = spec.refundedInvoice ? -1 : 1;
  const refundId = spec.refundedInvoice
    ? (await tx.execute<[{ id: number }]>(`select nextval('invoice_id_seq')::int as id`))[0].id
    : undefined;
  const originalLines = spec.refundedInvoice ? (linesOfInvoice.get(spec.refundedInvoice) ?? []) : [];
  const lines = spec.lines.map((line) => {
    const amounts = lineAmounts(new Decimal(line.gross).times(sign).toString(), unit);
    return { ...line, ...amounts };
  });
  const sum = (key: 'net' | 'tax' | 'gross') =>
    formatAmount(
      lines.reduce((total, line) => total.plus(line[key]), new Decimal(0)),
      unit.currency,
    );
  const invoice = tx.create(Invoice, {
    ...(refundId !== undefined ? { id: refundId } : {}),
    tenant,
    number:
      spec.refundedInvoice && refundId !== undefined
        ? `${spec.refundedInvoice.number}-R${refundId}`
        : await nextInvoiceNumber(tx, tenant, unit, at),
    type: spec.userGroup ? 'BUSINESS' : 'REGULAR',
    state: spec.state,
    businessUnit: unit,
    customer: spec.customer,
    userGroup: spec.userGroup ?? null,
    refundedInvoice: spec.refundedInvoice ?? null,
    refundReason: spec.refundReason ?? null,
    title: spec.title,
    currency: unit.currency,
    totalNet: sum('net'),
    totalTax: sum('tax'),
    totalGross: sum('gross'),
    issuedAt: at,
    billedAt: spec.state === 'OPEN' || spec.refundedInvoice ? null : at,
    settledAt: ['PAID', 'PAID_EXTERNALLY', 'REFUNDED', 'IGNORE', 'IS_REFUND'].includes(spec.state)
      ? at
      : null,
    // Paid outside fleetflow: the whole total (no payment, no balance credit).
    paidExternallyGross: spec.state === 'PAID_EXTERNALLY' ? sum('gross') : null,
    ...(spec.refundedInvoice
      ? {
          refundViaGateway: formatAmount(new Decimal(sum('gross')).neg(), unit.currency),
          refundToBalance: formatAmount('0', unit.currency),
          refundExternally: formatAmount('0', unit.currency),
          paymentReference: `re_sandbox_seed_${spec.refundedInvoice.number}`,
        }
      : {}),
    idempotencyKey: `seed:invoice:${spec.customer.id}:${spec.title}`,
  });
  const written = lines.map((line, index) =>
    tx.create(InvoiceLine, {
      tenant,
      invoice,
      position: index + 1,
      code: line.code,
      group: 'ADDITION',
      phase: null,
      description: line.description,
      quantity: '1.000',
      unit: 'PIECE',
      unitPrice: line.gross,
      net: line.net,
      tax: line.tax,
      gross: line.gross,
      taxPercentage: unit.taxPercentage,
      refundedLine: originalLines[index] ?? null,
    }),
  );
  linesOfInvoice.set(invoice, written);
  return invoice;
}

/** The events a demo invoice's history wrote: INVOICE_CREATED, and INVOICE_BILLED once billed. */
function demoInvoiceEvents(tx: EntityManager, tenant: string, invoice: Invoice, billedFrom: number) {
  const common = { tenant, customerId: invoice.customer.id, adminSubject: 'seed' };
  seedEvent(tx, tenant, `seed:invoice:${invoice.number}:created`, {
    ...common,
    type: 'INVOICE_CREATED',
    createdAt: invoice.issuedAt,
    payload: {
      invoiceId: invoice.id,
      number: invoice.number,
      ...invoiceCreatedPayload(invoice, { rentalIds: [], bookingId: null }),
    },
  });
  if (!invoice.billedAt) return;
  const fromBalance = new Decimal(billedFrom);
  seedEvent(tx, tenant, `invoice:${invoice.id}:billed`, {
    ...common,
    type: 'INVOICE_BILLED',
    createdAt: invoice.billedAt,
    payload: {
      invoiceId: invoice.id,
      from: 'OPEN',
      to: fromBalance.gte(invoice.totalGross) ? 'PAID' : 'BILLED',
      state: fromBalance.gte(invoice.totalGross) ? 'PAID' : 'BILLED',
      gross: invoice.totalGross,
      fromBalance: formatAmount(fromBalance, invoice.currency),
      toPay: formatAmount(new Decimal(invoice.totalGross).minus(fromBalance), invoice.currency),
      currency: invoice.currency,
    },
  });
}

/** An event with its key, as recordEvent writes one (the seed's EntityManager is not a tenant's). */
function seedEvent(
  tx: EntityManager,
  tenant: string,
  idempotencyKey: string,
  fields: Omit<RequiredEntityData<Event>, 'idempotencyKey'>,
) {
  const event = tx.create(Event, { ...fields, tenant, idempotencyKey });
  tx.create(EventKey, { tenant, idempotencyKey, event });
}

/** A demo payment of an invoice with its attempts (each with its own state). */
function demoPayment(
  tx: EntityManager,
  tenant: string,
  invoice: Invoice,
  state: PaymentState,
  source: PaymentSource | null,
  attempts: PaymentAttemptState[],
) {
  const payment = tx.create(Payment, {
    tenant,
    purpose: 'INVOICE',
    state,
    businessUnit: invoice.businessUnit,
    customer: invoice.customer,
    userGroup: invoice.userGroup ?? null,
    invoice,
    paymentSource: source,
    gateway: 'sandbox',
    amount: invoice.totalGross,
    currency: invoice.currency,
    attemptCount: attempts.length,
    gatewayReference: state === 'PAID' || state === 'DISPUTED' ? `ch_sandbox_seed_${invoice.number}` : null,
    failureCode: state === 'FAILED' ? 'insufficient_funds' : null,
    failureMessage: state === 'FAILED' ? 'The card has insufficient funds.' : null,
    workflowId: '',
    requestedBy: 'seed',
    idempotencyKey: `seed:payment:${invoice.number}`,
    // Created at billing; each attempt a minute after the one before; paid when the last one answered.
    createdAt: invoice.billedAt ?? invoice.issuedAt,
    paidAt:
      state === 'PAID' || state === 'DISPUTED'
        ? new Date((invoice.billedAt ?? invoice.issuedAt).getTime() + attempts.length * 60_000)
        : null,
  });
  attempts.forEach((attemptState, index) =>
    tx.create(PaymentAttempt, {
      tenant,
      payment,
      number: index + 1,
      state: attemptState,
      trigger: index === 0 ? 'FIRST' : 'SCHEDULED',
      idempotencyKey: `seed:payment:${invoice.number}/attempt-${index + 1}`,
      gatewayReference: attemptState === 'SUCCEEDED' ? `ch_sandbox_seed_${invoice.number}` : null,
      declineCode: attemptState === 'SOFT_DECLINED' ? 'insufficient_funds' : null,
      declineMessage: attemptState === 'SOFT_DECLINED' ? 'The card has insufficient funds.' : null,
      startedAt: new Date((invoice.billedAt ?? invoice.issuedAt).getTime() + index * 60_000 + 1_000),
      finishedAt: new Date((invoice.billedAt ?? invoice.issuedAt).getTime() + (index + 1) * 60_000),
    }),
  );
  return payment;
}

/** The sandbox's record of a seeded charge, so that refunding a seeded paid invoice works. */
async function sandboxCharge(
  tx: EntityManager,
  tenant: string,
  invoice: Invoice,
  token: string,
  payment: Payment,
) {
  await tx.flush();
  const minor = new Decimal(invoice.totalGross).times(100).toFixed(0);
  await tx.execute(
    `insert into sandbox_gateway_operation (idempotency_key, kind, reference, source_token, amount_minor, currency, status, outcome, created_at, completed_at)
     values (?, 'CHARGE', ?, ?, ?, ?, 'SUCCEEDED', ?, now(), now()) on conflict do nothing`,
    [
      `seed:payment:${invoice.number}/attempt-1`,
      `ch_sandbox_seed_${invoice.number}`,
      token,
      minor,
      invoice.currency,
      // The sandbox's book layout (platform/payment-gateway/sandbox.ts): the request, then the answer.
      JSON.stringify({
        request: {
          metadata: { tenant, paymentId: String(payment.id), invoiceNumber: invoice.number },
          description: invoice.title,
        },
        answer: { status: 'SUCCEEDED', reference: `ch_sandbox_seed_${invoice.number}` },
      }),
    ],
  );
}

/** The demo tenant's finance records (see the file comment); after the flush, so customers have ids. */
export async function seedFinance(tx: EntityManager, board: SeedBoard): Promise<void> {
  const unit = fromBoard(board, 'businessUnit');
  const [anna, ben, clara, deniz] = fromBoard(board, 'customers') as [Customer, Customer, Customer, Customer];
  const tenant = board.tenantId;
  tx.create(InvoiceLineTemplate, {
    tenant: board.tenantId,
    businessUnit: unit,
    code: 'CLEANING',
    description: 'Cleaning fee',
    gross: '25.00',
  });
  tx.create(InvoiceLineTemplate, {
    tenant: board.tenantId,
    businessUnit: unit,
    code: 'KEY_LOST',
    description: 'Lost key or card',
    gross: '80.00',
  });
  tx.create(InvoiceLineTemplate, {
    tenant: board.tenantId,
    businessUnit: unit,
    code: 'TOWING',
    description: 'Towing',
    net: '150.00',
  });
  if (tenant !== DEMO_TENANT) return;

  const sourceOf = (customer: Customer) =>
    tx.findOne(PaymentSource, { tenant, customer, isDefault: true }, { filters: false });
  const annaCard = await sourceOf(anna);
  const claraCard = await sourceOf(clara);
  const denizSource = await sourceOf(deniz);
  const group = await tx.findOne(UserGroup, { tenant, owner: anna }, { filters: false });

  await demoInvoice(tx, tenant, unit, {
    customer: anna,
    title: 'Cleaning after rental',
    state: 'OPEN',
    daysAgo: 0,
    lines: [{ code: 'CLEANING', description: 'Cleaning fee', gross: '25.00' }],
  });
  const annaPaid = await demoInvoice(tx, tenant, unit, {
    customer: anna,
    title: 'Weekend trip',
    state: 'PAID',
    daysAgo: 12,
    lines: [
      { code: 'TIME', description: 'Driving time', gross: '34.90' },
      { code: 'UNLOCK', description: 'Unlock fee', gross: '1.00' },
    ],
  });
  const annaPaidPayment = demoPayment(tx, tenant, annaPaid, 'PAID', annaCard, ['SUCCEEDED']);
  await sandboxCharge(
    tx,
    tenant,
    annaPaid,
    annaCard?.providerReference ?? 'tok_sandbox_visa',
    annaPaidPayment,
  );
  const annaRefunded = await demoInvoice(tx, tenant, unit, {
    customer: anna,
    title: 'Airport transfer',
    state: 'REFUNDED',
    daysAgo: 20,
    lines: [{ code: 'TIME', description: 'Driving time', gross: '42.00' }],
  });
  const annaRefundedPayment = demoPayment(tx, tenant, annaRefunded, 'PAID', annaCard, ['SUCCEEDED']);
  await sandboxCharge(
    tx,
    tenant,
    annaRefunded,
    annaCard?.providerReference ?? 'tok_sandbox_visa',
    annaRefundedPayment,
  );
  const annaRefund = await demoInvoice(tx, tenant, unit, {
    customer: anna,
    title: 'Refund: Airport transfer',
    state: 'IS_REFUND',
    daysAgo: 19,
    refundedInvoice: annaRefunded,
    refundReason: 'The vehicle broke down on the way.',
    lines: [{ code: 'TIME', description: 'Driving time', gross: '42.00' }],
  });
  await sandboxRefund(tx, tenant, annaRefund, annaRefunded);
  const businessTrip = group
    ? await demoInvoice(tx, tenant, unit, {
        customer: anna,
        userGroup: group,
        title: 'Business trip to the depot',
        state: 'PAID',
        daysAgo: 5,
        lines: [{ code: 'TIME', description: 'Driving time', gross: '18.40' }],
      })
    : null;
  if (businessTrip) demoPayment(tx, tenant, businessTrip, 'PAID', annaCard, ['SUCCEEDED']);
  // A short ride Anna paid entirely from her balance's credit (its INVOICE row below names it).
  const annaShortRide = await demoInvoice(tx, tenant, unit, {
    customer: anna,
    title: 'Short ride',
    state: 'PAID',
    daysAgo: 3,
    lines: [{ code: 'TIME', description: 'Riding time', gross: '4.50' }],
  });

  // Ben pays by invoice: one went to collection and was paid by bank transfer, one is in collection.
  const benTransfer = await demoInvoice(tx, tenant, unit, {
    customer: ben,
    title: 'Rental in March',
    state: 'PAID_EXTERNALLY',
    daysAgo: 60,
    lines: [{ code: 'TIME', description: 'Driving time', gross: '56.10' }],
  });
  const benCollection = await demoInvoice(tx, tenant, unit, {
    customer: ben,
    title: 'Rental in April',
    state: 'COLLECTION',
    daysAgo: 30,
    lines: [{ code: 'TIME', description: 'Driving time', gross: '23.80' }],
  });

  // Clara: a payment that failed after the whole retry schedule, a disputed one, one given up as lost.
  const claraFailed = await demoInvoice(tx, tenant, unit, {
    customer: clara,
    title: 'Evening ride',
    state: 'EXCEPTION_PAYING',
    daysAgo: 25,
    lines: [{ code: 'TIME', description: 'Riding time', gross: '7.35' }],
  });
  demoPayment(tx, tenant, claraFailed, 'FAILED', claraCard, [
    'SOFT_DECLINED',
    'SOFT_DECLINED',
    'SOFT_DECLINED',
    'SOFT_DECLINED',
    'SOFT_DECLINED',
  ]);
  const claraDisputed = await demoInvoice(tx, tenant, unit, {
    customer: clara,
    title: 'Morning ride',
    state: 'DISPUTED',
    daysAgo: 40,
    lines: [{ code: 'TIME', description: 'Riding time', gross: '4.20' }],
  });
  demoPayment(tx, tenant, claraDisputed, 'DISPUTED', claraCard, ['SUCCEEDED']);
  const claraLost = await demoInvoice(tx, tenant, unit, {
    customer: clara,
    title: 'Damaged helmet',
    state: 'IGNORE',
    daysAgo: 90,
    lines: [{ code: 'KEY_LOST', description: 'Helmet replacement', gross: '30.00' }],
  });

  // Deniz's card declines: the payment starts OPEN and the worker's first attempt leaves it AWAITING_RETRY.
  const denizBilled = await demoInvoice(tx, tenant, unit, {
    customer: deniz,
    title: 'Scooter ride',
    state: 'BILLED',
    daysAgo: 0,
    lines: [{ code: 'TIME', description: 'Riding time', gross: '5.60' }],
  });
  demoPayment(tx, tenant, denizBilled, 'OPEN', denizSource, []);

  // Balances with history: Anna's credit, Ben's debt, the business account's running account.
  const annaBalance = tx.create(Balance, {
    tenant,
    businessUnit: unit,
    customer: anna,
    name: 'Anna Schmidt',
    currency: unit.currency,
    isDefault: true,
    systemCreated: true,
  });
  const benBalance = tx.create(Balance, {
    tenant,
    businessUnit: unit,
    customer: ben,
    name: 'Ben Müller',
    currency: unit.currency,
    isDefault: true,
    systemCreated: true,
  });
  const groupBalance = group
    ? tx.create(Balance, {
        tenant,
        businessUnit: unit,
        userGroup: group,
        name: group.name,
        currency: unit.currency,
        isDefault: true,
        systemCreated: true,
      })
    : null;
  await tx.flush();
  // The id every payment workflow runs under (workflows/payment.messages.ts names it the same way).
  for (const payment of await tx.find(Payment, { tenant, requestedBy: 'seed' }, { filters: false }))
    payment.workflowId = `payment:${tenant}:${payment.id}`;
  // Each row as the ledger writes one (db/balance-ledger.ts): in order, each with its BALANCE_UPDATED and
  // the value before and after it; INVOICE rows name the invoice their credit paid.
  const ledger: {
    balance: Balance;
    kind: 'MANUAL_CREDIT' | 'VOUCHER' | 'INVOICE';
    amount: string;
    description: string;
    daysAgo: number;
    invoice?: Invoice;
  }[] = [
    {
      balance: annaBalance,
      kind: 'MANUAL_CREDIT',
      amount: '10.00',
      description: 'Welcome credit from customer care',
      daysAgo: 30,
    },
    {
      balance: annaBalance,
      kind: 'VOUCHER',
      amount: '5.00',
      description: 'Spring promotion voucher',
      daysAgo: 10,
    },
    {
      balance: annaBalance,
      kind: 'INVOICE',
      amount: '-4.50',
      description: `Invoice ${annaShortRide.number}`,
      daysAgo: 3,
      invoice: annaShortRide,
    },
    {
      balance: annaBalance,
      kind: 'MANUAL_CREDIT',
      amount: '0.00',
      description: 'Goodwill note without an amount',
      daysAgo: 2,
    },
    {
      balance: benBalance,
      kind: 'MANUAL_CREDIT',
      amount: '-12.00',
      description: 'Helmet deductible booked on account',
      daysAgo: 28,
    },
  ];
  if (groupBalance)
    ledger.push(
      {
        balance: groupBalance,
        kind: 'MANUAL_CREDIT',
        amount: '-120.00',
        description: 'Business rentals in May, booked on account',
        daysAgo: 20,
      },
      {
        balance: groupBalance,
        kind: 'MANUAL_CREDIT',
        amount: '50.00',
        description: 'Partial bank transfer',
        daysAgo: 8,
      },
    );
  const values = new Map<Balance, Decimal>();
  for (const [index, row] of ledger.entries()) {
    const amount = formatAmount(row.amount, unit.currency);
    const before = values.get(row.balance) ?? new Decimal(0);
    const after = before.plus(amount);
    values.set(row.balance, after);
    const createdAt = new Date(Date.now() - row.daysAgo * DAY);
    const idempotencyKey = row.invoice ? `invoice:${row.invoice.id}:balance-credit` : `seed:balance:${index}`;
    const update = tx.create(BalanceUpdate, {
      tenant,
      balance: row.balance,
      kind: row.kind,
      amount,
      description: row.description,
      createdBy: 'seed',
      idempotencyKey,
      invoice: row.invoice ?? null,
      createdAt,
    });
    await tx.flush();
    seedEvent(tx, tenant, `${idempotencyKey}/event`, {
      type: 'BALANCE_UPDATED',
      createdAt,
      customerId: row.balance.customer?.id ?? null,
      adminSubject: 'seed',
      description: row.description,
      payload: {
        balanceId: row.balance.id,
        balanceUpdateId: update.id,
        kind: row.kind,
        amount,
        currency: unit.currency,
        invoiceId: row.invoice?.id ?? null,
        paymentId: null,
        voucherId: null,
        valueBefore: formatAmount(before, unit.currency),
        valueAfter: formatAmount(after, unit.currency),
      },
    });
  }

  // Each invoice's history on its timeline, as the operations wrote it.
  const billed = [
    annaPaid,
    annaRefunded,
    annaShortRide,
    benTransfer,
    benCollection,
    claraFailed,
    claraDisputed,
    claraLost,
    denizBilled,
  ];
  if (businessTrip) billed.push(businessTrip);
  for (const invoice of billed) demoInvoiceEvents(tx, tenant, invoice, invoice === annaShortRide ? 4.5 : 0);
  demoInvoiceEvents(tx, tenant, annaRefund, 0);
  seedEvent(tx, tenant, `refund:${annaRefund.id}:INVOICE_REFUNDED`, {
    type: 'INVOICE_REFUNDED',
    createdAt: annaRefund.settledAt ?? annaRefund.issuedAt,
    customerId: anna.id,
    adminSubject: 'seed',
    payload: {
      invoiceId: annaRefunded.id,
      refundInvoiceId: annaRefund.id,
      currency: unit.currency,
      from: 'REFUND_IN_PROGRESS',
      to: 'REFUNDED',
      gross: annaRefunded.totalGross,
      viaGateway: annaRefunded.totalGross,
      toBalance: formatAmount('0', unit.currency),
      externally: formatAmount('0', unit.currency),
      reference: annaRefund.paymentReference,
      refundedGross: annaRefunded.totalGross,
      paidGross: annaRefunded.totalGross,
    },
  });
  await tx.flush();
}

/** The sandbox's record of the seeded refund, the gateway part of the refunding invoice. */
async function sandboxRefund(tx: EntityManager, tenant: string, refund: Invoice, original: Invoice) {
  // Written alone: an invoice with its id given does not share an insert batch with generated ids.
  await tx.flush();
  const minor = new Decimal(refund.refundViaGateway ?? 0).times(100).toFixed(0);
  await tx.execute(
    `insert into sandbox_gateway_operation (idempotency_key, kind, reference, source_token, amount_minor, currency, status, outcome, created_at, completed_at)
     values (?, 'REFUND', ?, '', ?, ?, 'SUCCEEDED', ?, now(), now()) on conflict do nothing`,
    [
      `seed:refund:${tenant}:${refund.number}`,
      refund.paymentReference,
      minor,
      refund.currency,
      JSON.stringify({
        request: {
          metadata: { tenant, invoiceId: String(original.id), refundInvoiceId: String(refund.id) },
          reason: refund.refundReason,
          chargeReference: `ch_sandbox_seed_${original.number}`,
        },
        answer: { status: 'SUCCEEDED', reference: refund.paymentReference },
      }),
    ],
  );
}

/** Finance's step: line-item templates for every tenant, the demo records for the demo tenant. */
export const financeSeed: DomainSeed = {
  afterFlush: (tx: EntityManager, board: SeedBoard) => seedFinance(tx, board),
};
