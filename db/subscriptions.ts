// User subscriptions' rows: the plans they are bought from (voucherables of type Subscription), the
// purchase, each period's charge (its invoice, billed through finance, and its payment) and every step of
// the transition table written with its event, once per step key. The subscription workflow's activities
// and the API's purchase write through here. See docs/subscriptions.md.
import { LockMode, UniqueConstraintViolationException } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { Decimal } from 'decimal.js';
import { Branch } from './entities/Branch.js';
import { BusinessUnit } from './entities/BusinessUnit.js';
import { Customer } from './entities/Customer.js';
import { Invoice } from './entities/Invoice.js';
import { InvoiceLine } from './entities/InvoiceLine.js';
import { Payment } from './entities/Payment.js';
import { UserSubscription } from './entities/UserSubscription.js';
import { UserSubscriptionPeriod } from './entities/UserSubscriptionPeriod.js';
import { Voucher } from './entities/Voucher.js';
import { Voucherable } from './entities/Voucherable.js';
import { branchAncestry } from './branches.js';
import { recordEvent } from './events.js';
import { nextInvoiceNumber } from './invoices.js';
import { withdrawDeclinedPurchase } from './purchase-withdrawal.js';
import { billInvoiceRecord } from './payment-billing-rows.js';
import { cancelVouchersOf, grantVouchers } from './voucher-grants.js';
import { tenantIdOf } from './entities/TenantScoped.js';
import { DomainError } from '../domain/errors.js';
import { deriveLinePrice, lineUnitPrice } from '../domain/invoice-lines.js';
import { formatAmount } from '../domain/money.js';
import {
  MAX_RUNNING_SUBSCRIPTIONS_PER_CUSTOMER,
  periodVoucherReference,
  runningSubscriptionStates,
  subscriptionVoucherReferencePrefix,
  subscriptionAfter,
  subscriptionRefusal,
  subscriptionTransitions,
  termsRefusal,
  type SubscriptionChargeKind,
  type SubscriptionEvent,
  type SubscriptionTerms,
  type SwitchMode,
} from '../domain/subscription.js';
import {
  formatWallClock,
  isCalendarTimeZone,
  subscriptionIntervals,
  type SubscriptionInterval,
} from '../domain/subscription-calendar.js';

// ---------------------------------------------------------------------------------------------------
// Plans

/** A plan by id: a voucherable of type Subscription, not deleted; SU101 otherwise. */
export async function planById(em: EntityManager, voucherableId: number): Promise<Voucherable> {
  const plan = await em.findOne(Voucherable, { id: voucherableId, type: 'Subscription', deletedAt: null });
  if (!plan) throw new DomainError('SU101', `subscription ${voucherableId} not found`);
  return plan;
}

/** A plan by its code (the app's `subscriptionCode`); SU101 when none. */
export async function planByCode(em: EntityManager, code: string): Promise<Voucherable> {
  const plan = await em.findOne(Voucherable, { code, type: 'Subscription', deletedAt: null });
  if (!plan) throw new DomainError('SU101', `subscription ${JSON.stringify(code)} not found`);
  return plan;
}

/** The commercial terms a plan sells at: SU116/SU112 when its price terms are unusable. */
export function termsOfPlan(plan: Voucherable): SubscriptionTerms {
  const refused = termsRefusal({
    price: plan.price == null ? null : new Decimal(plan.price).toString(),
    initialPrice: plan.initialPrice == null ? null : new Decimal(plan.initialPrice).toString(),
    initialIterations: plan.initialIterations ?? null,
  });
  if (refused) throw new DomainError(refused.code, refused.reason);
  const interval = (plan.interval ?? '').toUpperCase() as SubscriptionInterval;
  if (!subscriptionIntervals.includes(interval))
    throw new DomainError(
      'SU110',
      `the subscription's interval ${JSON.stringify(plan.interval)} is not one of ${subscriptionIntervals.join(', ')}`,
    );
  return {
    voucherableId: plan.id,
    interval,
    price: formatAmount(plan.price!, plan.currency),
    initialPrice: plan.initialPrice == null ? null : formatAmount(plan.initialPrice, plan.currency),
    initialIterations: plan.initialIterations ?? null,
    currency: plan.currency,
  };
}

