// A rental's money for finance staff: the billing overview (phases, the three price shapes, invoice,
// deposit) and the deposit release. Finance permissions are checked on the business unit behind the
// rental's branch. The invoice itself is read at `GET /invoices/{invoiceId}` (api/routes/back/invoices.ts).
import { Type, type Static } from '@sinclair/typebox';
import { Decimal } from 'decimal.js';
import { Deposit } from '../../../db/entities/Deposit.js';
import { Invoice } from '../../../db/entities/Invoice.js';
import { Rental } from '../../../db/entities/Rental.js';
import { businessUnitOfBranch } from '../../../db/pricing.js';
import { priceRentalWithPhases, releaseRentalDeposit } from '../../../db/rental-billing.js';
import { DomainError } from '../../../domain/errors.js';
import { formatAmount } from '../../../domain/money.js';
import { pricePhases } from '../../../domain/pricing.js';
import {
  depositAuthorizationStates,
  depositStates,
  type BilledPhase,
} from '../../../domain/rental-pricing.js';
import { rentalStates, terminalRentalStates } from '../../../domain/rental.js';
import { ok, defineRoute, type RouteContext } from '../../kernel/route.js';
import { component, DateTime, Id, Nullable, StringEnum } from '../../kernel/schemas.js';
import { Price, PriceV3, PriceV4, PricingVersionRef } from '../../shared/pricing-estimates.js';
import { InvoiceSchema, invoiceDto } from '../../shared/invoice-representation.js';

const Money = (description: string) => Type.String({ description: `${description} Decimal string.` });

const DepositSchema = component(
  'Deposit',
  Type.Object(
    {
      id: Id(),
      rentalId: Id(),
      guserId: Id(),
      businessUnitId: Id(),
      amount: Money('Held amount.'),
      currency: Type.String(),
      state: StringEnum(depositStates),
      authorizationState: StringEnum(depositAuthorizationStates, {
        description: 'Whether a payment provider reserved the money; NOT_REQUESTED while none is connected.',
      }),
      providerReference: Nullable(Type.String()),
      heldAt: DateTime(),
      releasedAt: Nullable(DateTime()),
      releasedBy: Nullable(Type.String()),
    },
    { additionalProperties: false },
  ),
);

const BillingPhase = Type.Object(
  {
    phase: StringEnum(pricePhases),
    startedAt: DateTime(),
    endedAt: Nullable(DateTime({ description: 'Null while the phase is open.' })),
    minutes: Type.String({
      description:
        'Minutes this phase adds to the price input (bought minutes for RESERVATION_PAID; the open phase up to now).',
    }),
  },
  { additionalProperties: false },
);

const BillingOverview = component(
  'RentalBillingOverview',
  Type.Object(
    {
      rentalId: Id(),
      state: StringEnum(rentalStates),
      branchId: Id(),
      businessUnitId: Id(),
      estimate: Type.Boolean({
        description: 'True while the rental is open: the price runs up to pricedAt.',
      }),
      pricedAt: Nullable(DateTime()),
      pricingBundleVersion: Nullable(PricingVersionRef),
      paidReservationMinutes: Type.Integer(),
      phases: Type.Array(BillingPhase),
      phaseTotals: Type.Array(
        Type.Object(
          { phase: StringEnum(pricePhases), minutes: Type.String(), amount: Money('Gross of its lines.') },
          { additionalProperties: false },
        ),
        { description: 'Per phase type: billed minutes and the gross of the price lines of that phase.' },
      ),
      price: Nullable(Price),
      priceV3: Nullable(PriceV3),
      priceV4: Nullable(PriceV4),
      invoice: Nullable(InvoiceSchema),
      deposit: Nullable(DepositSchema),
    },
    { additionalProperties: false },
  ),
);

/** The API's deposit representation. */
function toDepositDto(deposit: Deposit): Static<typeof DepositSchema> {
  return {
    id: deposit.id,
    rentalId: deposit.rental.id,
    guserId: deposit.customer.id,
    businessUnitId: deposit.businessUnit.id,
    amount: formatAmount(deposit.amount, deposit.currency),
    currency: deposit.currency,
    state: deposit.state,
    authorizationState: deposit.authorizationState,
    providerReference: deposit.providerReference ?? null,
    heldAt: deposit.heldAt.toISOString(),
    releasedAt: deposit.releasedAt?.toISOString() ?? null,
    releasedBy: deposit.releasedBy ?? null,
  };
}

const minutesText = (ms: number) => new Decimal(ms).div(60_000).toFixed(3);

/** The rental of the path, loaded once per request (access check and handler share it). */
const rentalOf = (ctx: RouteContext<{ rentalId: number }>) =>
  ctx.once('rental', async () => {
    const rental = await ctx.em.findOne(Rental, ctx.params.rentalId);
    if (!rental) throw new DomainError('R404', `rental ${ctx.params.rentalId} not found`);
    return rental;
  });

