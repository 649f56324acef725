// The sandbox gateway's challenge page, standing for a card issuer's 3-D Secure page or bank app: the app
// sends the customer to the challenge URL of a waiting payment, where they complete, fail, cancel or
// refuse it. The answer becomes the sandbox's signed webhook, processed in-process through the same
// verified path as a posted one. The reference (128 random bits) is the credential, as a real issuer's
// page is reached by its unguessable URL.
import { Type } from '@sinclair/typebox';
import { DomainError } from '../../../domain/errors.js';
import { sandboxOf } from '../../../platform/payment-gateway/index.js';
import type { SandboxGateway } from '../../../platform/payment-gateway/sandbox-setups.js';
import {
  SandboxRefusal,
  type SandboxChallenge,
  type SandboxChallengeOutcome,
} from '../../../platform/payment-gateway/sandbox.js';
import { defineRoute, ok, type RouteContext } from '../../kernel/route.js';
import { component, Str, StringEnum } from '../../kernel/schemas.js';
import { processGatewayWebhook } from '../../shared/payment-webhooks.js';

const outcomes = ['SUCCEEDED', 'THREE_DS_FAILED', 'PUSH_CANCELLED_BY_USER', 'PUSH_BANK_REFUSED'] as const;

export const SandboxChallengeSchema = component(
  'SandboxGatewayChallenge',
  Type.Object(
    {
      reference: Type.String({
        description:
          'The sandbox charge (`ch_sandbox_…`) or setup (`seti_sandbox_…`) waiting for the answer.',
      }),
      kind: StringEnum(['CHARGE', 'SETUP'] as const, {
        description:
          'CHARGE: a payment; SETUP: saving a payment method in the app (nothing is charged, the amount is zero).',
      }),
      type: StringEnum(['THREE_DS', 'PUSH'] as const),
      state: StringEnum(['WAITING', ...outcomes] as const, {
        description: 'WAITING until answered, then the answer.',
      }),
      amount: Type.String({ description: 'Decimal amount charged.' }),
      currency: Type.String(),
      description: Type.String(),
      outcomes: Type.Array(StringEnum(outcomes), { description: 'The answers this challenge allows.' }),
    },
    { additionalProperties: false },
  ),
);

const ReferenceParams = Type.Object({
  reference: Str(100, {
    description: "The challenge URL's last segment (`ch_sandbox_…`, or `seti_sandbox_…` for a setup).",
  }),
});

/** The tenant's sandbox challenge of this reference; PGS404 for an unknown one or another tenant's. */
async function challengeOf(
  ctx: RouteContext,
  reference: string,
): Promise<{ sandbox: SandboxGateway; challenge: SandboxChallenge }> {
  const sandbox = sandboxOf(ctx.services.paymentGateways);
  if (!sandbox) throw new DomainError('PGS102', 'the sandbox gateway does not run here');
  const challenge = await sandbox.challenge(reference);
  if (!challenge || challenge.metadata.tenant !== ctx.tenant)
    throw new DomainError('PGS404', `no sandbox challenge ${reference}`);
  return { sandbox, challenge };
}

const representation = ({ metadata: _metadata, ...challenge }: SandboxChallenge) => ({
  ...challenge,
  outcomes: [...challenge.outcomes],
});

/** `GET /sandbox-gateway/challenges/{reference}`: what the challenge page shows. */
export const getSandboxChallenge = defineRoute({
  operationId: 'getSandboxGatewayChallenge',
  method: 'get',
  path: '/sandbox-gateway/challenges/{reference}',
  interface: 'front',
  summary: 'A sandbox 3-D Secure or push challenge',
  description: "The page a waiting payment's challenge URL opens (sandbox gateway only).",
  tags: ['Payments'],
  params: ReferenceParams,
  access: {
    anonymous: "the unguessable reference in the challenge URL is the credential, as on an issuer's page.",
  },
  responses: { 200: { description: 'The challenge', schema: SandboxChallengeSchema } },
  errors: ['PGS102', 'PGS404'],
  async handler(ctx) {
    const { challenge } = await challengeOf(ctx, ctx.params.reference);
    return ok(representation(challenge));
  },
});

/** `POST /sandbox-gateway/challenges/{reference}`: the customer's answer, delivered as the sandbox's webhook. */
export const answerSandboxChallenge = defineRoute({
  operationId: 'answerSandboxGatewayChallenge',
  method: 'post',
  path: '/sandbox-gateway/challenges/{reference}',
  interface: 'front',
  summary: 'Answer a sandbox 3-D Secure or push challenge',
  description:
    'SUCCEEDED completes it (the charge succeeds and the payment becomes PAID; a setup saves the payment method); THREE_DS_FAILED fails a 3-D Secure challenge; PUSH_CANCELLED_BY_USER and PUSH_BANK_REFUSED end a push. The sandbox signs the answer as a webhook, which is verified and applied as a posted one; the same answer again changes nothing.',
  tags: ['Payments'],
  params: ReferenceParams,
  body: Type.Object({ outcome: StringEnum(outcomes) }, { additionalProperties: false }),
  access: {
    anonymous: "the unguessable reference in the challenge URL is the credential, as on an issuer's page.",
  },
  responses: {
    200: {
      description: 'The challenge after the answer, and what the webhook did',
      schema: Type.Object(
        {
          challenge: SandboxChallengeSchema,
          webhook: Type.Object(
            {
              eventId: Type.String(),
              result: StringEnum(['APPLIED', 'DUPLICATE', 'IGNORED'] as const),
            },
            { additionalProperties: false },
          ),
        },
        { additionalProperties: false },
      ),
    },
  },
  errors: ['PGS100', 'PGS101', 'PGS102', 'PGS104', 'PGS105', 'PGS404'],
  async handler(ctx) {
    const { sandbox, challenge } = await challengeOf(ctx, ctx.params.reference);
    const outcome: SandboxChallengeOutcome = ctx.body.outcome;
    let webhook;
    try {
      webhook = await sandbox.resolveChallenge(challenge.reference, outcome);
    } catch (fault) {
      if (!(fault instanceof SandboxRefusal)) throw fault;
      if (fault.reason === 'OUTCOME_NOT_ALLOWED') throw new DomainError('PGS105', fault.message);
      if (fault.reason === 'NOT_WAITING') throw new DomainError('PGS104', fault.message);
      throw new DomainError('PGS404', fault.message);
    }
    const processed = await processGatewayWebhook(ctx, sandbox.name, webhook.body, webhook.headers);
    const answered = await sandbox.challenge(challenge.reference);
    return ok({
      challenge: representation(answered ?? challenge),
      webhook: { eventId: processed.eventId, result: processed.result },
    });
  },
});

export const sandboxChallengeRoutes = [getSandboxChallenge, answerSandboxChallenge];
