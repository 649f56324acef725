// The invoice representation both interfaces use: an invoice with its line items, when it was billed and
// settled, its payments in short and the invoices refunding it. Amounts are decimal strings in the
// invoice currency's minor digits; the totals are the sums of the lines.
import { Type, type Static } from '@sinclair/typebox';
import type { EntityManager } from '@mikro-orm/postgresql';
import { Invoice } from '../../db/entities/Invoice.js';
import { InvoiceLine } from '../../db/entities/InvoiceLine.js';
import { Payment } from '../../db/entities/Payment.js';
import { invoiceStates, invoiceTypes } from '../../domain/finance.js';
import { formatAmount, formatUnitPrice } from '../../domain/money.js';
import { priceLineGroups, pricePhases } from '../../domain/pricing.js';
import { component, DateTime, Id, Nullable, StringEnum } from '../kernel/schemas.js';
import { PricingVersionRef } from './pricing-estimates.js';
import { InvoicePaymentSummary, toInvoicePaymentSummary } from './payment-representation.js';

const Money = (description: string) => Type.String({ description: `${description} Decimal string.` });

export const InvoiceState = StringEnum(invoiceStates);
export const InvoiceType = StringEnum(invoiceTypes);

export const InvoiceLineSchema = component(
  'InvoiceLine',
  Type.Object(
    {
      id: Id(),
      position: Type.Integer(),
      code: Type.String(),
      group: StringEnum(priceLineGroups),
      phase: Nullable(StringEnum(pricePhases)),
      description: Type.String(),
      quantity: Type.String(),
      unit: Type.String(),
      unitPrice: Money(
        'Per unit, in the basis of the pricing version (gross or net) or of the amount an operator set.',
      ),
      net: Money('Net.'),
      tax: Money('Tax.'),
      gross: Money('Gross.'),
      taxPercentage: Type.String(),
      templateId: Nullable(Id({ description: 'The line-item template a manual line was made from.' })),
      refundedLineId: Nullable(
        Id({ description: 'On a refunding invoice: the line it gives money back for.' }),
      ),
    },
    { additionalProperties: false },
  ),
);

export const InvoiceTotals = Type.Object(
  { net: Money('Net.'), tax: Money('Tax.'), gross: Money('Gross.') },
  { additionalProperties: false, description: 'The sums of the lines.' },
);

export const InvoiceSchema = component(
  'Invoice',
  Type.Object(
    {
      id: Id(),
      number: Type.String({ description: 'Per business unit and year, gapless.' }),
      type: InvoiceType,
      state: StringEnum(invoiceStates, {
        description:
          'OPEN while editable; BILLED once billed (a payment starts), then as its payment goes (IN_PAYMENT, PAID, EXCEPTION_PAYING, …). The state alone does not prove a payment: see `payments`.',
      }),
      businessUnitId: Id(),
      guserId: Id({ description: 'The customer.' }),
      rentalId: Nullable(Id()),
      bookingId: Nullable(Id()),
      userGroupId: Nullable(Id()),
      costCenterId: Nullable(Id()),
      refundedInvoiceId: Nullable(Id({ description: 'Set on a refunding invoice (IS_REFUND).' })),
      refundingInvoiceIds: Type.Array(Id(), {
        description: 'The invoices refunding this one, oldest first.',
      }),
      title: Type.String(),
      description: Nullable(Type.String()),
      currency: Type.String(),
      totals: InvoiceTotals,
      pricingBundleVersion: Nullable(PricingVersionRef),
      paymentReference: Nullable(Type.String()),
      refundReason: Nullable(Type.String({ description: 'A refunding invoice: the reason given.' })),
      issuedAt: DateTime(),
      billedAt: Nullable(DateTime({ description: 'When it was billed (OPEN → BILLED).' })),
      dueAt: Nullable(
        DateTime({
          description:
            'A payer invoiced by transfer (paymentState INVOICING): when the invoice is due. It is billed without a payment (never charged to a card) and settled by set-paid-externally.',
        }),
      ),
      settledAt: Nullable(
        DateTime({ description: 'When it was paid, set paid externally, refunded or marked as lost.' }),
      ),
      payments: Type.Array(InvoicePaymentSummary, { description: 'Its payments, newest first.' }),
      lines: Type.Array(InvoiceLineSchema),
    },
    { additionalProperties: false },
  ),
);

export type InvoiceDto = Static<typeof InvoiceSchema>;
export type InvoiceLineDto = Static<typeof InvoiceLineSchema>;

