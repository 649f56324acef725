// The voucher state keeper: each firing of a tenant's `voucher-states:{tenant}` schedule runs one workflow
// that asks its activity to bring the tenant's vouchers up to the workflow's clock (PENDING → ACTIVE with a
// Value voucher's credit, past validUntil → EXPIRED). The activity is idempotent: a voucher already moved
// costs nothing, a credit is written once (its ledger key).
import { proxyActivities } from '@temporalio/workflow';
import type { createVoucherStateActivities } from '../activities/voucher-states.js';
import type { VoucherStatesInput, VoucherStatesResult } from './voucher-states.messages.js';

const { refreshTenantVoucherStates } = proxyActivities<ReturnType<typeof createVoucherStateActivities>>({
  startToCloseTimeout: '2 minutes',
  retry: { initialInterval: '5 seconds', backoffCoefficient: 2, maximumInterval: '1 minute' },
});

/** Moves a tenant's vouchers to the states their dates give; started every minute by the tenant's schedule. */
export async function voucherStatesWorkflow(input: VoucherStatesInput): Promise<VoucherStatesResult> {
  return refreshTenantVoucherStates({ tenant: input.tenant, asOf: new Date().toISOString() });
}
