// Messages, ids and start options of the vehicle command workflow; the API and tests import these
// without importing workflow code.
import type { WorkflowIdReusePolicy } from '@temporalio/common';
import type { VehicleOperationStep } from '../domain/vehicle.js';
import { BranchIdKey, TenantIdKey, VehicleIdKey } from './search-attributes.js';

/** The vehicle command workflow's type name: execute-command starts it by it. */
export const VEHICLE_COMMAND_WORKFLOW_TYPE = 'vehicleCommandWorkflow';

/**
 * `vehicle-command:{tenant}:{vehicleId}`: at most one operator command runs per vehicle; starting a
 * second while one runs fails, which execute-command answers with 409 (V409).
 */
export function vehicleCommandWorkflowId(tenant: string, vehicleId: number): string {
  return `vehicle-command:${tenant}:${vehicleId}`;
}

/**
 * One operator command or configured operation (its steps, in order); `commandId` is chosen by the API
 * once and every step's id derives from it, so retries reuse them.
 */
export interface VehicleCommandWorkflowInput {
  tenant: string;
  branchId: number;
  vehicleId: number;
  commandId: string;
  /** What is run: e.g. `LOCATE` or `action:3`. */
  label: string;
  steps: VehicleOperationStep[];
  requestedBy: string;
}

/** Start options of every vehicle command workflow (API and tests alike). */
export function vehicleCommandWorkflowStartOptions(input: VehicleCommandWorkflowInput, taskQueue: string) {
  return {
    workflowId: vehicleCommandWorkflowId(input.tenant, input.vehicleId),
    taskQueue,
    args: [input] as [VehicleCommandWorkflowInput],
    // A finished command frees the id for the next one; a running one makes the start fail (409).
    workflowIdReusePolicy: 'ALLOW_DUPLICATE' as WorkflowIdReusePolicy,
    typedSearchAttributes: [
      { key: TenantIdKey, value: input.tenant },
      { key: BranchIdKey, value: String(input.branchId) },
      { key: VehicleIdKey, value: String(input.vehicleId) },
    ],
    memo: { requestedBy: input.requestedBy, label: input.label, commandId: input.commandId },
  };
}
