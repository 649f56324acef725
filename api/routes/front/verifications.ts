// The signed-in customer's verification attempts: start one with pictures, list them, resubmit on RETRY.
import { Type, type Static } from '@sinclair/typebox';
import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { Verification } from '../../../db/entities/Verification.js';
import { VerificationMedia } from '../../../db/entities/VerificationMedia.js';
import { effectiveSetting } from '../../../db/settings.js';
import { DomainError } from '../../../domain/errors.js';
import {
  assertCanStartAttempt,
  verificationKinds,
  verificationStateField,
  type VerificationState,
} from '../../../domain/customer.js';
import { ConfiguredVerificationProvider, VERIFICATION_SETTING_KEY } from '../../../platform/verification.js';
import { created, defineRoute, ok } from '../../kernel/route.js';
import { component, Id, StringEnum } from '../../kernel/schemas.js';
import {
  VerificationSchema,
  toVerifications,
  followAttempt,
} from '../../shared/verification-representation.js';

export const mediaLabels = ['FRONT', 'BACK', 'SELFIE', 'OTHER'] as const;

const MediaUpload = Type.Object(
  {
    label: StringEnum(mediaLabels),
    contentType: StringEnum(['image/jpeg', 'image/png'] as const),
    dataBase64: Type.String({
      maxLength: 120_000,
      minLength: 4,
      pattern: '^[A-Za-z0-9+/]+={0,2}$',
      description: 'The picture, base64 (at most ~90 kB).',
    }),
  },
  { additionalProperties: false },
);
const MediaList = Type.Array(MediaUpload, { minItems: 1, maxItems: 2 });

function storeMedia(
  em: EntityManager,
  attempt: Verification,
  media: Static<typeof MediaList>,
): VerificationMedia[] {
  return media.map((item) => {
    const data = Buffer.from(item.dataBase64, 'base64');
    return em.create(VerificationMedia, {
      fileUuid: randomUUID(),
      verification: attempt,
      label: item.label,
      contentType: item.contentType,
      data,
      sizeBytes: data.length,
    });
  });
}

/** `GET /verifications`: the caller's attempts, newest first. */
export const listMyVerifications = defineRoute({
  operationId: 'listMyVerifications',
  method: 'get',
  path: '/verifications',
  interface: 'front',
  summary: 'My verification attempts',
  tags: ['Verifications'],
  access: { customer: "the caller's own attempts only." },
  responses: { 200: { description: 'Attempts', schema: Type.Array(VerificationSchema) } },
  errors: [],
  async handler(ctx) {
    const customer = await ctx.customer();
    const attempts = await ctx.em.find(Verification, { customer }, { orderBy: { id: 'desc' } });
    return ok(await toVerifications(ctx.em, attempts));
  },
});

/** `POST /verifications`: starts an attempt; MANUAL goes to operator review, other kinds to their provider. */
export const startVerification = defineRoute({
  operationId: 'startVerification',
  method: 'post',
  path: '/verifications',
  interface: 'front',
  summary: 'Start a verification with pictures',
  description:
    "MANUAL attempts wait in the operators' review queue (PROCESSING). LICENSE, ID_DOCUMENT and CUSTOM_EXTERNAL attempts go to the tenant's provider (default adapter: outcome from setting `customers.verification`, else operator review). Refused while an attempt of the kind is in review or verified (UV409).",
  tags: ['Verifications'],
  body: component(
    'VerificationStart',
    Type.Object({ type: StringEnum(verificationKinds), media: MediaList }, { additionalProperties: false }),
  ),
  access: { customer: 'verifies the caller.' },
  responses: { 201: { description: 'The attempt', schema: VerificationSchema } },
  errors: ['UV409'],
  async handler(ctx) {
    const customer = await ctx.customer();
    const kind = ctx.body.type;
    assertCanStartAttempt(customer[verificationStateField[kind]]);
    let state: VerificationState = 'PROCESSING';
    let provider = 'operator';
    let reason: string | null = null;
    if (kind !== 'MANUAL') {
      const setting = await effectiveSetting(ctx.em, ctx.tenant, VERIFICATION_SETTING_KEY, undefined);
      const adapter = new ConfiguredVerificationProvider(setting?.value ?? {});
      const result = await adapter.verify({
        kind,
        customerId: customer.id,
        media: ctx.body.media.map((item) => ({
          label: item.label,
          contentType: item.contentType,
          data: Buffer.from(item.dataBase64, 'base64'),
        })),
      });
      provider = adapter.name;
      reason = result.reason ?? null;
      state = result.outcome === 'REVIEW' ? (kind === 'LICENSE' ? 'REVIEW' : 'PROCESSING') : result.outcome;
    }
    const attempt = ctx.em.create(Verification, {
      attemptUuid: randomUUID(),
      customer,
      kind,
      state,
      provider,
      reason,
      decidedAt: state === 'VERIFIED' || state === 'REJECTED' ? new Date() : null,
    });
    storeMedia(ctx.em, attempt, ctx.body.media);
    followAttempt(customer, attempt);
    await ctx.em.flush();
    ctx.recordEvent({
      type: `USER_${kind === 'LICENSE' ? 'LICENCE' : kind}_VERIFICATION`,
      customerId: customer.id,
      payload: { verificationId: attempt.id, state },
    });
    return created((await toVerifications(ctx.em, [attempt]))[0]!);
  },
});

/** `PATCH /verifications/{verificationId}`: new pictures for an attempt the reviewer sent back (RETRY). */
export const resubmitVerification = defineRoute({
  operationId: 'resubmitVerification',
  method: 'patch',
  path: '/verifications/{verificationId}',
  interface: 'front',
  summary: 'Send new pictures for an attempt in RETRY',
  tags: ['Verifications'],
  params: Type.Object({ verificationId: Id() }),
  body: component('VerificationResubmit', Type.Object({ media: MediaList }, { additionalProperties: false })),
  access: { customer: "the caller's own attempts only (another customer's id is not found)." },
  responses: { 200: { description: 'The attempt, back in review', schema: VerificationSchema } },
  errors: ['UV404', 'UV409'],
  async handler(ctx) {
    const customer = await ctx.customer();
    const attempt = await ctx.em.findOne(Verification, { id: ctx.params.verificationId, customer });
    if (!attempt) throw new DomainError('UV404');
    if (attempt.state !== 'RETRY')
      throw new DomainError('UV409', `the attempt is ${attempt.state}, not RETRY`);
    attempt.state = attempt.kind === 'LICENSE' ? 'REVIEW' : 'PROCESSING';
    attempt.decidedAt = null;
    storeMedia(ctx.em, attempt, ctx.body.media);
    followAttempt(customer, attempt);
    await ctx.em.flush();
    return ok((await toVerifications(ctx.em, [attempt]))[0]!);
  },
});

export const frontVerificationRoutes = [listMyVerifications, startVerification, resubmitVerification];
