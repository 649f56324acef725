// Messages of the pricing-version publication workflow, its id and its start options; the API and the
// tests import these without importing workflow code.
import { defineQuery, defineUpdate } from '@temporalio/workflow';
import type { WorkflowIdReusePolicy } from '@temporalio/common';
import type { PricingVersionStatus } from '../domain/pricing.js';
import { EntityStateKey, TenantIdKey } from './search-attributes.js';

/** The publication workflow's type name: the publish endpoint starts it by it. */
export const PRICING_VERSION_WORKFLOW_TYPE = 'pricingVersionWorkflow';

/** `pricing-version:{tenant}:{versionId}`: one publication workflow per version, readable in the Temporal UI. */
export function pricingVersionWorkflowId(tenant: string, versionId: number): string {
  return `pricing-version:${tenant}:${versionId}`;
}

/** What the publish endpoint asks for; the workflow's first activity checks it against the database. */
export interface PricingVersionWorkflowInput {
  tenant: string;
  pricingBundleId: number;
  versionId: number;
  /** ISO instants. */
  effectiveFrom: string;
  validUntil: string | null;
  requestedBy: string;
}

/**
 * How every publication starts: a readable id and a reuse policy that allows a new attempt once an
 * earlier one ended (a refused publication ends its run; a running one makes a second publish fail).
 */
export function pricingVersionWorkflowStartOptions(input: PricingVersionWorkflowInput, taskQueue: string) {
  return {
    workflowId: pricingVersionWorkflowId(input.tenant, input.versionId),
    taskQueue,
    args: [input] as [PricingVersionWorkflowInput],
    workflowIdReusePolicy: 'ALLOW_DUPLICATE' as WorkflowIdReusePolicy,
    typedSearchAttributes: [
      { key: TenantIdKey, value: input.tenant },
      { key: EntityStateKey, value: 'PUBLISHING' },
    ],
    memo: { requestedBy: input.requestedBy, pricingBundleId: input.pricingBundleId },
  };
}

/** Where a publication stands: published and waiting for its date, applied, ended, or refused. */
export interface PricingVersionWorkflowSnapshot {
  versionId: number;
  stage: 'PUBLISHING' | 'SCHEDULED' | 'APPLIED' | 'ENDED' | 'REFUSED';
  status?: PricingVersionStatus;
}

/** Answers once the version is PUBLISHED (or the publication refused), so POST .../publish returns the result. */
export const awaitPublicationUpdate = defineUpdate<PricingVersionWorkflowSnapshot>('awaitPublication');

/** The publication's live stage, for ops. */
export const pricingVersionStatusQuery = defineQuery<PricingVersionWorkflowSnapshot>('pricingVersionStatus');
