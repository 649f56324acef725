// A payment's shape on bare Temporal, for bench/payment-settlement.ts: one workflow per payment running
// one activity per attempt (a single attempt that succeeds) and returning its state. The activity does
// nothing; what remains is Temporal's own cost of a settled payment.
import { proxyActivities } from '@temporalio/workflow';

export const BASELINE_PAYMENT_WORKFLOW_TYPE = 'baselinePaymentWorkflow';

export interface BaselinePaymentActivities {
  charge(attempt: number): Promise<'SUCCEEDED'>;
}

const { charge } = proxyActivities<BaselinePaymentActivities>({ startToCloseTimeout: '30 seconds' });

/** One attempt, then PAID: the least a workflow-backed payment costs. */
export async function baselinePaymentWorkflow(): Promise<'PAID'> {
  await charge(1);
  return 'PAID';
}
