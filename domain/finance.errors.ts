// Error codes of the finance domain: invoices, payments, balances and deposits.
// Pure data, registered in the catalogue when imported (a code declared twice fails at start); the
// registration (composition/domains) lists it, and docs/errors.md is generated from it.
import { defineErrorCodes } from './errors.js';

/** The finance domain's catalogue entries; `when` says when the project answers a code. */
export const financeErrors = defineErrorCodes(
  'finance',
  // One line per code; keep the table layout.
  // prettier-ignore
  {
    // Common codes of otherwise unshown tables (U6XX terms, R, P, V)
    'P104': { code: 'P104', meaning: 'no payment method or package', retryable: false, httpStatus: 422, source: 'spec' },
    // Balance
    'J100': { code: 'J100', meaning: 'cannot charge a positive balance', retryable: false, httpStatus: 422, source: 'spec' },
    'J101': { code: 'J101', meaning: 'settlement failed', retryable: false, httpStatus: 500, source: 'spec' },
    'J102': { code: 'J102', meaning: 'give balanceId or branchId, not both', retryable: false, httpStatus: 400, source: 'spec' },
    'J103': { code: 'J103', meaning: 'no default payment source', retryable: false, httpStatus: 422, source: 'spec' },
    'J104': { code: 'J104', meaning: 'balance is being charged', retryable: true, httpStatus: 409, source: 'spec' },
    'J105': { code: 'J105', meaning: 'give branch or vehicle, not both', retryable: false, httpStatus: 400, source: 'spec' },
    'J106': { code: 'J106', meaning: 'system-created balances are not deletable', retryable: false, httpStatus: 422, source: 'spec' },
    'J107': { code: 'J107', meaning: 'only the owner may delete the balance', retryable: false, httpStatus: 403, source: 'spec' },
    'J108': { code: 'J108', meaning: 'only unused balances are deletable', retryable: false, httpStatus: 409, source: 'spec' },
    'J109': { code: 'J109', meaning: 'only the owner may give access to the balance', retryable: false, httpStatus: 403, source: 'spec' },
    'J110': { code: 'J110', meaning: 'only the owner may view access to the balance', retryable: false, httpStatus: 403, source: 'spec' },
    'J111': { code: 'J111', meaning: 'only the owner may revoke access to the balance', retryable: false, httpStatus: 403, source: 'spec' },
    'J112': { code: 'J112', meaning: 'setting default balance failed', retryable: true, httpStatus: 500, source: 'spec' },
    'J113': { code: 'J113', meaning: 'balance belongs to another billable branch', retryable: false, httpStatus: 422, source: 'spec' },
    'J404': { code: 'J404', meaning: 'no balance found', retryable: false, httpStatus: 404, source: 'spec' },
    // Project-defined: balances (beyond the spec's J100-J113)
    'J114': { code: 'J114', meaning: 'only the owner may make the balance the default', retryable: false, httpStatus: 403, source: 'project', when: 'the app\'s `POST /balances/{id}/default` on a balance shared with the caller' },
    'J115': { code: 'J115', meaning: 'the idempotency key was used for another balance update', retryable: false, httpStatus: 409, source: 'project', when: '`POST /balances/{balanceId}/updates` repeating an `idempotencyKey` with another amount or description' },
    'J116': { code: 'J116', meaning: 'the amount cannot be posted to the balance', retryable: false, httpStatus: 422, source: 'project', when: 'a manual credit or debit of zero, or finer than the balance currency\'s minor unit (e.g. 1.234 EUR)' },
    'J117': { code: 'J117', meaning: 'the business account has no owner to invoice', retryable: false, httpStatus: 422, source: 'project', when: '`POST /balances/{balanceId}/settle-by-collection-invoice` on the balance of a business account without an owner' },
    'J118': { code: 'J118', meaning: 'the balance is the customer\'s own already', retryable: false, httpStatus: 409, source: 'project', when: 'the app\'s `POST /balances/{balanceId}/users` with the owner\'s own referral code' },
    // Project-defined: rental billing (invoices are the spec's I* family, deposits a rental operation)
    'I404': { code: 'I404', meaning: 'invoice not found', retryable: false, httpStatus: 404, source: 'project', when: 'unknown invoice id (or another tenant\'s)' },
    // Project-defined: payments (the spec's P* table is not shown)
    'P120': { code: 'P120', meaning: 'the payment cannot be retried in its state', retryable: false, httpStatus: 409, source: 'project', when: '`POST /payments/{id}/retry` unless AWAITING_RETRY or after a failed 3-D Secure or push challenge' },
    'P121': { code: 'P121', meaning: 'the payment is not waiting for the customer', retryable: false, httpStatus: 409, source: 'project', when: 'a challenge answer for a payment that is not waiting for one' },
    'P124': { code: 'P124', meaning: 'the purchase\'s charge was declined: nothing was bought', retryable: false, httpStatus: 402, source: 'project', when: 'a package purchase whose first charge was declined: its invoice CLOSED, the credit it took given back, nothing granted' },
    'P122': { code: 'P122', meaning: 'the payment source is in use by a running payment', retryable: true, httpStatus: 409, source: 'project', when: '`DELETE /payments` for a source a running payment charges' },
    'I140': { code: 'I140', meaning: 'the refund has finished', retryable: false, httpStatus: 409, source: 'project', when: 'a call to a refund whose workflow has ended (re-read the refunding invoice)' },
    'P404': { code: 'P404', meaning: 'payment not found', retryable: false, httpStatus: 404, source: 'project', when: 'unknown payment id (or another tenant\'s or customer\'s)' },
    'P405': { code: 'P405', meaning: 'payment source not found', retryable: false, httpStatus: 404, source: 'project', when: 'unknown payment source for the user or group given' },
    // Project-defined: invoices (the spec's I* table is not shown)
    'I120': { code: 'I120', meaning: 'only OPEN invoices can be edited', retryable: false, httpStatus: 409, source: 'project', when: 'title, description or line-item changes after billing' },
    'I121': { code: 'I121', meaning: 'only OPEN invoices can be billed', retryable: false, httpStatus: 409, source: 'project', when: '`POST /invoices/{id}/bill` on an invoice billed already' },
    'I122': { code: 'I122', meaning: 'the invoice is not paid, so nothing can be refunded', retryable: false, httpStatus: 409, source: 'project', when: '`POST /invoices/{id}/refund` before payment, on a refunding invoice or while a refund runs' },
    'I123': { code: 'I123', meaning: 'only invoices whose collection failed can be marked as lost', retryable: false, httpStatus: 409, source: 'project', when: '`POST /invoices/{id}/mark-as-lost` in another state' },
    'I124': { code: 'I124', meaning: 'only unpaid billed invoices can be marked for collection', retryable: false, httpStatus: 409, source: 'project', when: '`POST /invoices/{id}/mark-for-collection` in another state' },
    'I125': { code: 'I125', meaning: 'the invoice has no payment to retry', retryable: false, httpStatus: 409, source: 'project', when: 'the app\'s `/invoices/retry` for an invoice that is paid or not billed' },
    'I126': { code: 'I126', meaning: 'give either net or gross on a line item, not both', retryable: false, httpStatus: 422, source: 'project', when: 'a line item with both or neither price' },
    'I127': { code: 'I127', meaning: 'the refund exceeds what was paid', retryable: false, httpStatus: 422, source: 'project', when: 'refund items above a line\'s paid amount less what earlier refunds returned' },
    'I128': { code: 'I128', meaning: 'an invoice needs a positive total to be billed', retryable: false, httpStatus: 422, source: 'project', when: 'billing an invoice whose total is zero or negative' },
    'I129': { code: 'I129', meaning: 'the channel cannot deliver invoices yet', retryable: false, httpStatus: 422, source: 'project', when: 'resend through PUSH or a chat channel (no provider connected)' },
    'I130': { code: 'I130', meaning: 'the customer has no verified address for the channel', retryable: false, httpStatus: 422, source: 'project', when: 'resend by EMAIL or SMS to a customer without that address' },
    'I405': { code: 'I405', meaning: 'line item not found', retryable: false, httpStatus: 404, source: 'project', when: 'unknown line item of the invoice' },
    'I406': { code: 'I406', meaning: 'line-item template not found', retryable: false, httpStatus: 404, source: 'project', when: 'unknown template id on a line item' },
    'I131': { code: 'I131', meaning: 'the amount has more decimals than the invoice currency has', retryable: false, httpStatus: 422, source: 'project', when: 'a line-item amount finer than the currency\'s minor unit or the business unit\'s rounding (e.g. 1.234 EUR, 1.5 JPY)' },
    'I132': { code: 'I132', meaning: 'the invoice could not be sent; try again', retryable: true, httpStatus: 503, source: 'project', when: 'resend when the mail server or SMS provider did not take the message' },
    'I133': { code: 'I133', meaning: 'the report window is not allowed', retryable: false, httpStatus: 422, source: 'project', when: '`GET /invoices/reports` with `from` not before `to`, or longer than its period allows (366 days by DAY, 5 years by WEEK, 20 by MONTH, 100 by YEAR)' },
    'P123': { code: 'P123', meaning: 'name the payment source and exactly one owner', retryable: false, httpStatus: 422, source: 'project', when: '`DELETE /payments` without `sourceId`, without or with both of `userId` and `userGroupId`, or with query and body disagreeing' },
    // Project-defined: payment gateways (the spec's PGS* table is not shown)
    'PGS100': { code: 'PGS100', meaning: 'the payment gateway is unavailable', retryable: true, httpStatus: 503, source: 'project', when: 'the gateway did not answer a synchronous call (payment-source checks, refunds started from the API)' },
    'PGS101': { code: 'PGS101', meaning: 'the webhook signature is invalid', retryable: false, httpStatus: 400, source: 'project', when: 'a gateway webhook whose signature does not verify (or too old)' },
    'PGS102': { code: 'PGS102', meaning: 'no such payment gateway is configured', retryable: false, httpStatus: 404, source: 'project', when: 'a webhook for an adapter the deployment does not run' },
    'PGS103': { code: 'PGS103', meaning: 'the payment source was declined by the gateway', retryable: false, httpStatus: 422, source: 'project', when: 'adding a payment method the gateway refuses: a declined card or failed 3-D Secure when confirming a setup (the setup answers FAILED with it), or a setup the gateway will not start' },
    'PGS104': { code: 'PGS104', meaning: 'the sandbox challenge was answered already', retryable: false, httpStatus: 409, source: 'project', when: 'answering a sandbox 3-D Secure or push challenge a second time, differently' },
    'PGS105': { code: 'PGS105', meaning: 'this answer does not fit the challenge', retryable: false, httpStatus: 422, source: 'project', when: 'a push answer to a 3-D Secure challenge, or the reverse' },
    'PGS106': { code: 'PGS106', meaning: 'the sandbox charge cannot be disputed', retryable: false, httpStatus: 409, source: 'project', when: 'opening a dispute on a sandbox charge that has not succeeded' },
    'PGS107': { code: 'PGS107', meaning: 'payment method setup not found', retryable: false, httpStatus: 404, source: 'project', when: 'an unknown setup id in the app (or another customer\'s), or a sandbox setup reference with a client secret not its own' },
    'PGS108': { code: 'PGS108', meaning: 'the setup was confirmed already', retryable: false, httpStatus: 409, source: 'project', when: 'confirming a sandbox setup a second time with another token' },
    'PGS109': { code: 'PGS109', meaning: 'name the branch the payment method is for', retryable: false, httpStatus: 422, source: 'project', when: 'the app\'s `POST /payment-methods/setups` without `branchId` for a customer without a home business unit, in a tenant of several business units' },
    'PGS404': { code: 'PGS404', meaning: 'sandbox challenge or charge not found', retryable: false, httpStatus: 404, source: 'project', when: 'an unknown reference on the sandbox gateway\'s challenge page or dispute command (or another tenant\'s)' },
    'R250': { code: 'R250', meaning: 'the rental has no active deposit to release (none held, or already released)', retryable: false, httpStatus: 409, source: 'project', when: '`POST /rentals/{rentalId}/release-deposit` when none was held or it was released already' },
  },
);

declare module './errors.js' {
  interface ErrorTables {
    finance: typeof financeErrors;
  }
}
