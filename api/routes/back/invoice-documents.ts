// An operator's invoice as a document: download it as PDF (the default: what the customer receives) or
// CSV (bookkeeping), chosen by `format` or the Accept header, and send it again to the customer by
// e-mail (the PDF attached, through the project's SMTP) or SMS (through the SMS port). PUSH and chat
// channels are refused (I129) until a provider is connected. See docs/finance.md, "Invoices".
import { Type } from '@sinclair/typebox';
import { BusinessUnit } from '../../../db/entities/BusinessUnit.js';
import { Customer } from '../../../db/entities/Customer.js';
import { DomainError } from '../../../domain/errors.js';
import { defineRoute, ok, type RouteContext } from '../../kernel/route.js';
import { component, DateTime, Id, Str, StringEnum, Nullable } from '../../kernel/schemas.js';
import {
  invoiceCsv,
  invoiceDocumentFormats,
  invoiceFileName,
  invoiceMediaTypes,
  invoicePdf,
  type InvoiceDocumentFormat,
  type InvoiceParties,
} from '../../shared/invoice-documents.js';
import { invoiceDto, type InvoiceDto } from '../../shared/invoice-representation.js';
import { invoiceOf, InvoiceIdParams, onTheInvoice, tags } from './invoices.js';
import type { Invoice } from '../../../db/entities/Invoice.js';

/** The issuer (the invoice's business unit) and the customer, as documents print them. */
async function partiesOf(
  ctx: RouteContext,
  invoice: Invoice,
): Promise<{ parties: InvoiceParties; customer: Customer }> {
  const [unit, customer] = await Promise.all([
    ctx.em.findOneOrFail(BusinessUnit, invoice.businessUnit.id),
    ctx.em.findOneOrFail(Customer, invoice.customer.id),
  ]);
  const contact = Object.entries(unit.contactInfo ?? {})
    .filter(([, value]) => typeof value === 'string' || typeof value === 'number')
    .map(([key, value]) => `${key}: ${String(value)}`);
  const street = [customer.street, customer.houseNumber].filter(Boolean).join(' ');
  const city = [customer.postcode, customer.city].filter(Boolean).join(' ');
  return {
    customer,
    parties: {
      issuer: { name: unit.name, code: unit.code, contact },
      customer: {
        name: `${customer.firstName} ${customer.lastName}`,
        email: customer.email,
        address: [street, customer.addressAddition ?? '', city, customer.country ?? ''].filter(Boolean),
      },
    },
  };
}

/**
 * The format an Accept header asks for: the acceptable one of PDF and CSV with the higher quality (PDF
 * on a tie, for `*` wildcards and without a header).
 */
export function formatFromAccept(accept: string | undefined): InvoiceDocumentFormat {
  if (!accept) return 'PDF';
  const quality: Record<InvoiceDocumentFormat, number> = { PDF: 0, CSV: 0 };
  let any = 0;
  for (const part of accept.split(',')) {
    const [range, ...parameters] = part.split(';').map((piece) => piece.trim().toLowerCase());
    const q = parameters.find((parameter) => parameter.startsWith('q='));
    const value = q ? Number(q.slice(2)) : 1;
    const weight = Number.isFinite(value) ? Math.min(Math.max(value, 0), 1) : 0;
    if (range === 'application/pdf' || range === 'application/*') quality.PDF = Math.max(quality.PDF, weight);
    else if (range === 'text/csv' || range === 'text/*') quality.CSV = Math.max(quality.CSV, weight);
    else if (range === '*/*') any = Math.max(any, weight);
  }
  const pdf = quality.PDF || any;
  const csv = quality.CSV || any;
  return csv > pdf ? 'CSV' : 'PDF';
}

async function render(ctx: RouteContext, invoice: Invoice, dto: InvoiceDto, format: InvoiceDocumentFormat) {
  if (format === 'CSV') return invoiceCsv(dto);
  return invoicePdf(dto, (await partiesOf(ctx, invoice)).parties);
}

export const downloadInvoice = defineRoute({
  operationId: 'downloadInvoice',
  method: 'get',
  path: '/invoices/{invoiceId}/download',
  interface: 'back',
  summary: 'The invoice as a PDF (default) or CSV file',
  description:
    '`format` (PDF or CSV) wins; without it the Accept header chooses (`application/pdf` or `text/csv`, by quality; PDF for `*/*`, anything else or no header). The PDF is the document the customer receives (and a resend attaches); the CSV has one row per line item and a TOTAL row, for bookkeeping imports.',
  tags,
  params: InvoiceIdParams,
  query: Type.Object({ format: Type.Optional(StringEnum(invoiceDocumentFormats)) }),
  access: onTheInvoice('INVOICE_READ'),
  responses: {
    200: {
      description: 'The file (Content-Disposition: attachment)',
      files: [invoiceMediaTypes.PDF, invoiceMediaTypes.CSV],
    },
  },
  errors: ['I404'],
  async handler(ctx) {
    const invoice = await invoiceOf(ctx);
    const format = ctx.query.format ?? formatFromAccept(ctx.header('accept'));
    const dto = await invoiceDto(ctx.em, invoice);
    return ok({
      contentType: format === 'CSV' ? `${invoiceMediaTypes.CSV}; charset=utf-8` : invoiceMediaTypes.PDF,
      fileName: invoiceFileName(dto, format),
      data: await render(ctx, invoice, dto, format),
    });
  },
});