/** Finance permissions on a rental are checked on the business unit behind its branch. */
const rentalUnit = (ctx: RouteContext<{ rentalId: number }>) =>
  ctx.once(
    'rentalUnit',
    async () => (await businessUnitOfBranch(ctx.em, (await rentalOf(ctx)).branch.id)).id,
  );

const tags = ['Rentals'];
const RentalIdParams = Type.Object({ rentalId: Id() });

export const rentalBillingOverview = defineRoute({
  operationId: 'rentalBillingOverview',
  method: 'get',
  path: '/rentals/{rentalId}/billing-overview',
  interface: 'back',
  summary: 'Billing breakdown of a rental: phases, price, invoice and deposit',
  description:
    'While the rental is open the price is an estimate up to now with its pinned pricing version; once it ended, the final price written at the end (priced again from the phases if none was written).',
  tags,
  params: RentalIdParams,
  access: {
    permission: 'INVOICE_READ',
    businessUnitOf: "the business unit behind the rental's branch",
    businessUnit: (ctx) => rentalUnit(ctx),
  },
  responses: { 200: { description: 'The billing overview', schema: BillingOverview } },
  errors: ['R404', 'ODP101', 'ODP104', 'ODP110', 'ODP111'],
  async handler(ctx) {
    const rental = await rentalOf(ctx);
    const ended = terminalRentalStates.includes(rental.state);
    const now = Date.now();
    let phases: BilledPhase[] = [];
    let price =
      ended && rental.priceV4 && rental.priceV3 && rental.price
        ? { price: rental.price, priceV3: rental.priceV3, priceV4: rental.priceV4 }
        : null;
    if (rental.pricingBundleVersion) {
      const priced = await priceRentalWithPhases(ctx.em, rental, now);
      phases = priced.phases;
      price ??= priced.result;
    }
    const invoice = await ctx.em.findOne(Invoice, { rental: rental.id, refundedInvoice: null });
    const deposit = await ctx.em.findOne(Deposit, { rental: rental.id });
    // Phases are billed only with a price (both come from the pinned version).
    const priceV4 = price?.priceV4;
    const phaseTotals = !priceV4
      ? []
      : pricePhases
          .map((phase) => {
            const ms = phases.filter((p) => p.phase === phase).reduce((sum, p) => sum + p.billedMs, 0);
            const amount = priceV4.lines
              .filter((line) => line.phase === phase)
              .reduce((sum, line) => sum.plus(line.gross), new Decimal(0));
            return { phase, ms, amount };
          })
          .filter((total) => total.ms > 0)
          .map(({ phase, ms, amount }) => ({
            phase,
            minutes: minutesText(ms),
            amount: formatAmount(amount, priceV4.currency),
          }));
    return ok({
      rentalId: rental.id,
      state: rental.state,
      branchId: rental.branch.id,
      businessUnitId: await rentalUnit(ctx),
      estimate: !ended,
      pricedAt: price ? (ended && rental.endedAt ? rental.endedAt : new Date(now)).toISOString() : null,
      pricingBundleVersion: price?.price.pricingBundleVersion ?? null,
      paidReservationMinutes: rental.paidReservationMinutes,
      phases: phases.map((phase) => ({
        phase: phase.phase,
        startedAt: new Date(phase.startedAt).toISOString(),
        endedAt: phase.endedAt === null ? null : new Date(phase.endedAt).toISOString(),
        minutes: minutesText(phase.billedMs),
      })),
      phaseTotals,
      price: price?.price ?? null,
      priceV3: price?.priceV3 ?? null,
      priceV4: price?.priceV4 ?? null,
      invoice: invoice ? await invoiceDto(ctx.em, invoice) : null,
      deposit: deposit ? toDepositDto(deposit) : null,
    });
  },
});

export const releaseDeposit = defineRoute({
  operationId: 'releaseRentalDeposit',
  method: 'post',
  path: '/rentals/{rentalId}/release-deposit',
  interface: 'back',
  summary: 'Release the active deposit of a rental (records RENTAL_DEPOSIT_RELEASE)',
  tags,
  params: RentalIdParams,
  access: {
    permission: 'DEPOSIT_RELEASE',
    businessUnitOf: "the business unit behind the rental's branch",
    businessUnit: (ctx) => rentalUnit(ctx),
  },
  responses: { 200: { description: 'The released deposit', schema: DepositSchema } },
  errors: ['R404', 'R250'],
  async handler(ctx) {
    const rental = await rentalOf(ctx);
    const deposit = await releaseRentalDeposit(ctx.em, rental, { by: ctx.actor, at: new Date() });
    return ok(toDepositDto(deposit));
  },
});

export const rentalBillingRoutes = [rentalBillingOverview, releaseDeposit];
