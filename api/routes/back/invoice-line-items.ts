// The line items of an operator's invoice: read them, add one (optionally from a line-item template),
// change one by net or gross (never both: I126; the other side derived with the business unit's tax and
// rounding, domain/invoice-lines.ts), remove one; and the line-item templates of a business unit. Edits
// need the invoice OPEN (I120); the totals are the sums of the lines after each. See docs/finance.md.
import { Type, type Static } from '@sinclair/typebox';
import { BusinessUnit } from '../../../db/entities/BusinessUnit.js';
import { Invoice } from '../../../db/entities/Invoice.js';
import { InvoiceLine } from '../../../db/entities/InvoiceLine.js';
import { InvoiceLineTemplate } from '../../../db/entities/InvoiceLineTemplate.js';
import { addInvoiceLine, removeInvoiceLine, updateInvoiceLine } from '../../../db/invoice-edits.js';
import { inTenantTransaction } from '../../../db/orm.js';
import { quantityPattern, signedAmountPattern } from '../../../domain/invoice-lines.js';
import { formatAmount } from '../../../domain/money.js';
import { priceLineGroups } from '../../../domain/pricing.js';
import { created, defineRoute, noContent, ok, type RouteContext } from '../../kernel/route.js';
import { component, Id, Nullable, Str, StringEnum } from '../../kernel/schemas.js';
import {
  InvoiceLineSchema,
  InvoiceSchema,
  invoiceDto,
  toInvoiceLineDto,
} from '../../shared/invoice-representation.js';
import {
  invoiceOf,
  InvoiceIdParams,
  onTheBranchUnit,
  onTheInvoice,
  tags,
  unitOfBranchQuery,
} from './invoices.js';

const Amount = (description: string) =>
  Type.String({
    pattern: signedAmountPattern,
    maxLength: 20,
    description: `${description} Decimal string (\`12.50\`, \`-3\`), at most the currency's minor digits.`,
  });
const Quantity = Type.String({
  pattern: quantityPattern,
  maxLength: 13,
  description: 'Decimal string; the unit price is the amount per unit of it. Default 1.',
});

const LineItemParams = Type.Object({ invoiceId: Id(), lineItemId: Id() });

export const listInvoiceLineItems = defineRoute({
  operationId: 'listInvoiceLineItems',
  method: 'get',
  path: '/invoices/{invoiceId}/line-items',
  interface: 'back',
  summary: 'The line items of an invoice, in order',
  description:
    'An invoice bills one rental or booking: with `rentalId` or `bookingId` the lines are listed only when the invoice bills that rental or booking (else the list is empty).',
  tags,
  params: InvoiceIdParams,
  query: Type.Object({ bookingId: Type.Optional(Id()), rentalId: Type.Optional(Id()) }),
  access: onTheInvoice('INVOICE_READ'),
  responses: { 200: { description: 'Line items', schema: Type.Array(InvoiceLineSchema) } },
  errors: ['I404'],
  async handler(ctx) {
    const invoice = await invoiceOf(ctx);
    const { rentalId, bookingId } = ctx.query;
    if (
      (rentalId !== undefined && invoice.rental?.id !== rentalId) ||
      (bookingId !== undefined && invoice.booking?.id !== bookingId)
    )
      return ok([]);
    const lines = await ctx.em.find(InvoiceLine, { invoice: invoice.id }, { orderBy: { position: 'asc' } });
    return ok(lines.map((line) => toInvoiceLineDto(line, invoice.currency)));
  },
});

export const NewLineItem = component(
  'NewInvoiceLineItem',
  Type.Object(
    {
      templateId: Type.Optional(
        Id({ description: 'A template of the invoice’s business unit: code, description and amount.' }),
      ),
      code: Type.Optional(Str(64, { minLength: 1, pattern: '^[A-Za-z0-9_.-]+$' })),
      description: Type.Optional(Str(500, { minLength: 1, description: 'Required without a template.' })),
      group: Type.Optional(StringEnum(priceLineGroups, { default: 'ADJUSTMENT' })),
      quantity: Type.Optional(Quantity),
      net: Type.Optional(Amount('Net; send net or gross, not both (the template’s when neither is sent).')),
      gross: Type.Optional(Amount('Gross; send net or gross, not both.')),
    },
    {
      additionalProperties: false,
      description: 'A `templateId`, or a `description` with net or gross.',
      anyOf: [{ required: ['templateId'] }, { required: ['description'] }],
    },
  ),
);

