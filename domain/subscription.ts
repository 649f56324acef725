// Pure rules of user subscriptions: their states and auto-renewal states, the one transition table the
// workflow's update validators, the workflow's loop and the activities' writes read (as rentals and
// bookings do), and what each period charges. No I/O: safe inside workflows. See docs/subscriptions.md.
import { Decimal } from 'decimal.js';
import type { ErrorCode } from './errors.js';
import type { SubscriptionInterval } from './subscription-calendar.js';

/** The spec's user subscription states. */
export const userSubscriptionStates = ['RENEWING', 'EXPIRED', 'SWITCHING', 'SWITCHED', 'CANCELLED'] as const;
export type UserSubscriptionState = (typeof userSubscriptionStates)[number];

/** The spec's auto-renewal states: FAILED is a payment problem, not a cancellation. */
export const autoRenewalStates = ['ACTIVE', 'INACTIVE', 'FAILED'] as const;
export type AutoRenewalState = (typeof autoRenewalStates)[number];

/** How a tier switch takes effect: now (charged now, a new calendar from now) or at the period's end. */
export const switchModes = ['IMMEDIATE', 'DELAYED'] as const;
export type SwitchMode = (typeof switchModes)[number];

/** States a subscription's workflow ends in. */
export const endedSubscriptionStates: readonly UserSubscriptionState[] = ['EXPIRED', 'CANCELLED'];

/** States of a running subscription (the "active" ones SU103 and SU117 count). */
export const runningSubscriptionStates = [
  'RENEWING',
  'SWITCHING',
  'SWITCHED',
] as const satisfies readonly UserSubscriptionState[];

/** What moves a user subscription: its customer, operators, its calendar and its payments. */
export type SubscriptionEvent =
  | 'FIRST_PERIOD' // the purchase's payment succeeded: period 1 starts, its benefits are granted
  | 'PURCHASE_FAILED' // the purchase's payment failed: the subscription never starts
  | 'RENEW' // a period ended with auto-renewal on: the next period is charged
  | 'RENEWED' // the renewal's payment succeeded: the next period starts
  | 'RENEWAL_FAILED' // the renewal's payment was declined: it may still succeed on a retry
  | 'EXPIRE' // the period ended without a renewal (auto-renewal off, or the renewal's payment failed for good)
  | 'CANCEL_AUTO_RENEWAL' // the app's POST cancel: no renewal at the period's end
  | 'REACTIVATE' // the app's POST reactivate: renews again
  | 'RETRY_RENEWAL' // the app's POST renew: the failed renewal's payment is retried now
  | 'SWITCH' // a tier switch is asked for (SWITCHING with its target)
  | 'SWITCHED' // the switch took effect (immediately once paid, or at the period's end)
  | 'SWITCH_FAILED' // an immediate switch's payment failed: the current plan goes on
  | 'REVERT_SWITCH' // DELETE while a delayed switch is pending: back to the current plan
  | 'CANCEL'; // an operator's cancel or the app's DELETE: CANCELLED now

/** One row of the transition table. */
export interface SubscriptionTransition {
  /** States it starts from; the refusal below otherwise. */
  from: readonly UserSubscriptionState[];
  /** Auto-renewal states it starts from (any when absent). */
  autoRenewalFrom?: readonly AutoRenewalState[];
  /** Where the state goes (kept when absent). */
  to?: UserSubscriptionState;
  /** Where auto-renewal goes (kept when absent). */
  autoRenewalTo?: AutoRenewalState;
  /** The event row each transition writes. */
  event: string;
  /** Whether the step must wait for no other step (the validators refuse it meanwhile, SU118). */
  exclusive: boolean;
}

const running = runningSubscriptionStates;

/**
 * The user subscription's transitions (docs/subscriptions.md has the diagram): the workflow's update
 * validators refuse what it does not allow (`subscriptionRefusal`), the loop follows it, and the
 * activities take their new state and their event from it.
 */
