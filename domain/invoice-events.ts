// The event types finance writes about invoices (pure): the spec's INVOICE_RETRY_PAYMENT and
// USER_PAYMENT_METHOD_REMOVED, and the project's types for the other invoice operations, so an invoice's
// timeline and the event search find every change. Each event's payload carries `invoiceId`.

/** Event types of invoice operations; the invoice overview's timeline reads exactly these. */
export const invoiceEventTypes = [
  'INVOICE_UPDATED', // title or description edited
  'INVOICE_LINE_ITEM_ADDED',
  'INVOICE_LINE_ITEM_UPDATED',
  'INVOICE_LINE_ITEM_REMOVED',
  'INVOICE_BILLED', // OPEN → BILLED (or PAID when the balance credit covered it)
  'INVOICE_RESENT', // sent again by e-mail or SMS
  'INVOICE_REFUND_REQUESTED', // a refund started (the refunding invoice is in the payload)
  'INVOICE_PAID_EXTERNALLY',
  'INVOICE_MARKED_AS_LOST', // state IGNORE
  'INVOICE_MARKED_FOR_COLLECTION', // state COLLECTION
  'INVOICE_RETRY_PAYMENT', // the spec's: a manual retry of the invoice's payment
  'INVOICE_PAYMENT_SUCCEEDED', // the gateway captured the payment (from → PAID)
  'INVOICE_PAYMENT_DECLINED', // an attempt was declined or its challenge failed (from → the state it leads to)
  'INVOICE_PAYMENT_CHALLENGED', // an attempt waits for the customer (3-D Secure, push)
  'INVOICE_REFUNDED', // a refund gave the money back (its split: gateway, balance, outside fleetflow)
  'INVOICE_REFUND_FAILED', // the gateway refused a refund (EXCEPTION_REFUND)
] as const;

/** What an invoice's timeline shows: its operations and its INVOICE_CREATED. */
export const invoiceTimelineEventTypes = [...invoiceEventTypes, 'INVOICE_CREATED'] as const;
export type InvoiceEventType = (typeof invoiceEventTypes)[number];

/** The spec's event of a removed payment source (`DELETE /payments`). */
export const PAYMENT_METHOD_REMOVED_EVENT = 'USER_PAYMENT_METHOD_REMOVED';
