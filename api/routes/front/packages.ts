// The app's packages (`/packages` rows of the app interface): the catalog of a branch's business unit,
// one package's price, and buying one — bought once through finance: an invoice billed by its payment
// workflow (balance credit first, then the customer's payment source); when it is paid the package's
// vouchers are granted, once. The answer waits up to 10 s for the payment's first attempt; a purchase
// paid later is granted when the customer's vouchers or packages are next read (`settlePackagePurchases`).
import { UniqueConstraintViolationException } from '@mikro-orm/core';
import { Type } from '@sinclair/typebox';
import { Decimal } from 'decimal.js';
import { BusinessUnit } from '../../../db/entities/BusinessUnit.js';
import { Invoice } from '../../../db/entities/Invoice.js';
import { Payment } from '../../../db/entities/Payment.js';
import { Voucher } from '../../../db/entities/Voucher.js';
import { VoucherPackagePurchase } from '../../../db/entities/VoucherPackagePurchase.js';
import { Voucherable } from '../../../db/entities/Voucherable.js';
import { inTenantTransaction } from '../../../db/orm.js';
import { assertPayerReady } from '../../../db/payer-readiness.js';
import { businessUnitOfBranch } from '../../../db/pricing.js';
import { createPackagePurchase, settlePackagePurchases } from '../../../db/voucher-packages.js';
import { escapeLike } from '../../../db/voucherables.js';
import { DomainError, isDomainError } from '../../../domain/errors.js';
import type { PaymentState } from '../../../domain/finance.js';
import { formatAmount, minorDigitsOf } from '../../../domain/money.js';
import { purchasableTypes } from '../../../domain/voucherables.js';
import { component, DateTime, Id, Nullable, Str, StringEnum } from '../../kernel/schemas.js';
import { created, defineRoute, ok, type RouteContext } from '../../kernel/route.js';
import { billInvoice, billInvoiceErrors } from '../../shared/payment-commands.js';
import {
  freshPayment,
  PurchaseHeaders,
  purchaseKeyOf,
  withdrawDeclinedCharge,
} from '../../shared/purchase-charges.js';
import { VoucherSchema, voucherDtos } from '../../shared/voucher-representation.js';
import { BenefitType } from '../../shared/voucherable-representation.js';

const tags = ['Packages'];
const access = { customer: 'the catalog of packages and the caller’s own purchases.' };

/** How long the purchase's answer waits for the payment's first attempt. */
export const PACKAGE_PAYMENT_WAIT_MS = 10_000;

const PackageSchema = component(
  'Package',
  Type.Object(
    {
      id: Id({ description: 'The voucherable.' }),
      code: Nullable(Type.String()),
      type: StringEnum(purchasableTypes),
      name: Type.String(),
      description: Nullable(Type.String()),
      iconUrl: Nullable(Type.String()),
      price: Type.String({ description: 'Gross. Decimal string.' }),
      currency: Type.String(),
      initial: Type.Boolean(),
      highlight: Type.Boolean(),
      benefits: Type.Array(
        Type.Object({ type: BenefitType, amount: Nullable(Type.String()) }, { additionalProperties: false }),
      ),
    },
    { additionalProperties: false },
  ),
);

const packageDto = (template: Voucherable) => ({
  id: template.id,
  code: template.code ?? null,
  type: template.type as (typeof purchasableTypes)[number],
  name: template.name,
  description: template.description ?? null,
  iconUrl: template.iconUrl ?? null,
  price: formatAmount(template.price ?? '0', template.currency),
  currency: template.currency,
  initial: template.initial,
  highlight: template.highlight,
  benefits: template.benefits.map((benefit) => ({
    type: benefit.type,
    amount:
      benefit.amount == null
        ? null
        : benefit.type === 'Value' || benefit.type === 'RentalRebate'
          ? formatAmount(benefit.amount, template.currency)
          : benefit.amount,
  })),
});

export const listPackages = defineRoute({
  operationId: 'listPackages',
  method: 'get',
  path: '/packages',
  interface: 'front',
  summary: "The packages of a branch's business unit that the app shows",
  tags,
  query: Type.Object({ branchId: Id() }),
  access,
  responses: { 200: { description: 'The catalog', schema: Type.Array(PackageSchema) } },
  errors: ['B404'],
  async handler(ctx) {
    const unit = await businessUnitOfBranch(ctx.em, ctx.query.branchId);
    const templates = await ctx.em.find(
      Voucherable,
      {
        businessUnitId: unit.id,
        type: { $in: [...purchasableTypes] },
        status: 'ACTIVE',
        deletedAt: null,
        showInUserApp: true,
      },
      { orderBy: { highlight: 'desc', id: 'asc' } },
    );
    return ok(templates.map(packageDto));
  },
});