/**
 * Whether a plan may be bought for a branch: ACTIVE (SU105), of the branch's business unit and, when it
 * names applicable branches, one of them or one of their descendants (SU113).
 */
export async function checkPlanForBranch(
  em: EntityManager,
  plan: Voucherable,
  branch: Branch,
): Promise<void> {
  if (plan.status !== 'ACTIVE') throw new DomainError('SU105', `subscription ${plan.id} is not active`);
  if (branch.businessUnit.id !== plan.businessUnitId)
    throw new DomainError('SU113', `subscription ${plan.id} is not sold at branch ${branch.id}`);
  const applicable = plan.applicableBranchIds ?? [];
  if (applicable.length > 0) {
    const ancestry = await branchAncestry(em, tenantIdOf(em), branch.id);
    if (!ancestry.some((id) => applicable.includes(id)))
      throw new DomainError('SU113', `subscription ${plan.id} is not sold at branch ${branch.id}`);
  }
}

/** Whether a plan is offered at a branch (the app's catalogue): ACTIVE, shown in the app, sold there. */
export async function plansForBranch(em: EntityManager, branch: Branch): Promise<Voucherable[]> {
  const plans = await em.find(
    Voucherable,
    { type: 'Subscription', deletedAt: null, status: 'ACTIVE', businessUnitId: branch.businessUnit.id },
    { orderBy: { id: 'asc' } },
  );
  const ancestry = await branchAncestry(em, tenantIdOf(em), branch.id);
  return plans.filter((plan) => {
    const applicable = plan.applicableBranchIds ?? [];
    return applicable.length === 0 || ancestry.some((id) => applicable.includes(id));
  });
}

// ---------------------------------------------------------------------------------------------------
// Purchase

/** What a purchase asks for. */
export interface NewUserSubscription {
  customerId: number;
  plan: Voucherable;
  branch: Branch;
  createdBy: string;
  idempotencyKey: string;
  at: Date;
  workflowIdOf: (userSubscriptionId: number) => string;
}

/**
 * Creates the subscription row (RENEWING, period 0: its workflow charges the purchase) in the caller's
 * transaction, or answers the one the same request made. SU103 when the customer already runs a
 * subscription of this plan, SU117 at the most running subscriptions, SU105/SU113 for the plan, and the
 * plan's price terms (SU112, SU116, SU110).
 */
export async function createUserSubscription(
  em: EntityManager,
  request: NewUserSubscription,
): Promise<{ subscription: UserSubscription; created: boolean }> {
  const earlier = await em.findOne(UserSubscription, { idempotencyKey: request.idempotencyKey });
  if (earlier) return { subscription: earlier, created: false };
  const customer = await em.findOneOrFail(Customer, request.customerId, {
    lockMode: LockMode.PESSIMISTIC_WRITE,
  });
  await checkPlanForBranch(em, request.plan, request.branch);
  const terms = termsOfPlan(request.plan);
  const unit = await em.findOneOrFail(BusinessUnit, request.plan.businessUnitId);
  if (unit.currency !== terms.currency)
    throw new DomainError(
      'SU116',
      `the subscription is priced in ${terms.currency}, its business unit bills ${unit.currency}`,
    );
  const running = await em.find(UserSubscription, {
    customer: customer.id,
    state: { $in: [...runningSubscriptionStates] },
  });
  if (running.some((row) => row.voucherableId === request.plan.id))
    throw new DomainError('SU103', `customer ${customer.id} already subscribes to ${request.plan.id}`);
  if (running.length >= MAX_RUNNING_SUBSCRIPTIONS_PER_CUSTOMER)
    throw new DomainError(
      'SU117',
      `customer ${customer.id} runs ${running.length} subscriptions, the most allowed`,
    );
  const [{ id }] = await em.execute<[{ id: number }]>(
    `select nextval('user_subscription_id_seq')::int as id`,
  );
  const subscription = em.create(UserSubscription, {
    id,
    customer,
    branch: request.branch,
    businessUnit: unit,
    voucherableId: request.plan.id,
    interval: terms.interval,
    price: terms.price,
    initialPrice: terms.initialPrice,
    initialIterations: terms.initialIterations,
    currency: terms.currency,
    timeZoneId: isCalendarTimeZone(unit.timeZoneId) ? unit.timeZoneId : 'UTC',
    anchorAt: request.at,
    boughtAt: request.at,
    workflowId: request.workflowIdOf(id),
    createdBy: request.createdBy,
    idempotencyKey: request.idempotencyKey,
  });
  recordEvent(em, {
    type: 'USER_SUBSCRIPTION_BOUGHT',
    createdAt: request.at,
    branchId: request.branch.id,
    customerId: customer.id,
    adminSubject: request.createdBy,
    payload: {
      userSubscriptionId: id,
      voucherableId: request.plan.id,
      interval: terms.interval,
      price: terms.price,
    },
  });
  try {
    await em.flush();
  } catch (error) {
    // Two purchases of one plan at once: the partial unique index lets one through.
    if (error instanceof UniqueConstraintViolationException)
      throw new DomainError('SU103', `customer ${customer.id} already subscribes to ${request.plan.id}`);
    throw error;
  }
  return { subscription, created: true };
}

