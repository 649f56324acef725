import { Deposit } from '../../db/entities/Deposit.js';
import { Invoice } from '../../db/entities/Invoice.js';
import { InvoiceLine } from '../../db/entities/InvoiceLine.js';
import { InvoiceNumberSequence } from '../../db/entities/InvoiceNumberSequence.js';
import { rentalBillingRoutes } from '../../api/routes/back/rental-billing.js';
import { defineDomain } from './domain.js';

/** Invoices, deposits, payments, balances and refunds: permissions checked on business units. */
export const financeDomain = defineDomain({
  name: 'finance',
  entities: [Invoice, InvoiceLine, InvoiceNumberSequence, Deposit],
  permissions: {
    finance: ['INVOICE_READ', 'PAYMENT_READ', 'BALANCE_READ', 'REFUND_CREATE', 'DEPOSIT_RELEASE'],
  },
  routes: rentalBillingRoutes,
});
