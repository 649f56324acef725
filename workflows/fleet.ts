// The vehicle command workflow: one operator command or configured operation, each device command run
// once on the device, each platform-side step recorded once.
import { proxyActivities } from '@temporalio/workflow';
import type { ExecutedVehicleCommand, FleetActivities } from '../activities/fleet.js';
import type { VehicleCommandWorkflowInput } from './fleet.messages.js';

// A device that does not answer is asked once more with the same command id (it answers repeats from
// its reply cache without acting twice); a refusal or error is final.
const fleet = proxyActivities<FleetActivities>({
  startToCloseTimeout: '40 seconds',
  retry: { initialInterval: '200 milliseconds', backoffCoefficient: 2, maximumAttempts: 2 },
});

// Platform-side steps are database writes: retried on infrastructure faults, idempotent by their key.
const records = proxyActivities<FleetActivities>({
  startToCloseTimeout: '20 seconds',
  retry: { initialInterval: '500 milliseconds', backoffCoefficient: 2, maximumAttempts: 10 },
});

/**
 * Runs an operator command or a configured operation's steps on one vehicle (its id serialises them per
 * vehicle); answers with the last device command's outcome. A failing step stops the sequence.
 */
export async function vehicleCommandWorkflow(
  input: VehicleCommandWorkflowInput,
): Promise<ExecutedVehicleCommand> {
  let last: ExecutedVehicleCommand = { commandId: input.commandId, status: 'OK', data: null };
  for (const [index, step] of input.steps.entries()) {
    const stepId = input.steps.length === 1 ? input.commandId : `${input.commandId}:${index}`;
    if (step.type === 'COMMAND')
      last = await fleet.executeVehicleCommand({
        tenant: input.tenant,
        vehicleId: input.vehicleId,
        command: step.command,
        commandId: stepId,
        params: step.params,
        requestedBy: input.requestedBy,
      });
    else
      await records.applyVehicleActivityStep({
        tenant: input.tenant,
        vehicleId: input.vehicleId,
        step,
        idempotencyKey: stepId,
        requestedBy: input.requestedBy,
        label: input.label,
      });
  }
  return last;
}
