import { defineDomain } from './domain.js';

/** Invoices, payments, balances and refunds: permissions checked on business units. */
export const financeDomain = defineDomain({
  name: 'finance',
  permissions: { finance: ['INVOICE_READ', 'PAYMENT_READ', 'BALANCE_READ', 'REFUND_CREATE'] },
});
