// The rental workflow's transition step (START, PAUSE, RESUME, END, CANCEL, EXPIRE, … of the transition
// table in domain/rental.ts): END's end-requirements check, the vehicle command through the fleet's
// command delivery, then one transaction recording the transition (db/rental-lifecycle.ts). Also the
// record of a failed operation. An ending step's invoice is billed automatically once it committed, after
// the step answered (the rider's END waits for the priced invoice, not for its bill).
import { Context, ApplicationFailure } from '@temporalio/activity';
import { inTenantTransaction, tenantEm } from '../db/orm.js';
import {
  endRequirementsOfRental,
  recordEndRequirementsCheck,
  recordRentalOperationFailure,
  recordRentalTransition,
  type EndCheckOutcome,
  type RecordedTransition,
  type RecordOperationFailureInput,
  type RecordRentalTransitionInput,
} from '../db/rental-lifecycle.js';
import { warmRentalReadCache } from '../db/rental-rows.js';
import { RENTAL_NO_MOVEMENT_SETTING_KEY } from '../domain/rental-trip.js';
import { rentalTransitions, type RentalState } from '../domain/rental.js';
import { RENTAL_DEPOSIT_SETTING_KEY } from '../domain/rental-pricing.js';
import { AUTO_BILL_SETTING_KEY } from '../domain/finance.js';
import { applyEndOverrides, assertRequirementsPassed } from '../domain/rental-requirements.js';
import type { ActivityDeps } from './deps.js';
import { autoBillInStep, autoBillInvoiceOf, startPaymentWorkflow } from './payment-billing.js';
import { activityIdempotencyKey, asActivity, withHeartbeat } from './support.js';
import {
  applyReportToVehicle,
  createCommandDelivery,
  recordCommandOutcomeIn,
  type AnsweredStepCommand,
} from './fleet.js';

/** A transition with its vehicle command: the command is sent, then the transition recorded, in one activity. */
export interface PerformRentalTransitionInput extends Omit<RecordRentalTransitionInput, 'vehicleReport'> {
  vehicleId: number;
  vehicleCommand?: 'UNLOCK' | 'LOCK' | 'OPEN_TAILBOX';
  /** Reply timeout of the command (the category's override); the fleet default otherwise. */
  commandTimeoutMs?: number;
  /**
   * The workflow bills the ended rental's invoice in its own step after the operation answered
   * (`billEndedRental`); without it (histories from before) this step bills it itself.
   */
  billsAfterAnswer?: boolean;
  /**
   * This step bills the ended rental's invoice itself, in a transaction after the step's that it does not
   * wait for, and starts its payment (runs since patch rental-steps-2026-12-billed-in-step).
   */
  billsInStep?: boolean;
}