// ---------------------------------------------------------------------------------------------------
// Charges

/** One period's charge, as the workflow asks for it. */
export interface PeriodCharge {
  userSubscriptionId: number;
  kind: SubscriptionChargeKind;
  number: number;
  terms: SubscriptionTerms;
  /** Gross of this period (initial or regular price). */
  price: string;
  startsAt: Date;
  endsAt: Date;
  requestedBy: string;
  /** The workflow step's key: a retried activity finds its charge. */
  idempotencyKey: string;
  gateway: string;
  workflowIdOfPayment: (paymentId: number) => string;
  at: Date;
}

/** What a charge wrote: its period row, its invoice and the payment to await (none: free or credited). */
export interface ChargedPeriod {
  periodId: number;
  invoiceId: number | null;
  payment: { id: number; workflowId: string; businessUnitId: number; customerId: number | null } | null;
  /** PAID when nothing is left to collect (free, or the balance's credit covered it). */
  state: 'CHARGING' | 'PAID';
}

/**
 * Charges a period in the caller's transaction: an invoice of the subscription's business unit with one
 * line (the period's gross, the unit's tax split off), billed through finance (the default balance's
 * credit first, then a payment whose workflow the subscription workflow starts), and the period row.
 * A price of 0 writes no invoice. Idempotent on the step's key.
 */