const CodeParams = Type.Object({ packageCode: Str(64, { minLength: 1, pattern: '^[A-Za-z0-9_-]{1,64}$' }) });

/** An ACTIVE purchasable template by its code (VA100 otherwise). */
async function packageByCode(ctx: RouteContext, code: string): Promise<Voucherable> {
  const template = await ctx.em.findOne(Voucherable, {
    code: { $ilike: escapeLike(code) },
    type: { $in: [...purchasableTypes] },
    deletedAt: null,
  });
  if (!template) throw new DomainError('VA100', `no package with code ${code}`);
  return template;
}

export const getPackagePricing = defineRoute({
  operationId: 'getPackagePricing',
  method: 'get',
  path: '/packages/{packageCode}/pricing',
  interface: 'front',
  summary: "A package's price: gross, net and tax",
  tags,
  params: CodeParams,
  access,
  responses: {
    200: {
      description: 'The price',
      schema: Type.Object(
        {
          packageCode: Type.String(),
          currency: Type.String(),
          gross: Type.String(),
          net: Type.String(),
          tax: Type.String(),
          taxPercentage: Type.String(),
        },
        { additionalProperties: false },
      ),
    },
  },
  errors: ['VA100'],
  async handler(ctx) {
    const template = await packageByCode(ctx, ctx.params.packageCode);
    const unit = await ctx.em.findOneOrFail(BusinessUnit, template.businessUnitId);
    const gross = new Decimal(template.price ?? '0');
    const net = gross
      .div(new Decimal(unit.taxPercentage).div(100).plus(1))
      .toDecimalPlaces(minorDigitsOf(template.currency), Decimal.ROUND_HALF_UP);
    return ok({
      packageCode: template.code!,
      currency: template.currency,
      gross: formatAmount(gross, template.currency),
      net: formatAmount(net, template.currency),
      tax: formatAmount(gross.minus(net), template.currency),
      taxPercentage: new Decimal(unit.taxPercentage).toFixed(2),
    });
  },
});

const PurchaseSchema = component(
  'PackagePurchase',
  Type.Object(
    {
      id: Id(),
      voucherableId: Id(),
      state: StringEnum(['BILLED', 'GRANTED', 'FAILED', 'REFUNDED'] as const),
      invoiceId: Id(),
      invoiceState: Type.String(),
      paymentState: Nullable(Type.String()),
      price: Type.String(),
      currency: Type.String(),
      createdAt: DateTime(),
      grantedAt: Nullable(DateTime()),
      vouchers: Type.Array(VoucherSchema, { description: 'The vouchers granted (empty until paid).' }),
    },
    { additionalProperties: false },
  ),
);

