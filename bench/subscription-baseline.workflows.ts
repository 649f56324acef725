// A subscription renewal's shape on bare Temporal, for bench/subscriptions.ts: a workflow sleeping to the
// period's end, then one activity writing the charge, the payment as a child workflow (one activity for its
// one attempt), one activity recording the new period, and continue-as-new into the next period (which
// returns at once here). The activities do nothing; what remains is Temporal's own cost of a renewal.
import { continueAsNew, executeChild, proxyActivities, sleep } from '@temporalio/workflow';

export const BASELINE_RENEWAL_WORKFLOW_TYPE = 'baselineRenewalWorkflow';

export interface BaselineRenewalActivities {
  chargePeriod(period: number): Promise<number>;
  chargeAttempt(paymentId: number): Promise<'SUCCEEDED'>;
  recordPeriod(period: number): Promise<void>;
}

const steps = proxyActivities<BaselineRenewalActivities>({ startToCloseTimeout: '30 seconds' });

/** The payment: one attempt. */
export async function baselineRenewalPaymentWorkflow(paymentId: number): Promise<'PAID'> {
  await steps.chargeAttempt(paymentId);
  return 'PAID';
}

/** Sleeps to `renewAtMs`, renews once, continues as new; the new run ends. */
export async function baselineRenewalWorkflow(input: {
  renewAtMs: number;
  renewed?: boolean;
}): Promise<number> {
  if (input.renewed) return 2;
  await sleep(Math.max(1, input.renewAtMs - Date.now()));
  const paymentId = await steps.chargePeriod(2);
  await executeChild(baselineRenewalPaymentWorkflow, { args: [paymentId] });
  await steps.recordPeriod(2);
  return continueAsNew<typeof baselineRenewalWorkflow>({ ...input, renewed: true });
}