export async function chargePeriod(em: EntityManager, charge: PeriodCharge): Promise<ChargedPeriod> {
  const earlier = await em.findOne(UserSubscriptionPeriod, { idempotencyKey: charge.idempotencyKey });
  if (earlier) return chargedView(earlier);
  const tenant = tenantIdOf(em);
  const subscription = await em.findOneOrFail(UserSubscription, charge.userSubscriptionId, {
    lockMode: LockMode.PESSIMISTIC_WRITE,
  });
  const plan = await em.findOne(Voucherable, { id: charge.terms.voucherableId });
  const unit = await em.findOneOrFail(BusinessUnit, subscription.businessUnit.id);
  const period = em.create(UserSubscriptionPeriod, {
    userSubscription: subscription,
    number: charge.number,
    kind: charge.kind,
    voucherableId: charge.terms.voucherableId,
    startsAt: charge.startsAt,
    endsAt: charge.endsAt,
    price: formatAmount(charge.price, charge.terms.currency),
    currency: charge.terms.currency,
    idempotencyKey: charge.idempotencyKey,
  });
  let result: ChargedPeriod;
  if (new Decimal(charge.price).lte(0)) {
    period.state = 'PAID';
    await em.flush();
    result = { periodId: period.id, invoiceId: null, payment: null, state: 'PAID' };
  } else {
    const line = deriveLinePrice(
      { gross: charge.price },
      { taxPercentage: unit.taxPercentage, scale: unit.scale, currency: charge.terms.currency },
    );
    const name = plan?.invoiceDescription ?? plan?.name ?? `Subscription ${charge.terms.voucherableId}`;
    const span = `${formatWallClock(charge.startsAt.getTime(), subscription.timeZoneId)} – ${formatWallClock(charge.endsAt.getTime(), subscription.timeZoneId)}`;
    const invoice = em.create(Invoice, {
      number: await nextInvoiceNumber(em, tenant, unit, charge.at),
      type: 'REGULAR',
      state: 'OPEN',
      businessUnit: unit,
      customer: subscription.customer,
      title: `${name}: period ${charge.number}`.slice(0, 200),
      description: span,
      currency: charge.terms.currency,
      totalNet: line.net,
      totalTax: line.tax,
      totalGross: line.gross,
      issuedAt: charge.at,
      idempotencyKey: `${charge.idempotencyKey}:invoice`,
    });
    em.create(InvoiceLine, {
      invoice,
      position: 1,
      code: 'SUBSCRIPTION',
      group: 'ADJUSTMENT',
      phase: null,
      description: `${name} (${span})`.slice(0, 500),
      quantity: '1',
      unit: 'PIECE',
      unitPrice: lineUnitPrice(line.gross, '1', charge.terms.currency),
      net: line.net,
      tax: line.tax,
      gross: line.gross,
      taxPercentage: line.taxPercentage,
      template: null,
    });
    await em.flush();
    recordEvent(em, {
      type: 'INVOICE_CREATED',
      createdAt: charge.at,
      branchId: subscription.branch.id,
      customerId: subscription.customer.id,
      payload: {
        invoiceId: invoice.id,
        number: invoice.number,
        type: invoice.type,
        businessUnitId: unit.id,
        rentalIds: [],
        bookingId: null,
        userSubscriptionId: subscription.id,
        currency: invoice.currency,
        totalNet: invoice.totalNet,
        totalTax: invoice.totalTax,
        totalGross: invoice.totalGross,
        issuedAt: charge.at.toISOString(),
      },
      idempotencyKey: `${charge.idempotencyKey}:INVOICE_CREATED`,
    });
    const billed = await billInvoiceRecord(em, invoice.id, {
      tenant,
      requestedBy: charge.requestedBy,
      idempotencyKey: `${charge.idempotencyKey}:bill`,
      gateway: charge.gateway,
      workflowIdOf: charge.workflowIdOfPayment,
      at: charge.at,
    });
    period.invoice = invoice;
    period.payment = billed.payment;
    if (!billed.payment) period.state = 'PAID';
    subscription.latestInvoice = invoice;
    await em.flush();
    result = chargedView(period);
  }
  return result;
}

function chargedView(period: UserSubscriptionPeriod): ChargedPeriod {
  const payment = period.payment ?? null;
  return {
    periodId: period.id,
    invoiceId: period.invoice?.id ?? null,
    payment:
      payment && period.state === 'CHARGING'
        ? {
            id: payment.id,
            workflowId: payment.workflowId,
            businessUnitId: payment.businessUnit.id,
            customerId: payment.customer?.id ?? null,
          }
        : null,
    state: period.state === 'CHARGING' ? 'CHARGING' : 'PAID',
  };
}

/** The state of a payment (for the workflow's fallback when it could not start the payment as its child). */
export async function paymentStateOf(em: EntityManager, paymentId: number): Promise<Payment['state']> {
  const payment = await em.findOneOrFail(Payment, paymentId, { refresh: true });
  return payment.state;
}

// ---------------------------------------------------------------------------------------------------
// Steps

/** One step of the transition table, as the workflow asks for it. */
export interface SubscriptionStep {
  userSubscriptionId: number;
  event: SubscriptionEvent;
  at: Date;
  requestedBy: string;
  /** The activity's key: the step's event row carries it, so a retried step is written once. */
  idempotencyKey: string;
  /** FIRST_PERIOD, RENEWED, SWITCHED, PURCHASE_FAILED, SWITCH_FAILED, EXPIRE: the charge it settles. */
  periodId?: number | null;
  /** RENEWED, SWITCHED: the new period's calendar, when the terms change with it. */
  calendar?: { anchorAt: Date; anchorPeriod: number } | null;
  /** SWITCH: the plan asked for and how. */
  switchTo?: { voucherableId: number; mode: SwitchMode } | null;
  /** CANCEL: cancel the vouchers the subscription granted. */
  cancelBenefits?: boolean;
}

/**
 * Writes one step of the transition table in the caller's transaction: refuses what the table does not
 * allow from the row's state (its catalogue code), moves state and auto-renewal as the table says, does
 * the step's own writes (a settled charge's period and its vouchers, the new period's calendar and
 * terms, a switch's target, a cancel's vouchers) and records the table's event with the step's key. A
 * step whose event row exists already (a retried activity) writes nothing again.
 */