const LineItemChange = component(
  'InvoiceLineItemChange',
  Type.Object(
    {
      net: Type.Optional(Amount('The new net: send net or gross, not both.')),
      gross: Type.Optional(Amount('The new gross: send net or gross, not both.')),
      description: Type.Optional(Str(500, { minLength: 1 })),
      quantity: Type.Optional(Quantity),
    },
    { additionalProperties: false },
  ),
);

const LineItemAnswer = component(
  'InvoiceLineItemAnswer',
  Type.Object(
    {
      lineItem: InvoiceLineSchema,
      invoice: InvoiceSchema,
    },
    { additionalProperties: false, description: 'The line and its invoice with the totals recomputed.' },
  ),
);

async function lineAnswer(
  ctx: RouteContext,
  invoiceId: number,
  lineId: number,
): Promise<Static<typeof LineItemAnswer>> {
  const invoice = await ctx.em.findOneOrFail(Invoice, invoiceId, { refresh: true });
  const line = await ctx.em.findOneOrFail(InvoiceLine, lineId, { refresh: true });
  return { lineItem: toInvoiceLineDto(line, invoice.currency), invoice: await invoiceDto(ctx.em, invoice) };
}

const lineEditErrors = ['I404', 'I120', 'I126', 'I131'] as const;

export const addInvoiceLineItem = defineRoute({
  operationId: 'addInvoiceLineItem',
  method: 'post',
  path: '/invoices/{invoiceId}/line-items',
  interface: 'back',
  summary:
    'Add a line item to an OPEN invoice, from net or gross or a template (records INVOICE_LINE_ITEM_ADDED)',
  description:
    "The line's net or gross (not both: I126) with the other side derived with the business unit's tax percentage and rounding; a `templateId` gives code, description and amount, each of which the body may override. Unit PIECE, group ADJUSTMENT unless given.",
  tags,
  params: InvoiceIdParams,
  body: NewLineItem,
  access: onTheInvoice('INVOICE_UPDATE'),
  responses: { 201: { description: 'The new line and the invoice', schema: LineItemAnswer } },
  errors: [...lineEditErrors, 'I406'],
  async handler(ctx) {
    const invoice = await invoiceOf(ctx);
    const { line } = await inTenantTransaction(ctx.services.orm, ctx.tenant, (tx) =>
      addInvoiceLine(tx, invoice.id, ctx.body, { actor: ctx.actor }),
    );
    return created(await lineAnswer(ctx, invoice.id, line.id), {
      Location: `${ctx.baseUrl}/invoices/${invoice.id}/line-items`,
    });
  },
});

export const updateInvoiceLineItem = defineRoute({
  operationId: 'updateInvoiceLineItem',
  method: 'patch',
  path: '/invoices/{invoiceId}/line-item/{lineItemId}',
  interface: 'back',
  summary: 'Change one line item of an OPEN invoice by net or gross (records INVOICE_LINE_ITEM_UPDATED)',
  description:
    "Exactly one of `net` and `gross` (both or neither: I126); the other side is derived with the business unit's tax percentage and rounding, the unit price follows per unit of the quantity, and the invoice's totals become the sums of its lines.",
  tags,
  params: LineItemParams,
  body: LineItemChange,
  access: onTheInvoice('INVOICE_UPDATE'),
  responses: { 200: { description: 'The line and the invoice', schema: LineItemAnswer } },
  errors: [...lineEditErrors, 'I405'],
  async handler(ctx) {
    const invoice = await invoiceOf(ctx);
    await inTenantTransaction(ctx.services.orm, ctx.tenant, (tx) =>
      updateInvoiceLine(tx, invoice.id, ctx.params.lineItemId, ctx.body, { actor: ctx.actor }),
    );
    return ok(await lineAnswer(ctx, invoice.id, ctx.params.lineItemId));
  },
});

