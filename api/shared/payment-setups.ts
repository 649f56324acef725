// The webhook path's part for setups (called by api/shared/payment-webhooks.ts): a verified
// SETUP_SUCCEEDED reads the saved method back from the gateway (brand, last digits, expiry), then — in one
// transaction with the webhook's row, so a redelivery is DUPLICATE — stores it as the owner's payment
// source; a SETUP_FAILED marks the setup FAILED (PGS103). A setup the tenant did not start, or one
// completed already, is IGNORED. And the other end of a saved method: detaching it at its gateway when its
// owner removes it (detachAtGateway).
import type { PaymentSource } from '../../db/entities/PaymentSource.js';
import { completePaymentSetup, setupOfReference, type SetupCompletion } from '../../db/payment-setups.js';
import { recordWebhookEvent } from '../../db/payment-webhooks.js';
import { inTenantTransaction } from '../../db/orm.js';
import { DomainError } from '../../domain/errors.js';
import {
  GatewayUnavailableError,
  SavedMethodRefusedError,
  type GatewayEvent,
} from '../../platform/payment-gateway/port.js';
import type { RouteContext } from '../kernel/route.js';

/** What became of a setup's event (as the webhook path's results). */
export type SetupEventResult = 'APPLIED' | 'DUPLICATE' | 'IGNORED';

/** Applies a verified setup event once (PGS100 when the gateway cannot describe the saved method: it redelivers). */
export async function applySetupEvent(
  ctx: RouteContext,
  gatewayName: string,
  event: GatewayEvent,
): Promise<SetupEventResult> {
  const adapter = ctx.services.paymentGateways.byName(gatewayName);
  const notice = event.setup;
  const known = notice && adapter ? await setupOfReference(ctx.em, gatewayName, notice.reference) : null;
  let completion: SetupCompletion | undefined;
  if (notice && adapter && known?.state === 'PENDING') {
    if (event.type === 'SETUP_SUCCEEDED') {
      try {
        completion = { status: 'SUCCEEDED', method: await adapter.savedPaymentMethod(notice) };
      } catch (fault) {
        if (fault instanceof GatewayUnavailableError)
          throw new DomainError(
            'PGS100',
            `the ${gatewayName} gateway did not describe the method: ${fault.message}`,
          );
        if (!(fault instanceof SavedMethodRefusedError)) throw fault;
        // The gateway will not describe what it saved: nothing chargeable is stored.
        completion = {
          status: 'FAILED',
          notice: { ...notice, failureCode: fault.code, failureMessage: fault.message },
        };
      }
    } else {
      completion = { status: 'FAILED', notice };
    }
  }
  return inTenantTransaction(ctx.services.orm, ctx.tenant, async (tx) => {
    if (!(await recordWebhookEvent(tx, ctx.tenant, gatewayName, event))) return 'DUPLICATE';
    if (!completion || !notice) return 'IGNORED';
    return (await completePaymentSetup(tx, gatewayName, notice.reference, completion))
      ? 'APPLIED'
      : 'IGNORED';
  });
}

/**
 * What a removal does at the gateway before the source is deleted: detaches the saved method there, so
 * nothing can charge it again (PGS100, nothing removed, when the gateway does not answer). A source of a
 * provider this deployment does not run (an operator-entered one) holds nothing to detach here.
 */
export function detachAtGateway(ctx: RouteContext): (source: PaymentSource) => Promise<void> {
  return async (source) => {
    const gateway = ctx.services.paymentGateways.byName(source.provider);
    if (!gateway) return;
    try {
      await gateway.detachPaymentMethod(source.providerReference);
    } catch (fault) {
      if (fault instanceof GatewayUnavailableError)
        throw new DomainError(
          'PGS100',
          `the ${source.provider} gateway did not detach the payment method: ${fault.message}`,
        );
      throw fault;
    }
  };
}
