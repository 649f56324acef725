// Messages of the refund workflow, its id and its start options.
import { defineQuery, defineUpdate } from '@temporalio/workflow';
import type { WorkflowIdReusePolicy } from '@temporalio/common';
import type { RefundItem } from '../domain/finance.js';
import { BusinessUnitIdKey, CustomerIdKey, EntityStateKey, TenantIdKey } from './search-attributes.js';

/** The refund workflow's type name. */
export const REFUND_WORKFLOW_TYPE = 'refundWorkflow';

/** `refund:{tenant}:{refundInvoiceId}`: one workflow per refunding invoice. */
export function refundWorkflowId(tenant: string, refundInvoiceId: number): string {
  return `refund:${tenant}:${refundInvoiceId}`;
}

/** What a refund starts with: the id the API allocated for the refunding invoice and the request. */
export interface RefundWorkflowInput {
  tenant: string;
  refundInvoiceId: number;
  invoiceId: number;
  businessUnitId: number;
  customerId: number;
  reason: string;
  items: RefundItem[];
  requestedBy: string;
}

/** How every refund workflow is started (API and tests alike). */
export function refundWorkflowStartOptions(input: RefundWorkflowInput, taskQueue: string) {
  return {
    workflowId: refundWorkflowId(input.tenant, input.refundInvoiceId),
    taskQueue,
    args: [input] as [RefundWorkflowInput],
    workflowIdReusePolicy: 'REJECT_DUPLICATE' as WorkflowIdReusePolicy,
    typedSearchAttributes: [
      { key: TenantIdKey, value: input.tenant },
      { key: BusinessUnitIdKey, value: String(input.businessUnitId) },
      { key: CustomerIdKey, value: String(input.customerId) },
      { key: EntityStateKey, value: 'REFUND_IN_PROGRESS' },
    ],
  };
}

/** Where a refund stands: RECORDING (first step), REFUND_IN_PROGRESS, REFUNDED, EXCEPTION_REFUND or REJECTED. */
export interface RefundWorkflowSnapshot {
  refundInvoiceId: number;
  state: 'RECORDING' | 'REFUND_IN_PROGRESS' | 'REFUNDED' | 'EXCEPTION_REFUND' | 'REJECTED';
}

/** What a finished refund workflow answers: its end state, and the refusal when it was REJECTED. */
export interface RefundWorkflowResult extends RefundWorkflowSnapshot {
  refusal?: { code: string; message: string };
}

/** Waits until the refunding invoice is recorded (or refused): the API answers with it. */
export const awaitRefundRecordedUpdate = defineUpdate<RefundWorkflowSnapshot, []>('awaitRefundRecorded');

export const refundStatusQuery = defineQuery<RefundWorkflowSnapshot>('refundStatus');
