// How the voucher state keeper is called: its workflow type, the per-tenant Temporal Schedule that starts
// it every minute, its input and result. The worker's starter, the tests and the replay recorder import
// these without importing workflow code. See docs/benefits.md, "States".
import type { ScheduleOptions } from '@temporalio/client';
import { TenantIdKey } from './search-attributes.js';

/** The workflow's type name: one run per firing of a tenant's schedule. */
export const VOUCHER_STATES_WORKFLOW_TYPE = 'voucherStatesWorkflow';

/** `voucher-states:{tenant}`: the tenant's schedule, and the prefix of its runs' ids. */
export function voucherStatesScheduleId(tenant: string): string {
  return `voucher-states:${tenant}`;
}

/** How often a tenant's vouchers move: PENDING → ACTIVE (with a Value voucher's credit) and → EXPIRED. */
export const VOUCHER_STATES_INTERVAL = '1 minute';

/** What a run is asked: the tenant whose vouchers to bring up to the run's clock. */
export interface VoucherStatesInput {
  tenant: string;
}

/** What the activity is asked: the tenant and the instant (the workflow's clock). */
export interface RefreshVoucherStatesInput {
  tenant: string;
  asOf: string;
}

/** What a run did: how many vouchers changed state (expired, activated). */
export interface VoucherStatesResult {
  moved: number;
}

/**
 * The tenant's schedule: every minute, without overlap (SKIP); a firing missed while the cluster was down
 * is not caught up beyond a minute (the next run does the same work), and a run is abandoned after ten.
 */
export function voucherStatesScheduleOptions(tenant: string, taskQueue: string): ScheduleOptions {
  return {
    scheduleId: voucherStatesScheduleId(tenant),
    spec: { intervals: [{ every: VOUCHER_STATES_INTERVAL }] },
    action: {
      type: 'startWorkflow',
      workflowType: VOUCHER_STATES_WORKFLOW_TYPE,
      workflowId: voucherStatesScheduleId(tenant),
      taskQueue,
      args: [{ tenant } satisfies VoucherStatesInput],
      workflowExecutionTimeout: '10 minutes',
      typedSearchAttributes: [{ key: TenantIdKey, value: tenant }],
    },
    policies: { overlap: 'SKIP', catchupWindow: '1 minute' },
    typedSearchAttributes: [{ key: TenantIdKey, value: tenant }],
  };
}
