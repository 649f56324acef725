// The payment representation both interfaces use: a payment (an invoice's collection or a balance's
// settlement) with each of its attempts and their own states, and the short summary an invoice lists.
// Amounts are decimal strings in the currency's minor digits.
import { Type, type Static } from '@sinclair/typebox';
import type { EntityManager } from '@mikro-orm/postgresql';
import { Payment } from '../../db/entities/Payment.js';
import { PaymentAttempt } from '../../db/entities/PaymentAttempt.js';
import { paymentAttemptStates, paymentPurposes, paymentStates } from '../../domain/finance.js';
import { formatAmount } from '../../domain/money.js';
import { component, DateTime, Id, Nullable, StringEnum } from '../kernel/schemas.js';

const Money = (description: string) => Type.String({ description: `${description} Decimal string.` });

export const PaymentState = StringEnum(paymentStates);

export const PaymentChallengeSchema = component(
  'PaymentChallenge',
  Type.Object(
    {
      type: StringEnum(['THREE_DS', 'PUSH'] as const),
      url: Nullable(
        Type.String({ description: 'Where the app sends the customer (3-D Secure); null for a push.' }),
      ),
      expiresAt: DateTime({ description: 'The wait ends then (THREE_DS_FAILED / PUSH_CANCELLED_BY_USER).' }),
    },
    { additionalProperties: false },
  ),
);

export const PaymentAttemptSchema = component(
  'PaymentAttempt',
  Type.Object(
    {
      id: Id(),
      number: Type.Integer({ description: '1 for the first attempt.' }),
      state: StringEnum(paymentAttemptStates),
      trigger: StringEnum(['FIRST', 'SCHEDULED', 'MANUAL'] as const),
      gatewayReference: Nullable(Type.String({ description: "The gateway's id of this charge." })),
      declineCode: Nullable(Type.String()),
      declineMessage: Nullable(Type.String()),
      retryAfterSeconds: Nullable(Type.Integer()),
      startedAt: DateTime(),
      finishedAt: Nullable(DateTime()),
    },
    { additionalProperties: false },
  ),
);

export const PaymentSchema = component(
  'Payment',
  Type.Object(
    {
      id: Id(),
      purpose: StringEnum(paymentPurposes),
      state: PaymentState,
      businessUnitId: Id(),
      guserId: Nullable(Id()),
      userGroupId: Nullable(Id()),
      invoiceId: Nullable(Id({ description: 'purpose INVOICE: the invoice collected.' })),
      balanceId: Nullable(Id({ description: 'purpose BALANCE_SETTLEMENT: the balance settled.' })),
      paymentSourceId: Nullable(Id({ description: 'The source charged; null when none was left.' })),
      gateway: Type.String({ description: '`sandbox` or `stripe`.' }),
      amount: Money('Charged amount.'),
      currency: Type.String(),
      attemptCount: Type.Integer(),
      nextRetryAt: Nullable(
        DateTime({ description: 'AWAITING_RETRY: when the next automatic attempt runs.' }),
      ),
      challenge: Nullable(PaymentChallengeSchema),
      gatewayReference: Nullable(
        Type.String({ description: "The gateway's id of the charge that succeeded." }),
      ),
      failureCode: Nullable(Type.String()),
      failureMessage: Nullable(Type.String()),
      workflowId: Type.String({ description: '`payment:{tenant}:{id}` in the Temporal UI.' }),
      requestedBy: Type.String(),
      paidAt: Nullable(DateTime()),
      createdAt: DateTime(),
      updatedAt: DateTime(),
      attempts: Type.Array(PaymentAttemptSchema, { description: 'Oldest first, each with its own state.' }),
    },
    { additionalProperties: false },
  ),
);

/** What an invoice says about each of its payments. */
export const InvoicePaymentSummary = component(
  'InvoicePaymentSummary',
  Type.Object(
    {
      id: Id(),
      state: PaymentState,
      amount: Money('Charged amount (what the balance credit left).'),
      currency: Type.String(),
      attemptCount: Type.Integer(),
      nextRetryAt: Nullable(DateTime()),
      challenge: Nullable(PaymentChallengeSchema),
      failureCode: Nullable(Type.String()),
      paidAt: Nullable(DateTime()),
      createdAt: DateTime(),
    },
    { additionalProperties: false },
  ),
);

/** The API's payment with its attempts (oldest first). */
export function toPaymentDto(
  payment: Payment,
  attempts: readonly PaymentAttempt[],
): Static<typeof PaymentSchema> {
  return {
    id: payment.id,
    purpose: payment.purpose,
    state: payment.state,
    businessUnitId: payment.businessUnit.id,
    guserId: payment.customer?.id ?? null,
    userGroupId: payment.userGroup?.id ?? null,
    invoiceId: payment.invoice?.id ?? null,
    balanceId: payment.balance?.id ?? null,
    paymentSourceId: payment.paymentSource?.id ?? null,
    gateway: payment.gateway,
    amount: formatAmount(payment.amount, payment.currency),
    currency: payment.currency,
    attemptCount: payment.attemptCount,
    nextRetryAt: payment.nextRetryAt?.toISOString() ?? null,
    challenge: payment.challenge ?? null,
    gatewayReference: payment.gatewayReference ?? null,
    failureCode: payment.failureCode ?? null,
    failureMessage: payment.failureMessage ?? null,
    workflowId: payment.workflowId,
    requestedBy: payment.requestedBy,
    paidAt: payment.paidAt?.toISOString() ?? null,
    createdAt: payment.createdAt.toISOString(),
    updatedAt: payment.updatedAt.toISOString(),
    attempts: attempts.map((attempt) => ({
      id: attempt.id,
      number: attempt.number,
      state: attempt.state,
      trigger: attempt.trigger,
      gatewayReference: attempt.gatewayReference ?? null,
      declineCode: attempt.declineCode ?? null,
      declineMessage: attempt.declineMessage ?? null,
      retryAfterSeconds: attempt.retryAfterSeconds ?? null,
      startedAt: attempt.startedAt.toISOString(),
      finishedAt: attempt.finishedAt?.toISOString() ?? null,
    })),
  };
}

/** An invoice's view of one of its payments. */
export function toInvoicePaymentSummary(payment: Payment): Static<typeof InvoicePaymentSummary> {
  return {
    id: payment.id,
    state: payment.state,
    amount: formatAmount(payment.amount, payment.currency),
    currency: payment.currency,
    attemptCount: payment.attemptCount,
    nextRetryAt: payment.nextRetryAt?.toISOString() ?? null,
    challenge: payment.challenge ?? null,
    failureCode: payment.failureCode ?? null,
    paidAt: payment.paidAt?.toISOString() ?? null,
    createdAt: payment.createdAt.toISOString(),
  };
}

/** Payments with their attempts, loaded in one more query, in the order given. */
export async function paymentDtos(
  em: EntityManager,
  payments: readonly Payment[],
): Promise<Static<typeof PaymentSchema>[]> {
  if (payments.length === 0) return [];
  const attempts = await em.find(
    PaymentAttempt,
    { payment: { $in: payments.map((payment) => payment.id) } },
    { orderBy: { payment: 'asc', number: 'asc' } },
  );
  const byPayment = new Map<number, PaymentAttempt[]>();
  for (const attempt of attempts)
    byPayment.set(attempt.payment.id, [...(byPayment.get(attempt.payment.id) ?? []), attempt]);
  return payments.map((payment) => toPaymentDto(payment, byPayment.get(payment.id) ?? []));
}
