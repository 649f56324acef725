// The vehicle command workflow: one operator command, run once on the device, its outcome recorded.
import { proxyActivities } from '@temporalio/workflow';
import type { ExecutedVehicleCommand, FleetActivities } from '../activities/fleet.js';
import type { VehicleCommandWorkflowInput } from './fleet.messages.js';

// A device that does not answer is asked once more with the same command id (it answers repeats from
// its reply cache without acting twice); a refusal or error is final.
const fleet = proxyActivities<FleetActivities>({
  startToCloseTimeout: '40 seconds',
  retry: { initialInterval: '200 milliseconds', backoffCoefficient: 2, maximumAttempts: 2 },
});

/** Runs one operator command on a vehicle (execute-command); its id serialises commands per vehicle. */
export async function vehicleCommandWorkflow(
  input: VehicleCommandWorkflowInput,
): Promise<ExecutedVehicleCommand> {
  return fleet.executeVehicleCommand({
    tenant: input.tenant,
    vehicleId: input.vehicleId,
    command: input.command,
    commandId: input.commandId,
    params: input.params,
    requestedBy: input.requestedBy,
  });
}