/** Activities of the rental's transitions: the step with its vehicle command, and failed operations. */
export function createRentalTransitionActivities(deps: ActivityDeps) {
  const { orm } = deps;
  const delivery = createCommandDelivery(deps);
  const { background } = deps;

  /**
   * Checks the end requirements of an END and records the check (RENTAL_REQUIREMENTS_END_CHECK) in its own
   * transaction, so a refused END still leaves it on the timeline; a failed requirement refuses the END
   * with its code unless the operator overrides it (the overridden ones are recorded on the rental).
   */
  async function checkEndRequirements(
    input: PerformRentalTransitionInput,
    idempotencyKey: string,
  ): Promise<EndCheckOutcome> {
    const outcome = await asActivity(async () => {
      // Reads only: no transaction unless there is a check to record.
      const check = await endRequirementsOfRental(tenantEm(orm, input.tenant), input);
      const { evaluation, overridden } = applyEndOverrides(check.report, input.adminOverride);
      if (check.report.profile !== null)
        await inTenantTransaction(orm, input.tenant, (tx) =>
          recordEndRequirementsCheck(tx, input, check, overridden, `${idempotencyKey}/end-check`),
        );
      return { evaluation, overridden, endBranchId: check.report.endBranchId };
    });
    assertRequirementsPassed(outcome.evaluation);
    return { overridden: outcome.overridden, endBranchId: outcome.endBranchId };
  }

  /** The body of performRentalTransition (heartbeating around it). */
  async function performTransition(input: PerformRentalTransitionInput): Promise<RecordedTransition> {
    const idempotencyKey = activityIdempotencyKey();
    // An ending step also bills in a transaction, which reads `finance.invoice.autoBill` from the cache.
    await warmRentalReadCache(tenantEm(orm, input.tenant), input.tenant, [
      RENTAL_DEPOSIT_SETTING_KEY,
      RENTAL_NO_MOVEMENT_SETTING_KEY,
      ...(rentalTransitions[input.transition].ends ? [AUTO_BILL_SETTING_KEY] : []),
    ]);
    // END: the end requirements, from the vehicle's last reported state, before the vehicle is locked.
    const endCheck =
      input.transition === 'END' ? await checkEndRequirements(input, idempotencyKey) : undefined;
    let answered: AnsweredStepCommand | undefined;
    if (input.vehicleCommand) {
      try {
        answered = await delivery.sendStepCommand(
          {
            tenant: input.tenant,
            rentalId: input.rentalId,
            vehicleId: input.vehicleId,
            command: input.vehicleCommand,
            requestedBy: input.requestedBy,
            timeoutMs: input.commandTimeoutMs,
          },
          false,
        );
      } catch (error) {
        // The second unanswered attempt is final: the caller is waiting on the operation.
        if (
          error instanceof ApplicationFailure &&
          error.type === 'V504' &&
          Context.current().info.attempt >= 2
        )
          throw ApplicationFailure.create({ type: 'V504', message: error.message, nonRetryable: true });
        throw error;
      }
    }
    // Who sent the command, as the fleet records its outcome.
    const commandInput = {
      tenant: input.tenant,
      vehicleId: input.vehicleId,
      command: input.vehicleCommand!,
      rentalId: input.rentalId,
      requestedBy: input.requestedBy,
    };
    const unrecorded = answered?.unrecorded;
    try {
      return await asActivity(() =>
        inTenantTransaction(orm, input.tenant, (em) =>
          recordRentalTransition(
            em,
            { ...input, vehicleReport: answered?.report, endCheck },
            idempotencyKey,
            {
              // The command's OK answer is recorded with the transition, in one transaction.
              recordAnswer:
                answered && unrecorded
                  ? (events) =>
                      recordCommandOutcomeIn(
                        em,
                        commandInput,
                        answered.commandId,
                        { status: 'OK', ...unrecorded, applyReport: false },
                        events,
                      )
                  : undefined,
              applyReport: (vehicle, report, events) => applyReportToVehicle(em, vehicle, report, events),
            },
          ),
        ),
      );
    } catch (error) {
      // The vehicle acted but the transition was refused: its answer is still recorded.
      if (answered && unrecorded)
        await inTenantTransaction(orm, input.tenant, (em) =>
          recordCommandOutcomeIn(em, commandInput, answered.commandId, { status: 'OK', ...unrecorded }),
        ).catch(() => undefined);
      throw error;
    }
  }

  /**
   * Bills an ending step's invoice and starts its payment after the step answered: the rider's END waits
   * for the step's commit, not for the bill's transaction (which queues behind the invoice's row lock) or
   * the payment workflow's start. A bill the process dies before (or that fails) leaves the invoice OPEN,
   * and the payment starter's sweep bills it (`billForgottenRentalInvoices`); a payment whose start is
   * lost stays OPEN, and the same starter starts it. The invoice's state, read under its row lock, keeps
   * the bill to one whichever of them gets there first.
   */
  function billInBackground(tenant: string, ended: { invoiceId: number; branchId: number }, key: string) {
    const { log } = Context.current();
    background.run(
      async () => {
        const payment = await inTenantTransaction(orm, tenant, (tx) =>
          autoBillInStep(deps, tx, tenant, ended, key),
        );
        if (payment) await startPaymentWorkflow(deps.temporal, tenant, payment);
      },
      (error) =>
        log.warn("an ended rental's bill or its payment's start failed; the payment starter will retry", {
          invoiceId: ended.invoiceId,
          error: String(error),
        }),
    );
  }

  return {
    /**
     * Sends the transition's vehicle command and records the transition, in one activity: the command id
     * and the event's idempotency key are both this activity's key, so a retry re-sends the same command
     * (the device answers from its reply cache) and finds the transition recorded. A silent vehicle is
     * asked twice; database faults retry like any activity.
     */
    async performRentalTransition(input: PerformRentalTransitionInput): Promise<{ state: RentalState }> {
      return withHeartbeat(() =>
        asActivity(async () => {
          const { state, recordedBefore, ended } = await performTransition(input);
          if (!rentalTransitions[input.transition].ends || input.billsAfterAnswer) return { state };
          const key = activityIdempotencyKey();
          if (input.billsInStep && !recordedBefore) {
            // Billed in a transaction of its own after the step's, and after the step answered: the
            // invoice number's row lock, which every ending rental of the business unit takes, is held only
            // for the step's transaction. A zero total wrote no invoice, and there is nothing to bill.
            const { invoiceId, branchId } = ended!;
            if (invoiceId !== null) billInBackground(input.tenant, { invoiceId, branchId }, key);
          } else {
            // Workflows from before billEndedRental bill the invoice once the step committed; a retry of a
            // step finds what its first attempt wrote, bills it if that attempt died first and starts the
            // payment it may have died before starting.
            await autoBillInvoiceOf(deps, input.tenant, { rentalId: input.rentalId }, key);
          }
          return { state };
        }),
      );
    },

    /**
     * Bills the invoice an ended rental wrote (`finance.invoice.autoBill`) and starts its payment: the
     * workflow's step after END, CANCEL or EXPIRE answered, so the rider does not wait for the charge.
     * Keyed by this activity: a retry finds the payment its first attempt made and starts it once.
     */
    async billEndedRental(input: { tenant: string; rentalId: number }): Promise<void> {
      return asActivity(() =>
        autoBillInvoiceOf(deps, input.tenant, { rentalId: input.rentalId }, activityIdempotencyKey()),
      );
    },

    /** Records a failed operation (RENTAL_OPERATION_FAILED) so the timeline shows what was tried and why. */
    async recordOperationFailure(input: RecordOperationFailureInput): Promise<void> {
      const idempotencyKey = activityIdempotencyKey();
      return asActivity(() =>
        inTenantTransaction(orm, input.tenant, (em) =>
          recordRentalOperationFailure(em, input, idempotencyKey),
        ),
      );
    },
  };
}
