// The rental workflow's reservation steps: the reservation itself and bought reservation minutes. Each
// runs its write (db/rental-reservation.ts) in one tenant transaction with the activity's idempotency
// key and turns domain refusals into typed, non-retryable failures (asActivity).
import { inTenantTransaction, tenantEm } from '../db/orm.js';
import {
  recordBoughtReservationMinutes,
  recordRefusedStartCheck,
  reserveRentalRecord,
  type RecordReservationPurchaseInput,
  type ReservationResult,
  type ReserveRentalInput,
} from '../db/rental-reservation.js';
import { warmRentalReadCache } from '../db/rental-rows.js';
import { isDomainError } from '../domain/errors.js';
import { DUNNING_SETTING_KEY } from '../domain/finance.js';
import { RENTAL_RESERVATION_SETTING_KEY } from '../domain/rental.js';
import { RENTAL_REQUIREMENTS_SETTING_KEY } from '../domain/rental-requirements.js';
import { rentalWorkflowId } from '../workflows/rental.messages.js';
import type { ActivityDeps } from './deps.js';
import { activityIdempotencyKey, asActivity } from './support.js';

/** Activities of the rental's reservation: holding the vehicle, and buying reservation minutes. */
export function createRentalReservationActivities({ orm }: ActivityDeps) {
  /** The reservation itself (see reserveRental), in one transaction after warming the read cache. */
  async function reserve(input: ReserveRentalInput): Promise<ReservationResult> {
    await warmRentalReadCache(tenantEm(orm, input.tenant), input.tenant, [
      RENTAL_RESERVATION_SETTING_KEY,
      RENTAL_REQUIREMENTS_SETTING_KEY,
      DUNNING_SETTING_KEY,
    ]);
    return inTenantTransaction(orm, input.tenant, (em) =>
      reserveRentalRecord(em, input, {
        workflowId: rentalWorkflowId(input.tenant, input.rentalId),
        idempotencyKey: activityIdempotencyKey(),
      }),
    );
  }

  return {
    /** Holds the vehicle for the customer if every ready-to-rent rule passes; idempotent per rental id. */
    async reserveRental(input: ReserveRentalInput): Promise<ReservationResult> {
      return asActivity(() =>
        reserve(input).catch(async (error: unknown) => {
          // A reservation refused by the start requirements leaves the check on the customer's timeline.
          if (isDomainError(error) && error.details?.report)
            await inTenantTransaction(orm, input.tenant, async (em) =>
              recordRefusedStartCheck(
                em,
                input,
                { code: error.code, message: error.message, report: error.details!.report },
                activityIdempotencyKey(),
              ),
            ).catch(() => undefined);
          throw error;
        }),
      );
    },

    /** Records bought reservation minutes (buy-reservation): the longer expiry and the event; idempotent. */
    async recordReservationPurchase(input: RecordReservationPurchaseInput): Promise<void> {
      const idempotencyKey = activityIdempotencyKey();
      return asActivity(() =>
        inTenantTransaction(orm, input.tenant, (em) =>
          recordBoughtReservationMinutes(em, input, idempotencyKey),
        ),
      );
    },
  };
}
