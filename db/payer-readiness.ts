// Payer readiness before any charge: every purchase that bills (a package, a subscription's first
// period, a booking that carries a price or a fee, bought reservation minutes) asks it BEFORE it writes
// anything, so a payer who cannot pay gets 422 P104 and no invoice, no ledger row, no grant. The rule is
// the start requirement PAYMENT_METHOD's (`payerCanBeCharged`, domain/rental-requirements.ts): a payment
// source, or a payer invoiced by transfer (paymentState INVOICING, whose invoices wait for a transfer:
// finance's bill reads it, db/payment-billing-rows.ts). See docs/finance.md, "Readiness before a charge".
import type { EntityManager } from '@mikro-orm/postgresql';
import { Decimal } from 'decimal.js';
import { Balance } from './entities/Balance.js';
import { Customer } from './entities/Customer.js';
import { PaymentSource } from './entities/PaymentSource.js';
import { UserGroup } from './entities/UserGroup.js';
import { balanceValue } from './balance-ledger.js';
import { DomainError } from '../domain/errors.js';
import { payerCanBeCharged, type PayerFact } from '../domain/rental-requirements.js';

/** Who pays: a customer, or a business account (db/payments.ts's PaymentOwner; finance bills read this). */
export interface PaymentOwner {
  customerId: number | null;
  userGroupId: number | null;
}

/** The payer's facts: the business account's when one pays, else the customer's. */
async function payerFact(em: EntityManager, owner: PaymentOwner): Promise<PayerFact | null> {
  if (owner.userGroupId !== null) {
    const group = await em.findOne(UserGroup, owner.userGroupId, { fields: ['paymentState'] });
    if (!group) return null;
    const sources = await em.find(PaymentSource, { group: owner.userGroupId }, { fields: ['type'] });
    return { paymentState: group.paymentState, paymentSources: sources.map((s) => ({ type: s.type })) };
  }
  if (owner.customerId === null) return null;
  const customer = await em.findOne(Customer, owner.customerId, { fields: ['paymentState'] });
  if (!customer) return null;
  const sources = await em.find(PaymentSource, { customer: owner.customerId }, { fields: ['type'] });
  return { paymentState: customer.paymentState, paymentSources: sources.map((s) => ({ type: s.type })) };
}

/** What a one-off purchase would bill: its default balance's credit may cover it all. */
export interface PurchaseAmount {
  businessUnitId: number;
  /** Gross, decimal string. */
  gross: string;
  currency: string;
}

/**
 * Throws P104 (nothing written) unless the payer can pay: a payment source, INVOICING, or (for a one-off
 * purchase given with `purchase`) a default balance whose credit covers the whole gross price, so no
 * charge follows at all. Renewing purchases (subscriptions) are not given an amount: their later periods
 * are charged, so they need a payment method.
 */
export async function assertPayerReady(
  em: EntityManager,
  owner: PaymentOwner,
  purchase?: PurchaseAmount,
): Promise<void> {
  const fact = await payerFact(em, owner);
  if (fact && payerCanBeCharged(fact)) return;
  if (purchase && new Decimal(purchase.gross).gt(0)) {
    const balance = await em.findOne(Balance, {
      ...(owner.userGroupId !== null ? { userGroup: owner.userGroupId } : { customer: owner.customerId }),
      businessUnit: purchase.businessUnitId,
      isDefault: true,
      deletedAt: null,
    });
    if (
      balance &&
      balance.currency === purchase.currency &&
      new Decimal(await balanceValue(em, balance.id)).gte(purchase.gross)
    )
      return;
  }
  throw new DomainError(
    'P104',
    owner.userGroupId !== null ? 'the business account has no payment method' : 'add a payment method first',
  );
}
