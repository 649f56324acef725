// Packages bought once through finance's invoices and payments: a purchase is an OPEN invoice with one
// line (the package's price, gross) and a `voucher_package_purchase` row; the caller bills it (finance's
// billInvoice starts the payment workflow). When the invoice is paid, the package's vouchers are granted,
// once (`settlePackagePurchases`, idempotent: the grant's cause is the purchase).
import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { BusinessUnit } from './entities/BusinessUnit.js';
import { Customer } from './entities/Customer.js';
import { Invoice } from './entities/Invoice.js';
import { tenantIdOf } from './entities/TenantScoped.js';
import { VoucherPackagePurchase } from './entities/VoucherPackagePurchase.js';
import type { Voucherable } from './entities/Voucherable.js';
import { addInvoiceLine } from './invoice-edits.js';
import { nextInvoiceNumber, recordInvoiceCreated } from './invoices.js';
import { recordEvent } from './events.js';
import { cancelVouchersOf, grantVouchersTo } from './voucher-grants.js';
import { declinedInvoiceStates, withdrawDeclinedPurchase } from './purchase-withdrawal.js';
import { DomainError } from '../domain/errors.js';
import type { InvoiceState } from '../domain/finance.js';
import { formatAmount } from '../domain/money.js';
import { purchasableTypes } from '../domain/voucherables.js';

/** Invoice states in which a package counts as paid, and those in which it never will be. */
export const paidInvoiceStates: readonly InvoiceState[] = ['PAID', 'PAID_EXTERNALLY', 'ALLOWS_REFUND'];
export const abandonedInvoiceStates: readonly InvoiceState[] = ['IGNORE', 'CLOSED'];

/**
 * Creates a customer's purchase of a package (Package, RidePass or PricedPromotion template, ACTIVE):
 * an OPEN invoice with the price as its one gross line, and the purchase row, with a PACKAGE_BUY event.
 * A repeated key answers the first purchase. VA111 for another type, W130 for an inactive template, W129
 * for an initial package after a non-initial one. Call it inside a transaction; bill the invoice after.
 */
export async function createPackagePurchase(
  tx: EntityManager,
  input: { template: Voucherable; customerId: number; idempotencyKey: string; actor: string; at: Date },
): Promise<VoucherPackagePurchase> {
  const earlier = await tx.findOne(VoucherPackagePurchase, { idempotencyKey: input.idempotencyKey });
  if (earlier) return earlier;
  const { template } = input;
  if (!purchasableTypes.includes(template.type))
    throw new DomainError('VA111', `a ${template.type} is not sold as a package`);
  if (template.status !== 'ACTIVE' || template.deletedAt)
    throw new DomainError('W130', `the package "${template.name}" is not active`);
  if (!template.price) throw new DomainError('VA120', `the package "${template.name}" has no price`);
  await tx.execute(`select id from customer where tenant_id = ? and id = ? for no key update`, [
    tenantIdOf(tx),
    input.customerId,
  ]);
  if (template.initial) {
    const nonInitial = await tx.count(VoucherPackagePurchase, {
      customerId: input.customerId,
      initial: false,
      state: { $ne: 'FAILED' },
    });
    if (nonInitial > 0)
      throw new DomainError('W129', 'an initial package cannot be bought after another package');
  }
  const unit = await tx.findOneOrFail(BusinessUnit, template.businessUnitId);
  const invoice = tx.create(Invoice, {
    number: await nextInvoiceNumber(tx, tenantIdOf(tx), unit, input.at),
    type: 'REGULAR',
    state: 'OPEN',
    businessUnit: unit,
    customer: tx.getReference(Customer, input.customerId),
    userGroup: null,
    costCenter: null,
    title: (template.invoiceDescription ?? `Package: ${template.name}`).slice(0, 200),
    description: null,
    currency: unit.currency,
    totalNet: '0',
    totalTax: '0',
    totalGross: '0',
    issuedAt: input.at,
    idempotencyKey: `package:${input.idempotencyKey}`,
  });
  await tx.flush();
  await addInvoiceLine(
    tx,
    invoice.id,
    {
      code: 'PACKAGE',
      description: template.invoiceDescription ?? template.name,
      group: 'ADJUSTMENT',
      gross: formatAmount(template.price, unit.currency),
    },
    { actor: input.actor },
  );
  await tx.refresh(invoice);
  recordInvoiceCreated(tx, invoice, {
    branchId: template.branchId,
    rentalIds: [],
    bookingId: null,
    idempotencyKey: `${invoice.idempotencyKey}:INVOICE_CREATED`,
  });
  const purchase = tx.create(VoucherPackagePurchase, {
    voucherable: template,
    customerId: input.customerId,
    businessUnitId: unit.id,
    invoiceId: invoice.id,
    initial: template.initial,
    price: template.price,
    currency: unit.currency,
    idempotencyKey: input.idempotencyKey,
    createdBy: input.actor,
  });
  await tx.flush();
  recordEvent(tx, {
    type: 'PACKAGE_BUY',
    customerId: input.customerId,
    adminSubject: input.actor,
    description: `package "${template.name}" bought`,
    payload: {
      purchaseId: purchase.id,
      voucherableId: template.id,
      invoiceId: invoice.id,
      price: purchase.price,
    },
  });
  await tx.flush();
  return purchase;
}

