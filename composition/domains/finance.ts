import { Deposit } from '../../db/entities/Deposit.js';
import { Invoice } from '../../db/entities/Invoice.js';
import { InvoiceLine } from '../../db/entities/InvoiceLine.js';
import { InvoiceNumberSequence } from '../../db/entities/InvoiceNumberSequence.js';
import { rentalBillingRoutes } from '../../api/routes/back/rental-billing.js';
import { financeErrors } from '../../domain/finance.errors.js';
import { Migration20261122134203_rental_billing } from '../../db/migrations/Migration20261122134203_rental_billing.js';
import { Migration20261122142816_rental_billing_links } from '../../db/migrations/Migration20261122142816_rental_billing_links.js';
import { defineDomain } from './domain.js';

/** Invoices, deposits, payments, balances and refunds: permissions checked on business units. */
export const financeDomain = defineDomain({
  name: 'finance',
  errors: financeErrors,
  entities: [Invoice, InvoiceLine, InvoiceNumberSequence, Deposit],
  migrations: [Migration20261122134203_rental_billing, Migration20261122142816_rental_billing_links],
  permissions: {
    finance: ['INVOICE_READ', 'PAYMENT_READ', 'BALANCE_READ', 'REFUND_CREATE', 'DEPOSIT_RELEASE'],
  },
  routes: rentalBillingRoutes,
});