export const subscriptionTransitions: Readonly<Record<SubscriptionEvent, SubscriptionTransition>> = {
  FIRST_PERIOD: {
    from: ['RENEWING'],
    autoRenewalTo: 'ACTIVE',
    event: 'USER_SUBSCRIPTION_STARTED',
    exclusive: true,
  },
  PURCHASE_FAILED: {
    from: ['RENEWING'],
    to: 'EXPIRED',
    autoRenewalTo: 'FAILED',
    event: 'USER_SUBSCRIPTION_PURCHASE_FAILED',
    exclusive: true,
  },
  RENEW: {
    from: running,
    autoRenewalFrom: ['ACTIVE'],
    event: 'USER_SUBSCRIPTION_RENEWAL_CHARGED',
    exclusive: true,
  },
  RENEWED: {
    from: ['RENEWING', 'SWITCHED'],
    to: 'RENEWING',
    autoRenewalTo: 'ACTIVE',
    event: 'USER_SUBSCRIPTION_RENEWED',
    exclusive: true,
  },
  RENEWAL_FAILED: {
    from: running,
    autoRenewalTo: 'FAILED',
    event: 'USER_SUBSCRIPTION_RENEWAL_FAILED',
    exclusive: true,
  },
  EXPIRE: { from: running, to: 'EXPIRED', event: 'USER_SUBSCRIPTION_EXPIRED', exclusive: true },
  CANCEL_AUTO_RENEWAL: {
    from: ['RENEWING', 'SWITCHED'],
    autoRenewalFrom: ['ACTIVE'],
    autoRenewalTo: 'INACTIVE',
    event: 'USER_SUBSCRIPTION_AUTO_RENEWAL_CANCELLED',
    exclusive: true,
  },
  REACTIVATE: {
    from: ['RENEWING', 'SWITCHED'],
    autoRenewalFrom: ['INACTIVE'],
    autoRenewalTo: 'ACTIVE',
    event: 'USER_SUBSCRIPTION_REACTIVATED',
    exclusive: true,
  },
  RETRY_RENEWAL: {
    from: ['RENEWING', 'SWITCHED', 'SWITCHING'],
    autoRenewalFrom: ['FAILED'],
    event: 'USER_SUBSCRIPTION_RENEWAL_RETRIED',
    exclusive: false,
  },
  SWITCH: {
    from: ['RENEWING', 'SWITCHED'],
    autoRenewalFrom: ['ACTIVE'],
    to: 'SWITCHING',
    event: 'USER_SUBSCRIPTION_SWITCH_REQUESTED',
    exclusive: true,
  },
  SWITCHED: {
    from: ['SWITCHING'],
    to: 'SWITCHED',
    autoRenewalTo: 'ACTIVE',
    event: 'USER_SUBSCRIPTION_SWITCHED',
    exclusive: true,
  },
  SWITCH_FAILED: {
    from: ['SWITCHING'],
    to: 'RENEWING',
    event: 'USER_SUBSCRIPTION_SWITCH_FAILED',
    exclusive: true,
  },
  REVERT_SWITCH: {
    from: ['SWITCHING'],
    to: 'RENEWING',
    event: 'USER_SUBSCRIPTION_SWITCH_REVERTED',
    exclusive: true,
  },
  CANCEL: {
    from: running,
    to: 'CANCELLED',
    autoRenewalTo: 'INACTIVE',
    event: 'USER_SUBSCRIPTION_CANCELLED',
    exclusive: false,
  },
};

/** What the refusal of a transition depends on. */
export interface SubscriptionFacts {
  state: UserSubscriptionState;
  autoRenewal: AutoRenewalState;
  /** A delayed switch waits for the period's end (REVERT_SWITCH needs one; an immediate one is being charged). */
  switchMode?: SwitchMode | null;
}

/** A refusal: its catalogue code and the reason given with it. */
export interface SubscriptionRefusal {
  code: ErrorCode;
  reason: string;
}

/**
 * Why the table refuses an event of a subscription, or undefined when it allows it: SU107 when it was
 * cancelled, SU104 when it expired, SU108 when auto-renewal is already off (cancel, switch, renew),
 * SU103 when it already renews (reactivate, renew) or already switches, SU105 for the rest.
 */
export function subscriptionRefusal(
  event: SubscriptionEvent,
  facts: SubscriptionFacts,
): SubscriptionRefusal | undefined {
  const row = subscriptionTransitions[event];
  if (!row.from.includes(facts.state)) {
    if (facts.state === 'CANCELLED') return { code: 'SU107', reason: 'the subscription was cancelled' };
    if (facts.state === 'EXPIRED') return { code: 'SU104', reason: 'the subscription expired' };
    if (facts.state === 'SWITCHING')
      return { code: 'SU103', reason: 'a switch to another subscription is pending' };
    return { code: 'SU105', reason: `the subscription is ${facts.state}` };
  }
  if (event === 'REVERT_SWITCH' && facts.switchMode !== 'DELAYED')
    return { code: 'SU103', reason: 'an immediate switch is being charged; it cannot be reverted' };
  if (row.autoRenewalFrom && !row.autoRenewalFrom.includes(facts.autoRenewal)) {
    if (facts.autoRenewal === 'INACTIVE') return { code: 'SU108', reason: 'auto-renewal is cancelled' };
    if (facts.autoRenewal === 'ACTIVE')
      return { code: 'SU103', reason: 'the subscription renews automatically already' };
    return { code: 'SU105', reason: 'the last renewal payment failed; renew it first' };
  }
  return undefined;
}

