// Verification attempts, which both interfaces use: the `Verification` schema and its mapper (the customer
// lists their attempts, the operator reviews them), and how an attempt's state becomes the customer's.
import { Type, type Static } from '@sinclair/typebox';
import type { EntityManager } from '@mikro-orm/postgresql';
import { Verification } from '../../db/entities/Verification.js';
import { VerificationMedia } from '../../db/entities/VerificationMedia.js';
import type { Customer } from '../../db/entities/Customer.js';
import { verificationKinds, verificationStateField } from '../../domain/customer.js';
import { component, DateTime, Id, Nullable, StringEnum } from '../kernel/schemas.js';

export const VerificationSchema = component(
  'Verification',
  Type.Object(
    {
      id: Id(),
      attemptUuid: Type.String({ format: 'uuid' }),
      guserId: Id(),
      type: StringEnum(verificationKinds),
      state: Type.String({
        description:
          'Licence: the licence state set; other kinds: UNVERIFIED, PROCESSING, VERIFIED, REJECTED, RETRY.',
      }),
      provider: Type.String(),
      reason: Nullable(Type.String()),
      decidedAt: Nullable(DateTime()),
      createdAt: DateTime(),
      media: Type.Array(
        Type.Object(
          {
            fileUuid: Type.String({ format: 'uuid' }),
            label: Type.String(),
            contentType: Type.String(),
            sizeBytes: Type.Integer(),
          },
          { additionalProperties: false },
        ),
      ),
    },
    { additionalProperties: false },
  ),
);

/** The API form of attempts with their media (one query for all media). */
export async function toVerifications(
  em: EntityManager,
  attempts: readonly Verification[],
  withDetails = true,
): Promise<Static<typeof VerificationSchema>[]> {
  const media =
    withDetails && attempts.length
      ? await em.find(
          VerificationMedia,
          { verification: { $in: attempts.map((a) => a.id) } },
          { orderBy: { id: 'asc' } },
        )
      : [];
  return attempts.map((attempt) => ({
    id: attempt.id,
    attemptUuid: attempt.attemptUuid,
    guserId: attempt.customer.id,
    type: attempt.kind,
    state: attempt.state,
    provider: attempt.provider,
    reason: withDetails ? (attempt.reason ?? null) : null,
    decidedAt: attempt.decidedAt?.toISOString() ?? null,
    createdAt: attempt.createdAt.toISOString(),
    media: media
      .filter((item) => item.verification.id === attempt.id)
      .map((item) => ({
        fileUuid: item.fileUuid,
        label: item.label,
        contentType: item.contentType,
        sizeBytes: item.sizeBytes,
      })),
  }));
}

/** Sets a customer's state of an attempt's kind (the newest attempt decides). */
export function followAttempt(customer: Customer, attempt: Verification): void {
  customer[verificationStateField[attempt.kind]] = attempt.state;
}
