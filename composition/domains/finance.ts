import { Balance } from '../../db/entities/Balance.js';
import { BalanceAccess } from '../../db/entities/BalanceAccess.js';
import { BalanceUpdate } from '../../db/entities/BalanceUpdate.js';
import { Deposit } from '../../db/entities/Deposit.js';
import { Migration20261206023000_invoice_due_at } from '../../db/migrations/Migration20261206023000_invoice_due_at.js';
import { InvoiceLineTemplate } from '../../db/entities/InvoiceLineTemplate.js';
import { Payment } from '../../db/entities/Payment.js';
import { PaymentAttempt } from '../../db/entities/PaymentAttempt.js';
import { PaymentWebhookEvent } from '../../db/entities/PaymentWebhookEvent.js';
import { PaymentSetup } from '../../db/entities/PaymentSetup.js';
import { SandboxGatewayOperation } from '../../db/entities/SandboxGatewayOperation.js';
import { Invoice } from '../../db/entities/Invoice.js';
import { InvoiceLine } from '../../db/entities/InvoiceLine.js';
import { InvoiceNumberSequence } from '../../db/entities/InvoiceNumberSequence.js';
import { rentalBillingRoutes } from '../../api/routes/back/rental-billing.js';
import { invoiceRoutes } from '../../api/routes/back/invoices.js';
import { financeReconciliationRoutes } from '../../api/routes/back/finance-reconciliation.js';
import { invoiceLineItemRoutes } from '../../api/routes/back/invoice-line-items.js';
import { invoiceCollectionRoutes } from '../../api/routes/back/invoice-collection.js';
import { invoiceDocumentRoutes } from '../../api/routes/back/invoice-documents.js';
import { paymentRoutes } from '../../api/routes/back/payments.js';
import { appInvoiceRoutes } from '../../api/routes/front/invoices.js';
import { paymentGatewayWebhookRoutes } from '../../api/routes/back/payment-gateway-webhooks.js';
import { sandboxChallengeRoutes } from '../../api/routes/front/sandbox-gateway-challenges.js';
import { sandboxSetupRoutes } from '../../api/routes/front/sandbox-gateway-setups.js';
import { paymentMethodRoutes } from '../../api/routes/front/payment-methods.js';
import { balanceRoutes } from '../../api/routes/back/balances.js';
import { deprecatedBalanceRoutes } from '../../api/routes/back/balances-deprecated.js';
import { revenueCenterRoutes } from '../../api/routes/back/revenue-centers.js';
import { appBalanceRoutes } from '../../api/routes/front/balances.js';
import { financeErrors } from '../../domain/finance.errors.js';
import { Migration20261122134203_rental_billing } from '../../db/migrations/Migration20261122134203_rental_billing.js';
import { Migration20261122142816_rental_billing_links } from '../../db/migrations/Migration20261122142816_rental_billing_links.js';
import { Migration20261125000342_finance } from '../../db/migrations/Migration20261125000342_finance.js';
import { Migration20261206013000_finance_books } from '../../db/migrations/Migration20261206013000_finance_books.js';
import { Migration20261206020000_payment_setups } from '../../db/migrations/Migration20261206020000_payment_setups.js';
import { Migration20261207040000_invoice_open_rental } from '../../db/migrations/Migration20261207040000_invoice_open_rental.js';
import { financeSeed } from '../../db/seed/finance.js';
import { createFinanceActivities } from '../../activities/finance.js';
import { defineDomain } from './domain.js';

/** Invoices, deposits, payments, balances and refunds: permissions checked on business units. */
export const financeDomain = defineDomain({
  name: 'finance',
  errors: financeErrors,
  seed: financeSeed,
  activities: createFinanceActivities,
  // One workflow module per domain: it re-exports the payment and refund workflows.
  workflows: new URL('../../workflows/finance.ts', import.meta.url),
  processes: [
    { workflowIdPrefix: 'payment', notRunning: 'P120', noun: 'payment' },
    { workflowIdPrefix: 'refund', notRunning: 'I140', noun: 'refund' },
  ],
  entities: [
    Invoice,
    InvoiceLine,
    InvoiceNumberSequence,
    InvoiceLineTemplate,
    Deposit,
    Payment,
    PaymentAttempt,
    PaymentWebhookEvent,
    PaymentSetup,
    SandboxGatewayOperation,
    Balance,
    BalanceUpdate,
    BalanceAccess,
  ],
  migrations: [
    Migration20261206023000_invoice_due_at,
    Migration20261122134203_rental_billing,
    Migration20261122142816_rental_billing_links,
    Migration20261125000342_finance,
    Migration20261206013000_finance_books,
    Migration20261206020000_payment_setups,
    Migration20261207040000_invoice_open_rental,
  ],
  permissions: {
    finance: [
      'INVOICE_READ',
      'INVOICE_UPDATE', // title, description, line items, resend
      'INVOICE_BILL',
      'INVOICE_COLLECT', // set paid externally, mark as lost, mark for collection
      'PAYMENT_READ',
      'PAYMENT_RETRY',
      'PAYMENT_SOURCE_DELETE',
      'BALANCE_READ',
      'BALANCE_UPDATE', // create balances, manual credit
      'BALANCE_SETTLE',
      'REFUND_CREATE',
      'DEPOSIT_RELEASE',
    ],
  },
  routes: [
    ...rentalBillingRoutes,
    ...invoiceRoutes,
    ...financeReconciliationRoutes,
    ...invoiceLineItemRoutes,
    ...invoiceCollectionRoutes,
    ...invoiceDocumentRoutes,
    ...paymentRoutes,
    ...appInvoiceRoutes,
    ...paymentGatewayWebhookRoutes,
    ...sandboxChallengeRoutes,
    ...sandboxSetupRoutes,
    ...paymentMethodRoutes,
    ...balanceRoutes,
    ...deprecatedBalanceRoutes,
    ...revenueCenterRoutes,
    ...appBalanceRoutes,
  ],
});