export async function applySubscriptionStep(
  em: EntityManager,
  step: SubscriptionStep,
): Promise<UserSubscription> {
  const subscription = await em.findOne(UserSubscription, step.userSubscriptionId, {
    lockMode: LockMode.PESSIMISTIC_WRITE,
  });
  if (!subscription)
    throw new DomainError('USU100', `user subscription ${step.userSubscriptionId} not found`);
  // Steps of one subscription run one at a time: a retry of the last one finds its key on the row.
  if (subscription.lastStepKey === step.idempotencyKey) return subscription;
  const refused = subscriptionRefusal(step.event, {
    state: subscription.state,
    autoRenewal: subscription.autoRenewal,
    switchMode: subscription.switchMode ?? null,
  });
  if (refused) throw new DomainError(refused.code, refused.reason);
  const after = subscriptionAfter(step.event, subscription);
  const period = step.periodId ? await em.findOneOrFail(UserSubscriptionPeriod, step.periodId) : null;
  const payload: Record<string, unknown> = { userSubscriptionId: subscription.id, from: subscription.state };
  switch (step.event) {
    case 'FIRST_PERIOD':
    case 'RENEWED':
    case 'SWITCHED': {
      if (!period) throw new Error(`${step.event} settles a charge: name its period`);
      const previousPeriod = subscription.currentPeriod;
      if (step.event === 'SWITCHED' && period.kind === 'SWITCH' && previousPeriod > 0)
        payload.cancelledVouchers = await cancelVouchersOf(em, {
          kind: 'SUBSCRIPTION',
          reference: periodVoucherReference(subscription.id, previousPeriod),
        });
      if (period.voucherableId !== subscription.voucherableId) {
        const terms = termsOfPlan(await planById(em, period.voucherableId));
        Object.assign(subscription, {
          voucherableId: terms.voucherableId,
          interval: terms.interval,
          price: terms.price,
          initialPrice: terms.initialPrice,
          initialIterations: terms.initialIterations,
          currency: terms.currency,
        });
      }
      if (step.calendar) {
        subscription.anchorAt = step.calendar.anchorAt;
        subscription.anchorPeriod = step.calendar.anchorPeriod;
      }
      period.state = 'PAID';
      const validFrom = period.startsAt > step.at ? period.startsAt : step.at;
      const voucherIds = await grantVouchers(em, {
        voucherableId: period.voucherableId,
        customerId: subscription.customer.id,
        source: { kind: 'SUBSCRIPTION', reference: periodVoucherReference(subscription.id, period.number) },
        validFrom,
        validUntil: period.endsAt,
      });
      period.grantedAt = step.at;
      period.voucherIds = voucherIds;
      subscription.currentPeriod = period.number;
      subscription.periodStartedAt = period.startsAt;
      subscription.validUntil = period.endsAt;
      subscription.switchingTargetVoucherableId = null;
      subscription.switchMode = null;
      Object.assign(payload, {
        period: period.number,
        voucherableId: period.voucherableId,
        voucherIds,
        validUntil: period.endsAt.toISOString(),
      });
      break;
    }
    case 'PURCHASE_FAILED':
    case 'SWITCH_FAILED':
    case 'EXPIRE':
      if (period) period.state = 'FAILED';
      // Nothing was bought: the declined charge's invoice is CLOSED and its balance credit given back.
      if (step.event !== 'EXPIRE' && period?.invoice)
        await withdrawDeclinedPurchase(em, period.invoice.id, { requestedBy: step.requestedBy, at: step.at });
      if (step.event === 'SWITCH_FAILED') {
        subscription.switchingTargetVoucherableId = null;
        subscription.switchMode = null;
      }
      if (after.state === 'EXPIRED') subscription.endedAt = step.at;
      break;
    case 'SWITCH': {
      const target = step.switchTo;
      if (!target) throw new Error('SWITCH names its target');
      if (target.voucherableId === subscription.voucherableId)
        throw new DomainError('SU103', `the subscription is of plan ${target.voucherableId} already`);
      const plan = await planById(em, target.voucherableId);
      await checkPlanForBranch(em, plan, await em.findOneOrFail(Branch, subscription.branch.id));
      const terms = termsOfPlan(plan);
      if (terms.currency !== subscription.currency)
        throw new DomainError(
          'SU111',
          `plan ${plan.id} bills ${terms.currency}, the subscription ${subscription.currency}`,
        );
      subscription.switchingTargetVoucherableId = plan.id;
      subscription.switchMode = target.mode;
      Object.assign(payload, { switchingTarget: plan.id, mode: target.mode });
      break;
    }
    case 'REVERT_SWITCH':
      payload.switchingTarget = subscription.switchingTargetVoucherableId;
      subscription.switchingTargetVoucherableId = null;
      subscription.switchMode = null;
      break;
    case 'CANCEL':
      subscription.endedAt = step.at;
      subscription.switchingTargetVoucherableId = null;
      subscription.switchMode = null;
      payload.cancelBenefits = step.cancelBenefits === true;
      if (step.cancelBenefits)
        payload.cancelledVouchers = await cancelVouchersOf(em, {
          kind: 'SUBSCRIPTION',
          reference: `${subscriptionVoucherReferencePrefix(subscription.id)}*`,
        });
      break;
    default:
      break;
  }
  subscription.state = after.state;
  subscription.autoRenewal = after.autoRenewal;
  subscription.lastStepKey = step.idempotencyKey;
  recordEvent(em, {
    type: subscriptionTransitions[step.event].event,
    createdAt: step.at,
    branchId: subscription.branch.id,
    customerId: subscription.customer.id,
    adminSubject: step.requestedBy,
    payload: { ...payload, to: after.state, autoRenewal: after.autoRenewal },
    idempotencyKey: step.idempotencyKey,
  });
  await em.flush();
  return subscription;
}

