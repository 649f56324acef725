// Commands on a rental, which both interfaces use: its workflow, the codes an operation may answer and the
// cancellation of a reservation.
import { Rental } from '../../db/entities/Rental.js';
import { DomainError } from '../../domain/errors.js';
import { endRequirementCodes } from '../../domain/rental-requirements.js';
import { transitionRefusal } from '../../domain/rental.js';
import { cancelReservationUpdate, rentalWorkflowId } from '../../workflows/rental.messages.js';
import type { RouteContext } from '../kernel/route.js';
import { loadRental } from './rental-creation.js';

/** The rental workflow of a rental. */
export const workflowOf = (ctx: RouteContext, rentalId: number) =>
  ctx.services.temporal.workflow.getHandle(rentalWorkflowId(ctx.tenant, rentalId));

/** Codes an operation may answer: the transition table, the concurrency rejection and the vehicle's failures. */
export const rentalOperationErrors = [
  'R404',
  'R201',
  'R202',
  'R203',
  'R204',
  'R173',
  'R174',
  'V502',
  'V504',
  // A failed end requirement refuses END (unless an operator overrides it); RQ100: broken configuration.
  ...Object.values(endRequirementCodes),
  'RQ100',
] as const;

/** Cancels a reservation through its workflow and answers with the reloaded rental (both interfaces). */
export async function cancelRental(ctx: RouteContext, rental: Rental): Promise<Rental> {
  if (transitionRefusal('CANCEL', rental.state, rental.activeMode ?? undefined))
    throw new DomainError('R201', `only a reservation can be cancelled; the rental is ${rental.state}`);
  await workflowOf(ctx, rental.id).executeUpdate(cancelReservationUpdate, {
    args: [{ requestedBy: ctx.actor }],
  });
  return loadRental(ctx.em.fork(), rental.id);
}
