// Activities of the refund workflow: the first step checks the request under the original invoice's row
// lock and records the refunding invoice; the second gives the money back (the gateway's refund under the
// workflow's key, while heartbeating) and records the outcome on both invoices.
import { inTenantTransaction } from '../db/orm.js';
import { recordRefund, recordRefundOutcome, type RecordedRefund } from '../db/refunds.js';
import type { RefundItem } from '../domain/finance.js';
import { Decimal } from 'decimal.js';
import type { RefundOutcome } from '../platform/payment-gateway/port.js';
import type { ActivityDeps } from './deps.js';
import { asActivity, withHeartbeat } from './support.js';

/** The refund's request as the workflow sends it (`at` is workflow time). */
export interface RecordRefundInput {
  tenant: string;
  refundInvoiceId: number;
  invoiceId: number;
  reason: string;
  items: RefundItem[];
  requestedBy: string;
  at: string;
  /** `{workflowId}/{runId}`: the refunding invoice's key. */
  idempotencyKey: string;
}

/** The money's way back, as the first step worked it out. */
export interface CompleteRefundInput extends RecordedRefund {
  tenant: string;
  invoiceId: number;
  reason: string;
  requestedBy: string;
  at: string;
  /** `{workflowId}/{runId}/refund`: the gateway refunds once per key. */
  idempotencyKey: string;
}

/** Activities of the refund workflow. */
export function createRefundActivities({ orm, paymentGateways }: ActivityDeps) {
  /** The gateway's refund of the charge's part, or a success without a call when nothing goes through it. */
  async function refundAtGateway(input: CompleteRefundInput): Promise<RefundOutcome | null> {
    if (!input.gateway || !input.chargeReference || new Decimal(input.gatewayAmount).lte(0)) return null;
    const gateway = paymentGateways.byName(input.gateway);
    // A deployment without this charge's adapter cannot refund it now: retried until it has it again.
    if (!gateway) throw new Error(`payment gateway ${input.gateway} is not configured`);
    return gateway.refund({
      idempotencyKey: input.idempotencyKey,
      chargeReference: input.chargeReference,
      amount: input.gatewayAmount,
      currency: input.currency,
      reason: input.reason,
      metadata: {
        tenant: input.tenant,
        invoiceId: String(input.invoiceId),
        refundInvoiceId: String(input.refundInvoiceId),
      },
    });
  }

  return {
    /**
     * Checks the refund under the original invoice's row lock (I122, I405, I127) and records the refunding
     * invoice (IS_REFUND) with the original REFUND_IN_PROGRESS; a retry finds what it recorded.
     */
    async recordRefund(input: RecordRefundInput): Promise<RecordedRefund> {
      return asActivity(() =>
        inTenantTransaction(orm, input.tenant, (em) =>
          recordRefund(em, { ...input, at: new Date(input.at) }),
        ),
      );
    },

    /**
     * Gives the money back and records how it went: the gateway's refund (idempotent on the workflow's
     * key; network faults retry this activity with it), the balance's part as ledger credit, then REFUNDED
     * (ALLOWS_REFUND while lines have more to give back) or EXCEPTION_REFUND on the original.
     */
    async completeRefund(input: CompleteRefundInput): Promise<'REFUNDED' | 'EXCEPTION_REFUND'> {
      return withHeartbeat(() =>
        asActivity(async () => {
          const outcome = await refundAtGateway(input);
          return inTenantTransaction(orm, input.tenant, (em) =>
            recordRefundOutcome(em, {
              tenant: input.tenant,
              refundInvoiceId: input.refundInvoiceId,
              succeeded: outcome === null || outcome.status === 'SUCCEEDED',
              reference: outcome?.reference ?? null,
              failureMessage: outcome?.status === 'FAILED' ? `${outcome.code}: ${outcome.message}` : null,
              balanceAmount: input.balanceAmount,
              requestedBy: input.requestedBy,
              at: new Date(input.at),
            }),
          );
        }),
      );
    },
  };
}

/** The activity interface the refund workflow proxies. */
export type RefundActivities = ReturnType<typeof createRefundActivities>;