// ---------------------------------------------------------------------------------------------------
// Reads

/** What the representations add to a row: the remaining figures of the current period's vouchers. */
export interface SubscriptionFigures {
  remainingNumberOfRentals: number | null;
  remainingValueGross: string | null;
  remainingValueNet: string | null;
}

/** The remaining figures of each subscription's current period (its vouchers' sums), by subscription id. */
export async function currentPeriodFigures(
  em: EntityManager,
  rows: readonly UserSubscription[],
): Promise<Map<number, SubscriptionFigures>> {
  const figures = new Map<number, SubscriptionFigures>();
  const references = rows
    .filter((row) => row.currentPeriod > 0)
    .map((row) => periodVoucherReference(row.id, row.currentPeriod));
  const vouchers =
    references.length === 0
      ? []
      : await em.find(Voucher, { sourceKind: 'SUBSCRIPTION', sourceReference: { $in: references } });
  const byReference = new Map<string, Voucher[]>();
  for (const voucher of vouchers) {
    const list = byReference.get(voucher.sourceReference) ?? [];
    list.push(voucher);
    byReference.set(voucher.sourceReference, list);
  }
  const units = new Map<number, BusinessUnit>();
  for (const row of rows) {
    const list =
      row.currentPeriod > 0 ? (byReference.get(periodVoucherReference(row.id, row.currentPeriod)) ?? []) : [];
    const usable = list.filter((voucher) => voucher.status === 'ACTIVE');
    const rentals = usable.filter((voucher) => voucher.remainingNumberOfRentals != null);
    const values = usable.filter((voucher) => voucher.remainingValueGross != null);
    let unit = units.get(row.businessUnit.id);
    if (!unit) {
      unit = await em.findOneOrFail(BusinessUnit, row.businessUnit.id);
      units.set(unit.id, unit);
    }
    const gross = values.reduce((sum, voucher) => sum.plus(voucher.remainingValueGross!), new Decimal(0));
    const net = gross
      .div(new Decimal(unit.taxPercentage).div(100).plus(1))
      .toDecimalPlaces(2, Decimal.ROUND_HALF_UP);
    figures.set(row.id, {
      remainingNumberOfRentals:
        rentals.length === 0
          ? null
          : rentals.reduce((sum, voucher) => sum + voucher.remainingNumberOfRentals!, 0),
      remainingValueGross: values.length === 0 ? null : gross.toFixed(2),
      remainingValueNet: values.length === 0 ? null : net.toFixed(2),
    });
  }
  return figures;
}
