// The finance domain's activities (a domain registers one factory): payments' attempts and steps, and
// refunds' record and completion.
import type { ActivityDeps } from './deps.js';
import { createPaymentActivities } from './payments.js';
import { createRefundActivities } from './refunds.js';

/** Every activity of the payment and refund workflows. */
export function createFinanceActivities(deps: ActivityDeps) {
  return { ...createPaymentActivities(deps), ...createRefundActivities(deps) };
}