/**
 * Grants the vouchers of every BILLED purchase whose invoice is paid (GRANTED, once: the purchase row is
 * locked and the grant's cause is `package-purchase:{id}`), and marks FAILED those whose invoice was
 * abandoned. Idempotent; run after a purchase's payment and before the customer's vouchers are read.
 */
export async function settlePackagePurchases(
  tx: EntityManager,
  scope: { customerId?: number; purchaseId?: number },
) {
  const purchases = await tx.find(
    VoucherPackagePurchase,
    {
      state: 'BILLED',
      ...(scope.customerId ? { customerId: scope.customerId } : {}),
      ...(scope.purchaseId ? { id: scope.purchaseId } : {}),
    },
    { lockMode: LockMode.PESSIMISTIC_WRITE, orderBy: { id: 'asc' } },
  );
  for (const purchase of purchases) {
    const invoice = await tx.findOneOrFail(Invoice, purchase.invoiceId, { refresh: true });
    if (paidInvoiceStates.includes(invoice.state)) {
      const at = new Date();
      await grantVouchersTo(tx, {
        voucherableId: purchase.voucherable.id,
        owner: { customerId: purchase.customerId },
        source: { kind: 'PACKAGE', reference: `package-purchase:${purchase.id}` },
        validFrom: at,
        createdBy: purchase.createdBy,
      });
      purchase.state = 'GRANTED';
      purchase.grantedAt = at;
    } else if (
      abandonedInvoiceStates.includes(invoice.state) ||
      // Declined later (a challenge failed, nobody retried): nothing bought, the credit given back.
      (declinedInvoiceStates.includes(invoice.state) &&
        (await withdrawDeclinedPurchase(tx, invoice.id, { requestedBy: purchase.createdBy, at: new Date() })))
    )
      purchase.state = 'FAILED';
  }
  await tx.flush();
  return purchases;
}

/**
 * Called by the refund's last step when an invoice is refunded in full (db/refunds.ts): when the invoice
 * bought a package, the purchase becomes REFUNDED and the vouchers it granted that are still open
 * (PENDING, ACTIVE) are CANCELED — what was used before stays used; a purchase not granted yet is never
 * granted. Idempotent; answers how many vouchers it canceled.
 */
export async function cancelRefundedPackage(em: EntityManager, invoiceId: number): Promise<number> {
  const purchase = await em.findOne(
    VoucherPackagePurchase,
    { invoiceId },
    { lockMode: LockMode.PESSIMISTIC_WRITE, refresh: true },
  );
  if (!purchase || purchase.state === 'REFUNDED' || purchase.state === 'FAILED') return 0;
  const canceled =
    purchase.state === 'GRANTED'
      ? await cancelVouchersOf(em, { kind: 'PACKAGE', reference: `package-purchase:${purchase.id}` })
      : 0;
  purchase.state = 'REFUNDED';
  await em.flush();
  return canceled;
}
