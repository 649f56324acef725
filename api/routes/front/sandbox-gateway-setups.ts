// The sandbox gateway's confirmation of a setup, standing for what a card form does with a real gateway
// (Stripe.js's confirmCardSetup with the setup's client secret): the app sends the setup's client secret
// and a sandbox test token; the sandbox saves the card, refuses it, or asks for a 3-D Secure or push
// challenge first (answered on the sandbox's challenge page). The outcome becomes the sandbox's signed
// webhook, processed in-process through the same verified path as a posted one, which stores the payment
// source. The client secret is the credential, as with a real gateway's client-side confirmation.
import { Type } from '@sinclair/typebox';
import { DomainError } from '../../../domain/errors.js';
import { sandboxOf } from '../../../platform/payment-gateway/index.js';
import { SandboxRefusal } from '../../../platform/payment-gateway/sandbox.js';
import { defineRoute, ok } from '../../kernel/route.js';
import { component, Nullable, Str, StringEnum } from '../../kernel/schemas.js';
import { processGatewayWebhook } from '../../shared/payment-webhooks.js';

export const SandboxSetupConfirmationSchema = component(
  'SandboxGatewaySetupConfirmation',
  Type.Object(
    {
      state: StringEnum(['SUCCEEDED', 'REQUIRES_ACTION'] as const, {
        description:
          'SUCCEEDED: the payment method is saved (the app reads its setup to find the source); REQUIRES_ACTION: the customer answers the challenge first.',
      }),
      challenge: Nullable(
        Type.Object(
          {
            type: StringEnum(['THREE_DS', 'PUSH'] as const),
            url: Nullable(Type.String({ description: 'The 3-D Secure page (the sandbox challenge page).' })),
          },
          { additionalProperties: false },
        ),
      ),
      webhook: Nullable(
        Type.Object(
          {
            eventId: Type.String(),
            result: StringEnum(['APPLIED', 'DUPLICATE', 'IGNORED'] as const),
          },
          { additionalProperties: false },
        ),
      ),
    },
    { additionalProperties: false },
  ),
);

/** `POST /sandbox-gateway/setups/{reference}/confirm`: the client's confirmation with a test token. */
export const confirmSandboxSetup = defineRoute({
  operationId: 'confirmSandboxGatewaySetup',
  method: 'post',
  path: '/sandbox-gateway/setups/{reference}/confirm',
  interface: 'front',
  summary: 'Confirm a sandbox payment method setup with a test token',
  description:
    "What a real gateway's card form does with the setup's client secret (`POST /payment-methods/setups` answers both). `tok_sandbox_visa` and the other test tokens are saved, `tok_sandbox_3ds` and `tok_sandbox_push` first ask for a challenge (REQUIRES_ACTION with the challenge page, `/sandbox-gateway/challenges/{reference}`), `tok_sandbox_stolen_card` and any token that is not a sandbox test token are refused with PGS103 (the setup becomes FAILED). The same confirmation again answers the same; another token after the first is PGS108.",
  tags: ['Payments'],
  params: Type.Object({
    reference: Str(100, { description: "The setup's `reference` (`seti_sandbox_…`)." }),
  }),
  body: Type.Object(
    {
      clientSecret: Str(200, { description: "The setup's client secret." }),
      token: Str(100, { description: 'A sandbox test token (docs/finance.md, "Payment gateways").' }),
    },
    { additionalProperties: false },
  ),
  access: {
    anonymous:
      "the setup's client secret is the credential, as with a real gateway's client-side confirmation.",
  },
  responses: {
    200: { description: 'Saved, or waiting for a challenge', schema: SandboxSetupConfirmationSchema },
  },
  errors: ['PGS100', 'PGS101', 'PGS102', 'PGS103', 'PGS107', 'PGS108'],
  async handler(ctx) {
    const sandbox = sandboxOf(ctx.services.paymentGateways);
    if (!sandbox) throw new DomainError('PGS102', 'the sandbox gateway does not run here');
    let confirmation;
    try {
      confirmation = await sandbox.confirmSetup(
        ctx.params.reference,
        ctx.body.clientSecret,
        ctx.body.token,
        ctx.tenant,
      );
    } catch (fault) {
      if (!(fault instanceof SandboxRefusal)) throw fault;
      if (fault.reason === 'NOT_WAITING') throw new DomainError('PGS108', fault.message);
      throw new DomainError('PGS107', fault.message);
    }
    if (confirmation.status === 'REQUIRES_ACTION')
      return ok({ state: 'REQUIRES_ACTION' as const, challenge: confirmation.challenge, webhook: null });
    const processed = await processGatewayWebhook(
      ctx,
      sandbox.name,
      confirmation.webhook.body,
      confirmation.webhook.headers,
    );
    if (confirmation.status === 'FAILED')
      throw new DomainError('PGS103', `the sandbox refused the payment method (${confirmation.failureCode})`);
    return ok({
      state: 'SUCCEEDED' as const,
      challenge: null,
      webhook: { eventId: processed.eventId, result: processed.result },
    });
  },
});

export const sandboxSetupRoutes = [confirmSandboxSetup];
