// Demo data of the finance domain, so `npm start` shows each finance screen filled: invoices in every
// state family with their payments and attempts, a refunded invoice with its refunding invoice, a
// customer whose card keeps declining (her payment is OPEN here; the worker starts its workflow, which
// moves it to AWAITING_RETRY), balances with history, and line-item templates. Only the demo tenant gets
// these records: test and benchmark tenants start without invoices.
import type { EntityManager } from '@mikro-orm/postgresql';
import { Decimal } from 'decimal.js';
import { Balance } from '../entities/Balance.js';
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
import { nextInvoiceNumber } from '../invoices.js';
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

/** Writes a demo invoice with its lines; totals are the sums of the lines. */
async function demoInvoice(tx: EntityManager, tenant: string, unit: BusinessUnit, spec: DemoInvoice) {
  const at = new Date(Date.now() - spec.daysAgo * DAY);
  const sign = spec.refundedInvoice ? -1 : 1;
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
    tenant,
    number: await nextInvoiceNumber(tx, tenant, unit, at),
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
    billedAt: spec.state === 'OPEN' ? null : at,
    settledAt: ['PAID', 'PAID_EXTERNALLY', 'REFUNDED', 'IGNORE', 'IS_REFUND'].includes(spec.state)
      ? at
      : null,
    idempotencyKey: `seed:invoice:${spec.customer.id}:${spec.title}`,
  });
  lines.forEach((line, index) =>
    tx.create(InvoiceLine, {
      tenant,
      invoice,
      position: index + 1,
      code: line.code,
      group: 'ADDITION',
      phase: null,
      description: line.description,
      quantity: '1',
      unit: 'PIECE',
      unitPrice: line.gross,
      net: line.net,
      tax: line.tax,
      gross: line.gross,
      taxPercentage: unit.taxPercentage,
    }),
  );
  return invoice;
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
    paidAt: state === 'PAID' || state === 'DISPUTED' ? invoice.billedAt : null,
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
      startedAt: invoice.billedAt ?? new Date(),
      finishedAt: invoice.billedAt ?? new Date(),
    }),
  );
  return payment;
}

/** The sandbox's record of a seeded charge, so that refunding a seeded paid invoice works. */
async function sandboxCharge(tx: EntityManager, invoice: Invoice, token: string) {
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
        request: { metadata: { invoiceNumber: invoice.number }, description: invoice.title },
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
  demoPayment(tx, tenant, annaPaid, 'PAID', annaCard, ['SUCCEEDED']);
  await sandboxCharge(tx, annaPaid, annaCard?.providerReference ?? 'tok_sandbox_visa');
  const annaRefunded = await demoInvoice(tx, tenant, unit, {
    customer: anna,
    title: 'Airport transfer',
    state: 'REFUNDED',
    daysAgo: 20,
    lines: [{ code: 'TIME', description: 'Driving time', gross: '42.00' }],
  });
  demoPayment(tx, tenant, annaRefunded, 'PAID', annaCard, ['SUCCEEDED']);
  await sandboxCharge(tx, annaRefunded, annaCard?.providerReference ?? 'tok_sandbox_visa');
  await demoInvoice(tx, tenant, unit, {
    customer: anna,
    title: 'Refund: Airport transfer',
    state: 'IS_REFUND',
    daysAgo: 19,
    refundedInvoice: annaRefunded,
    refundReason: 'The vehicle broke down on the way.',
    lines: [{ code: 'TIME', description: 'Driving time', gross: '42.00' }],
  });
  if (group)
    demoPayment(
      tx,
      tenant,
      await demoInvoice(tx, tenant, unit, {
        customer: anna,
        userGroup: group,
        title: 'Business trip to the depot',
        state: 'PAID',
        daysAgo: 5,
        lines: [{ code: 'TIME', description: 'Driving time', gross: '18.40' }],
      }),
      'PAID',
      annaCard,
      ['SUCCEEDED'],
    );

  // Ben pays by invoice: one went to collection and was paid by bank transfer, one is in collection.
  await demoInvoice(tx, tenant, unit, {
    customer: ben,
    title: 'Rental in March',
    state: 'PAID_EXTERNALLY',
    daysAgo: 60,
    lines: [{ code: 'TIME', description: 'Driving time', gross: '56.10' }],
  });
  await demoInvoice(tx, tenant, unit, {
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
  await demoInvoice(tx, tenant, unit, {
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
  const ledger: [Balance, 'MANUAL_CREDIT' | 'VOUCHER' | 'INVOICE' | 'SETTLEMENT', string, string][] = [
    [annaBalance, 'MANUAL_CREDIT', '10.00', 'Welcome credit from customer care'],
    [annaBalance, 'VOUCHER', '5.00', 'Spring promotion voucher'],
    [annaBalance, 'INVOICE', '-4.50', 'Short ride paid from the balance'],
    [annaBalance, 'MANUAL_CREDIT', '0.00', 'Goodwill note without an amount'],
    [benBalance, 'INVOICE', '-23.80', 'Rental in April, booked on account'],
  ];
  if (groupBalance)
    ledger.push(
      [groupBalance, 'INVOICE', '-120.00', 'Business rentals in May'],
      [groupBalance, 'SETTLEMENT', '50.00', 'Partial bank transfer'],
    );
  for (const [index, [balance, kind, amount, description]] of ledger.entries())
    tx.create(BalanceUpdate, {
      tenant,
      balance,
      kind,
      amount: formatAmount(amount, unit.currency),
      description,
      createdBy: 'seed',
      idempotencyKey: `seed:balance:${index}`,
    });
}

/** Finance's step: line-item templates for every tenant, the demo records for the demo tenant. */
export const financeSeed: DomainSeed = {
  afterFlush: (tx: EntityManager, board: SeedBoard) => seedFinance(tx, board),
};