const deliverableChannels = ['EMAIL', 'SMS'] as const;
const resendChannels = [
  ...deliverableChannels,
  'PUSH',
  'WHATSAPP',
  'TELEGRAM',
  'FACEBOOK_MESSENGER',
] as const;

const ResendRequest = component(
  'InvoiceResendRequest',
  Type.Object(
    {
      mailMessage: Str(2000, { minLength: 1, description: 'The message sent with the invoice.' }),
      channel: Type.Optional(
        StringEnum(resendChannels, {
          default: 'EMAIL',
          description:
            'EMAIL (the PDF attached) or SMS; PUSH and chat channels answer I129 (no provider yet).',
        }),
      ),
    },
    { additionalProperties: false },
  ),
);

const InvoiceDelivery = component(
  'InvoiceDelivery',
  Type.Object(
    {
      invoiceId: Id(),
      channel: StringEnum(deliverableChannels),
      recipient: Type.String({ description: "The customer's verified e-mail address or phone number." }),
      attachment: Nullable(Type.String({ description: 'The attached file (EMAIL).' })),
      sentAt: DateTime(),
    },
    { additionalProperties: false },
  ),
);

/** Longest SMS text: three concatenated segments. */
const SMS_MAX = 459;

export const resendInvoice = defineRoute({
  operationId: 'resendInvoice',
  method: 'post',
  path: '/invoices/{invoiceId}/resend',
  interface: 'back',
  summary: 'Send the invoice to its customer again by e-mail or SMS (records INVOICE_RESENT)',
  description:
    "EMAIL (default) goes through the project's SMTP with `mailMessage` as its text and the invoice's PDF attached; SMS through the SMS port with the message, the number and the total. Both need the customer's verified address for the channel (I130). PUSH and chat channels answer I129 until a provider is connected. A delivery failure answers I132 (retryable).",
  tags,
  params: InvoiceIdParams,
  body: ResendRequest,
  access: onTheInvoice('INVOICE_UPDATE'),
  responses: { 200: { description: 'Sent', schema: InvoiceDelivery } },
  errors: ['I404', 'I129', 'I130', 'I132'],
  async handler(ctx) {
    const invoice = await invoiceOf(ctx);
    const channel = ctx.body.channel ?? 'EMAIL';
    if (channel !== 'EMAIL' && channel !== 'SMS')
      throw new DomainError('I129', `no ${channel} provider is connected: resend by EMAIL or SMS`);
    const dto = await invoiceDto(ctx.em, invoice);
    const { parties, customer } = await partiesOf(ctx, invoice);
    let recipient: string;
    let attachment: string | null = null;
    try {
      if (channel === 'EMAIL') {
        if (!customer.emailIsVerified)
          throw new DomainError('I130', 'the customer has no verified e-mail address');
        recipient = customer.email;
        attachment = invoiceFileName(dto, 'PDF');
        await ctx.services.mail.send({
          to: recipient,
          subject: `Invoice ${dto.number} (${dto.totals.gross} ${dto.currency})`,
          text: `${ctx.body.mailMessage}\n\nInvoice ${dto.number}: ${dto.title}\nTotal: ${dto.totals.gross} ${dto.currency}\n`,
          attachments: [
            {
              filename: attachment,
              content: Buffer.from(await invoicePdf(dto, parties)),
              contentType: invoiceMediaTypes.PDF,
            },
          ],
        });
      } else {
        if (!customer.phoneNumber || !customer.phoneIsVerified)
          throw new DomainError('I130', 'the customer has no verified phone number');
        recipient = customer.phoneNumber;
        const summary = ` Invoice ${dto.number}: ${dto.totals.gross} ${dto.currency}.`;
        await ctx.services.sms.send({
          to: recipient,
          text: `${ctx.body.mailMessage.slice(0, SMS_MAX - summary.length)}${summary}`,
        });
      }
    } catch (error) {
      if (error instanceof DomainError) throw error;
      throw new DomainError('I132', 'the invoice could not be sent; try again', undefined, { cause: error });
    }
    const sentAt = new Date();
    ctx.recordEvent({
      type: 'INVOICE_RESENT',
      customerId: invoice.customer.id,
      rentalId: invoice.rental?.id ?? null,
      bookingId: invoice.booking?.id ?? null,
      payload: { invoiceId: invoice.id, channel, recipient },
    });
    return ok({ invoiceId: invoice.id, channel, recipient, attachment, sentAt: sentAt.toISOString() });
  },
});

export const invoiceDocumentRoutes = [downloadInvoice, resendInvoice];