/** The payment after its first attempt: re-read until it leaves OPEN and IN_PAYMENT, at most the wait. */
async function afterFirstAttempt(ctx: RouteContext, paymentId: number): Promise<Payment> {
  const waiting: readonly PaymentState[] = ['OPEN', 'IN_PAYMENT'];
  const until = Date.now() + PACKAGE_PAYMENT_WAIT_MS;
  for (;;) {
    const payment = await ctx.em.findOneOrFail(Payment, paymentId, { refresh: true });
    if (!waiting.includes(payment.state) || Date.now() >= until) return payment;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

export const buyPackage = defineRoute({
  operationId: 'buyPackage',
  method: 'post',
  path: '/packages/buy',
  interface: 'front',
  summary: 'Buy a package: an invoice paid through finance; its vouchers once paid',
  description:
    'Readiness first, before anything is written: P104 unless the caller has a payment method, pays by invoice (INVOICING) or has balance credit covering the whole price (no invoice, no credit used). The invoice is then billed at once (balance credit first, then the default payment source); the answer waits up to 10 s for the first payment attempt. When paid, the package’s vouchers are granted (state GRANTED), once whatever retries; a payment that succeeds later (a 3-D Secure challenge) grants them when the customer’s vouchers are next read. A declined charge withdraws the purchase: P124, its invoice CLOSED, the balance credit it took given back, nothing granted (state FAILED). W129: an initial package after another package. With an `Idempotency-Key` header (or `idempotencyKey`) a repeated request answers the first purchase and opens no second invoice.',
  tags,
  headers: PurchaseHeaders,
  body: Type.Object(
    {
      packageCode: Str(64, { minLength: 1, pattern: '^[A-Za-z0-9_-]{1,64}$' }),
      idempotencyKey: Type.Optional(Str(100, { minLength: 1 })),
    },
    { additionalProperties: false },
  ),
  access,
  responses: { 201: { description: 'The purchase', schema: PurchaseSchema } },
  errors: ['VA100', 'VA111', 'VA120', 'W129', 'W130', 'P104', 'P124', 'P120', ...billInvoiceErrors],
  async handler(ctx) {
    const customer = await ctx.customer();
    const actor = `customer:${customer.id}`;
    const template = await packageByCode(ctx, ctx.body.packageCode);
    const requestKey = purchaseKeyOf(ctx, ctx.body.idempotencyKey);
    const key = `customer:${customer.id}:${requestKey ?? ctx.traceId}`;
    const earlier = await ctx.em.findOne(VoucherPackagePurchase, { idempotencyKey: key });
    // Readiness before anything is written (a retried purchase answers what the first one did).
    if (!earlier && template.price && template.status === 'ACTIVE' && !template.deletedAt) {
      const unit = await ctx.em.findOneOrFail(BusinessUnit, template.businessUnitId);
      await assertPayerReady(
        ctx.em,
        { customerId: customer.id, userGroupId: null },
        { businessUnitId: unit.id, gross: template.price, currency: unit.currency },
      );
    }
    let purchase = earlier;
    try {
      purchase ??= await inTenantTransaction(ctx.services.orm, ctx.tenant, async (tx) =>
        createPackagePurchase(tx, {
          template: await tx.findOneOrFail(Voucherable, template.id),
          customerId: customer.id,
          idempotencyKey: key,
          actor,
          at: new Date(),
        }),
      );
    } catch (error) {
      // The same key in flight twice: the other request created it; answer that purchase.
      if (!(error instanceof UniqueConstraintViolationException)) throw error;
      purchase = await ctx.em.findOneOrFail(
        VoucherPackagePurchase,
        { idempotencyKey: key },
        { refresh: true },
      );
    }
    const invoice = await ctx.em.findOneOrFail(Invoice, purchase.invoiceId, { refresh: true });
    let paymentId: number | null = null;
    if (invoice.state === 'OPEN') {
      try {
        paymentId = (await billInvoice(ctx, invoice, actor)).payment?.id ?? null;
      } catch (error) {
        // Billed meanwhile by the same purchase's other request (I121): its payment is read below.
        if (!(isDomainError(error) && error.code === 'I121')) throw error;
      }
    }
    paymentId ??=
      (await ctx.em.findOne(Payment, { invoice: invoice.id }, { orderBy: { id: 'desc' } }))?.id ?? null;
    const payment = paymentId ? await afterFirstAttempt(ctx, paymentId) : null;
    // A declined charge leaves nothing half-done: no retries, the invoice CLOSED, the credit given back.
    if (payment) await withdrawDeclinedCharge(ctx, payment, actor);
    await inTenantTransaction(ctx.services.orm, ctx.tenant, (tx) =>
      settlePackagePurchases(tx, { purchaseId: purchase.id }),
    );
    const fresh = await ctx.em.findOneOrFail(VoucherPackagePurchase, purchase.id, { refresh: true });
    const freshInvoice = await ctx.em.findOneOrFail(Invoice, purchase.invoiceId, { refresh: true });
    if (fresh.state === 'FAILED' && freshInvoice.state === 'CLOSED')
      throw new DomainError(
        'P124',
        `the charge of package purchase ${fresh.id} was declined: nothing was bought, the balance credit it used is back`,
        { purchaseId: fresh.id, invoiceId: fresh.invoiceId },
      );
    const vouchers = await ctx.em.find(
      Voucher,
      { sourceKind: 'PACKAGE', sourceReference: `package-purchase:${purchase.id}` },
      { orderBy: { benefitIndex: 'asc' } },
    );
    return created({
      id: fresh.id,
      voucherableId: fresh.voucherable.id,
      state: fresh.state,
      invoiceId: fresh.invoiceId,
      invoiceState: freshInvoice.state,
      paymentState: payment ? (await freshPayment(ctx, payment.id)).state : null,
      price: formatAmount(fresh.price, fresh.currency),
      currency: fresh.currency,
      createdAt: fresh.createdAt.toISOString(),
      grantedAt: fresh.grantedAt?.toISOString() ?? null,
      vouchers: await voucherDtos(ctx.em, vouchers),
    });
  },
});

export const appPackageRoutes = [listPackages, getPackagePricing, buyPackage];
