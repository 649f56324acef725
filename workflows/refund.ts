// The refund workflow: one per refunding invoice (`refund:{tenant}:{refundInvoiceId}`). Its first step
// records the refunding invoice (or refuses the request), which the API awaits; then the money goes back
// through the gateway and the original ends REFUNDED (ALLOWS_REFUND while partly refunded) or
// EXCEPTION_REFUND. See docs/finance.md.
import {
  allHandlersFinished,
  condition,
  proxyActivities,
  setHandler,
  upsertSearchAttributes,
  workflowInfo,
  type ApplicationFailure,
} from '@temporalio/workflow';
import type { RefundActivities } from '../activities/refunds.js';
import {
  awaitRefundRecordedUpdate,
  refundStatusQuery,
  type RefundWorkflowInput,
  type RefundWorkflowResult,
  type RefundWorkflowSnapshot,
} from './refund.messages.js';
import { EntityStateKey } from './search-attributes.js';
import { codedFailure } from './failures.js';

// The first step: database writes; faults retry, refusals (I122, I127, I405) do not.
const records = proxyActivities<RefundActivities>({
  startToCloseTimeout: '20 seconds',
  retry: {
    initialInterval: '1 second',
    backoffCoefficient: 2,
    maximumInterval: '30 seconds',
    maximumAttempts: 10,
  },
});

// The gateway's refund: heartbeats while the gateway answers; network faults retry with the same key for
// as long as the gateway stays away.
const gateway = proxyActivities<RefundActivities>({
  startToCloseTimeout: '2 minutes',
  heartbeatTimeout: '10 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' },
});

/**
 * One refund: records the refunding invoice (awaitRefundRecorded answers then, or with the refusal),
 * gives the money back and records REFUNDED or EXCEPTION_REFUND.
 */
export async function refundWorkflow(input: RefundWorkflowInput): Promise<RefundWorkflowResult> {
  const snapshot: RefundWorkflowSnapshot = { refundInvoiceId: input.refundInvoiceId, state: 'RECORDING' };
  let refused: ApplicationFailure | undefined;
  const moveTo = (state: RefundWorkflowSnapshot['state']) => {
    snapshot.state = state;
    upsertSearchAttributes([{ key: EntityStateKey, value: state }]);
  };

  setHandler(refundStatusQuery, () => ({ ...snapshot }));
  setHandler(awaitRefundRecordedUpdate, async () => {
    await condition(() => snapshot.state !== 'RECORDING');
    if (refused) throw refused;
    return { ...snapshot };
  });

  const { workflowId, firstExecutionRunId: runId } = workflowInfo();
  const common = {
    tenant: input.tenant,
    invoiceId: input.invoiceId,
    reason: input.reason,
    requestedBy: input.requestedBy,
  };
  let recorded;
  try {
    recorded = await records.recordRefund({
      ...common,
      refundInvoiceId: input.refundInvoiceId,
      items: input.items,
      at: new Date().toISOString(),
      idempotencyKey: `${workflowId}/${runId}`,
    });
  } catch (error) {
    refused = codedFailure(error, 'I122', 'the refund could not be recorded');
    moveTo('REJECTED');
    await condition(allHandlersFinished);
    return { ...snapshot, refusal: { code: refused.type ?? 'I122', message: refused.message } };
  }
  moveTo('REFUND_IN_PROGRESS');
  const outcome = await gateway.completeRefund({
    ...common,
    ...recorded,
    at: new Date().toISOString(),
    idempotencyKey: `${workflowId}/${runId}/refund`,
  });
  moveTo(outcome);
  await condition(allHandlersFinished);
  return { ...snapshot };
}