export const deleteInvoiceLineItem = defineRoute({
  operationId: 'deleteInvoiceLineItem',
  method: 'delete',
  path: '/invoices/{invoiceId}/line-items/{lineItemId}',
  interface: 'back',
  summary: 'Remove a line item of an OPEN invoice (records INVOICE_LINE_ITEM_REMOVED)',
  description: 'The remaining lines keep their order (positions 1…n) and the totals are their sums.',
  tags,
  params: LineItemParams,
  access: onTheInvoice('INVOICE_UPDATE'),
  responses: { 204: { description: 'Removed' } },
  errors: ['I404', 'I120', 'I405'],
  async handler(ctx) {
    const invoice = await invoiceOf(ctx);
    await inTenantTransaction(ctx.services.orm, ctx.tenant, (tx) =>
      removeInvoiceLine(tx, invoice.id, ctx.params.lineItemId, { actor: ctx.actor }),
    );
    return noContent();
  },
});

const LineItemTemplate = component(
  'InvoiceLineItemTemplate',
  Type.Object(
    {
      id: Id(),
      businessUnitId: Id(),
      code: Type.String(),
      description: Type.String(),
      net: Nullable(Type.String({ description: 'Decimal string; exactly one of net and gross is set.' })),
      gross: Nullable(Type.String({ description: 'Decimal string.' })),
      currency: Type.String({ description: "The business unit's." }),
      enabled: Type.Boolean(),
    },
    { additionalProperties: false },
  ),
);

async function templatesOf(ctx: RouteContext, businessUnitId: number, includeDisabled: boolean) {
  const unit = await ctx.em.findOneOrFail(BusinessUnit, businessUnitId);
  const templates = await ctx.em.find(
    InvoiceLineTemplate,
    includeDisabled ? { businessUnit: businessUnitId } : { businessUnit: businessUnitId, enabled: true },
    { orderBy: { code: 'asc', id: 'asc' } },
  );
  return templates.map((template) => ({
    id: template.id,
    businessUnitId: template.businessUnit.id,
    code: template.code,
    description: template.description,
    net: template.net == null ? null : formatAmount(template.net, unit.currency),
    gross: template.gross == null ? null : formatAmount(template.gross, unit.currency),
    currency: unit.currency,
    enabled: template.enabled,
  }));
}

const TemplateQuery = {
  includeDisabled: Type.Optional(
    Type.Boolean({ default: false, description: 'Also the disabled templates.' }),
  ),
};

export const listInvoiceLineItemTemplates = defineRoute({
  operationId: 'listInvoiceLineItemTemplates',
  method: 'get',
  path: '/invoices/{invoiceId}/line-item-templates',
  interface: 'back',
  summary: "The line-item templates that can be added to an invoice (its business unit's)",
  tags,
  params: InvoiceIdParams,
  query: Type.Object(TemplateQuery),
  access: onTheInvoice('INVOICE_READ'),
  responses: {
    200: { description: 'Templates by code', schema: Type.Array(LineItemTemplate, { maxItems: 10000 }) },
  },
  errors: ['I404'],
  async handler(ctx) {
    const invoice = await invoiceOf(ctx);
    return ok(await templatesOf(ctx, invoice.businessUnit.id, ctx.query.includeDisabled ?? false));
  },
});

export const listBusinessUnitLineItemTemplates = defineRoute({
  operationId: 'listLineItemTemplates',
  method: 'get',
  path: '/invoices/line-item-templates',
  interface: 'back',
  summary: "The line-item templates of a branch's business unit",
  tags,
  query: Type.Object({ branchId: Id(), ...TemplateQuery }),
  access: onTheBranchUnit('INVOICE_READ'),
  responses: {
    200: { description: 'Templates by code', schema: Type.Array(LineItemTemplate, { maxItems: 10000 }) },
  },
  errors: ['B404'],
  async handler(ctx) {
    const unit = await unitOfBranchQuery(ctx);
    return ok(await templatesOf(ctx, unit.id, ctx.query.includeDisabled ?? false));
  },
});

export const invoiceLineItemRoutes = [
  listInvoiceLineItems,
  addInvoiceLineItem,
  updateInvoiceLineItem,
  deleteInvoiceLineItem,
  listInvoiceLineItemTemplates,
  listBusinessUnitLineItemTemplates,
];