/** One line as the API writes it; amounts in the invoice currency's minor digits. */
export function toInvoiceLineDto(line: InvoiceLine, currency: string): InvoiceLineDto {
  const amount = (value: string) => formatAmount(value, currency);
  return {
    id: line.id,
    position: line.position,
    code: line.code,
    group: line.group,
    phase: line.phase ?? null,
    description: line.description,
    quantity: line.quantity,
    unit: line.unit,
    unitPrice: formatUnitPrice(line.unitPrice, currency),
    net: amount(line.net),
    tax: amount(line.tax),
    gross: amount(line.gross),
    taxPercentage: line.taxPercentage,
    templateId: line.template?.id ?? null,
    refundedLineId: line.refundedLine?.id ?? null,
  };
}

/** The API's invoice from its row, its lines, its payments (newest first) and the ids refunding it. */
export function toInvoiceDto(
  invoice: Invoice,
  lines: readonly InvoiceLine[],
  payments: readonly Payment[] = [],
  refundingInvoiceIds: readonly number[] = [],
): InvoiceDto {
  const amount = (value: string) => formatAmount(value, invoice.currency);
  return {
    id: invoice.id,
    number: invoice.number,
    type: invoice.type,
    state: invoice.state,
    businessUnitId: invoice.businessUnit.id,
    guserId: invoice.customer.id,
    rentalId: invoice.rental?.id ?? null,
    bookingId: invoice.booking?.id ?? null,
    userGroupId: invoice.userGroup?.id ?? null,
    costCenterId: invoice.costCenter?.id ?? null,
    refundedInvoiceId: invoice.refundedInvoice?.id ?? null,
    refundingInvoiceIds: [...refundingInvoiceIds],
    title: invoice.title,
    description: invoice.description ?? null,
    currency: invoice.currency,
    totals: {
      net: amount(invoice.totalNet),
      tax: amount(invoice.totalTax),
      gross: amount(invoice.totalGross),
    },
    pricingBundleVersion: invoice.pricingBundleVersion ?? null,
    paymentReference: invoice.paymentReference ?? null,
    refundReason: invoice.refundReason ?? null,
    issuedAt: invoice.issuedAt.toISOString(),
    billedAt: invoice.billedAt?.toISOString() ?? null,
    dueAt: invoice.dueAt?.toISOString() ?? null,
    settledAt: invoice.settledAt?.toISOString() ?? null,
    payments: payments.map(toInvoicePaymentSummary),
    lines: lines.map((line) => toInvoiceLineDto(line, invoice.currency)),
  };
}

const groupBy = <T>(rows: readonly T[], key: (row: T) => number) => {
  const groups = new Map<number, T[]>();
  for (const row of rows) groups.set(key(row), [...(groups.get(key(row)) ?? []), row]);
  return groups;
};

/**
 * Invoices as the API writes them, with their lines, payments and refunding invoices loaded in three
 * queries whatever their number (lists), in the order given.
 */
export async function invoiceDtos(em: EntityManager, invoices: readonly Invoice[]): Promise<InvoiceDto[]> {
  if (invoices.length === 0) return [];
  const ids = invoices.map((invoice) => invoice.id);
  const [lines, payments, refunds] = await Promise.all([
    em.find(InvoiceLine, { invoice: { $in: ids } }, { orderBy: { invoice: 'asc', position: 'asc' } }),
    em.find(Payment, { invoice: { $in: ids } }, { orderBy: { createdAt: 'desc', id: 'desc' } }),
    em.find(Invoice, { refundedInvoice: { $in: ids } }, { orderBy: { id: 'asc' } }),
  ]);
  const linesOf = groupBy(lines, (line) => line.invoice.id);
  const paymentsOf = groupBy(payments, (payment) => payment.invoice!.id);
  const refundsOf = groupBy(refunds, (refund) => refund.refundedInvoice!.id);
  return invoices.map((invoice) =>
    toInvoiceDto(
      invoice,
      linesOf.get(invoice.id) ?? [],
      paymentsOf.get(invoice.id) ?? [],
      (refundsOf.get(invoice.id) ?? []).map((refund) => refund.id),
    ),
  );
}

/** One invoice as the API writes it. */
export async function invoiceDto(em: EntityManager, invoice: Invoice): Promise<InvoiceDto> {
  return (await invoiceDtos(em, [invoice]))[0]!;
}
