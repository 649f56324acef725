// The reconciliation report of a business unit and period (db/finance-reconciliation.ts): every
// discrepancy between the books and the records that moved the money, each with its records. Empty when
// the books reconcile. See docs/finance.md, "Reconciliation".
import { Type } from '@sinclair/typebox';
import { BusinessUnit } from '../../../db/entities/BusinessUnit.js';
import { reconciliationChecks, reconciliationReport } from '../../../db/finance-reconciliation.js';
import { DomainError } from '../../../domain/errors.js';
import { defineRoute, ok } from '../../kernel/route.js';
import { clampedInstant, component, DateTime, Id, StringEnum } from '../../kernel/schemas.js';

const DAY_MS = 86_400_000;
/** The longest period one report covers. */
const LONGEST_WINDOW_DAYS = 366;

const Discrepancy = component(
  'FinanceDiscrepancy',
  Type.Object(
    {
      check: StringEnum(reconciliationChecks, { description: 'The check that found it.' }),
      message: Type.String({ description: 'What disagrees, in words.' }),
      records: Type.Object(
        {
          invoiceId: Type.Optional(Type.Integer()),
          refundInvoiceId: Type.Optional(Type.Integer()),
          lineItemId: Type.Optional(Type.Integer()),
          paymentId: Type.Optional(Type.Integer()),
          attemptIds: Type.Optional(Type.Array(Type.Integer())),
          balanceId: Type.Optional(Type.Integer()),
          balanceUpdateId: Type.Optional(Type.Integer()),
          chargeReference: Type.Optional(Type.String()),
        },
        { additionalProperties: false, description: 'The records it concerns.' },
      ),
      expected: Type.Union([Type.String(), Type.Null()], {
        description: 'The figure the books should show.',
      }),
      actual: Type.Union([Type.String(), Type.Null()], { description: 'The figure they show.' }),
    },
    { additionalProperties: false },
  ),
);

const ReconciliationReport = component(
  'FinanceReconciliationReport',
  Type.Object(
    {
      businessUnitId: Type.Integer(),
      from: DateTime(),
      to: DateTime(),
      checked: Type.Object(
        {
          invoices: Type.Integer({
            description: 'Invoices issued in the period (refunding invoices apart).',
          }),
          refunds: Type.Integer({ description: 'Refunding invoices issued in the period.' }),
          payments: Type.Integer({ description: "Payments of those invoices and the unit's settlements." }),
          balances: Type.Integer({ description: 'Balances with ledger rows in the period.' }),
          ledgerRows: Type.Integer({ description: 'Ledger rows written in the period.' }),
        },
        { additionalProperties: false },
      ),
      discrepancies: Type.Array(Discrepancy, {
        description: 'Every discrepancy found; empty when the books reconcile.',
      }),
    },
    { additionalProperties: false },
  ),
);

export const financeReconciliation = defineRoute({
  operationId: 'financeReconciliation',
  method: 'get',
  path: '/finance/reconciliation',
  interface: 'back',
  summary: "Check a business unit's books for a period and list every discrepancy with its records",
  description:
    "Per invoice issued in [`from`, `to`) (default: the 30 days before now; at most 366 days, else I133): paid = captured through the gateway + taken from the balance (+ paid externally) as its state says; each payment collects what the balance credit left; refunded ≤ paid, per invoice and per line; what each refund booked was moved (gateway refund, balance row, outside fleetflow); every charge the gateway captured belongs to exactly one attempt; each ledger row has its BALANCE_UPDATED whose value after is the running sum of the balance's rows; every bill and settled refund is on the invoice's timeline.",
  tags: ['Invoices'],
  query: Type.Object({
    businessUnitId: Id({ description: 'The business unit whose books are checked.' }),
    from: Type.Optional(DateTime({ description: 'Start of the period (inclusive).' })),
    to: Type.Optional(DateTime({ description: 'End of the period (exclusive); default now.' })),
  }),
  access: {
    permission: 'INVOICE_READ',
    businessUnitOf: 'the query’s businessUnitId',
    businessUnit: (ctx) => ctx.query.businessUnitId,
  },
  responses: { 200: { description: 'The report', schema: ReconciliationReport } },
  errors: ['B405', 'I133'],
  async handler(ctx) {
    const unit = await ctx.em.findOne(BusinessUnit, ctx.query.businessUnitId);
    if (!unit) throw new DomainError('B405', `business unit ${ctx.query.businessUnitId} not found`);
    const to = ctx.query.to ? clampedInstant(ctx.query.to) : new Date();
    const from = ctx.query.from ? clampedInstant(ctx.query.from) : new Date(to.getTime() - 30 * DAY_MS);
    if (!(from < to)) throw new DomainError('I133', '`from` must be before `to`');
    if (to.getTime() - from.getTime() > LONGEST_WINDOW_DAYS * DAY_MS)
      throw new DomainError('I133', `a reconciliation covers at most ${LONGEST_WINDOW_DAYS} days`);
    const report = await reconciliationReport(ctx.em, ctx.tenant, { businessUnitId: unit.id, from, to });
    return ok({
      ...report,
      from: report.from.toISOString(),
      to: report.to.toISOString(),
    });
  },
});

export const financeReconciliationRoutes = [financeReconciliation];