/** Where a transition takes a subscription's state and auto-renewal. */
export function subscriptionAfter(
  event: SubscriptionEvent,
  facts: SubscriptionFacts,
): { state: UserSubscriptionState; autoRenewal: AutoRenewalState } {
  const row = subscriptionTransitions[event];
  return { state: row.to ?? facts.state, autoRenewal: row.autoRenewalTo ?? facts.autoRenewal };
}

/** The commercial terms of a plan a subscription pins at purchase (and at a switch). */
export interface SubscriptionTerms {
  /** The plan (a voucherable of type Subscription). */
  voucherableId: number;
  interval: SubscriptionInterval;
  /** Gross per period after the initial ones, decimal string. */
  price: string;
  /** Gross of each of the first `initialIterations` periods, or null. */
  initialPrice: string | null;
  initialIterations: number | null;
  currency: string;
}

/**
 * What period `n` of a plan costs (gross, decimal string): `initialPrice` for the first
 * `initialIterations` periods counted from `firstPeriodOfTerms` (the purchase's or switch's first period),
 * `price` after them.
 */
export function periodPrice(terms: SubscriptionTerms, n: number, firstPeriodOfTerms = 1): string {
  const index = n - firstPeriodOfTerms + 1;
  if (terms.initialPrice !== null && terms.initialIterations !== null && index <= terms.initialIterations)
    return terms.initialPrice;
  return terms.price;
}

/**
 * Checks a plan's price terms: a price ≥ 0 (SU116), initialPrice and initialIterations together
 * (SU112), an initial price ≥ 0 and 1-120 initial periods (SU116); undefined when valid.
 */
export function termsRefusal(terms: {
  price: string | null | undefined;
  initialPrice?: string | null;
  initialIterations?: number | null;
}): SubscriptionRefusal | undefined {
  const amount = (value: string) => /^\d{1,9}(\.\d{1,4})?$/.test(value) && new Decimal(value).gte(0);
  if (terms.price == null || !amount(terms.price))
    return { code: 'SU116', reason: 'the plan needs a price ≥ 0 (a decimal string)' };
  const hasPrice = terms.initialPrice != null;
  const hasIterations = terms.initialIterations != null;
  if (hasPrice !== hasIterations)
    return { code: 'SU112', reason: 'initialPrice and initialIterations are given together or not at all' };
  if (hasPrice && !amount(terms.initialPrice!))
    return { code: 'SU116', reason: 'the initial price must be ≥ 0 (a decimal string)' };
  if (
    hasIterations &&
    (!Number.isInteger(terms.initialIterations) ||
      terms.initialIterations! < 1 ||
      terms.initialIterations! > 120)
  )
    return { code: 'SU116', reason: 'initialIterations must be 1-120' };
  return undefined;
}

/** The source reference of the vouchers a subscription's period grants (idempotent per period). */
export function periodVoucherReference(userSubscriptionId: number, period: number): string {
  return `${subscriptionVoucherReferencePrefix(userSubscriptionId)}${period}`;
}

/** What every period's voucher reference of a subscription starts with (cancelBenefits cancels them all). */
export function subscriptionVoucherReferencePrefix(userSubscriptionId: number): string {
  return `user-subscription:${userSubscriptionId}:period:`;
}

/** At most this many running subscriptions per customer (SU117). */
export const MAX_RUNNING_SUBSCRIPTIONS_PER_CUSTOMER = 5;

/** Why a subscription charges: its purchase, a renewal, an immediate switch. */
export const subscriptionChargeKinds = ['PURCHASE', 'RENEWAL', 'SWITCH'] as const;
export type SubscriptionChargeKind = (typeof subscriptionChargeKinds)[number];

/** A charge's state: under way, paid (or free), or failed for good. */
export const subscriptionChargeStates = ['CHARGING', 'PAID', 'FAILED'] as const;
export type SubscriptionChargeState = (typeof subscriptionChargeStates)[number];
