// Verification review for operators: a customer's attempts, one attempt, its media, the review queue
// and the decision on an attempt in review.
import { Type } from '@sinclair/typebox';
import { Customer } from '../../../db/entities/Customer.js';
import { Verification } from '../../../db/entities/Verification.js';
import { VerificationMedia } from '../../../db/entities/VerificationMedia.js';
import { DomainError } from '../../../domain/errors.js';
import { assertReviewable, reviewableStates, verificationDecisions } from '../../../domain/customer.js';
import { authorizeOnBranchOrAnywhere } from '../../authorization.js';
import { defineRoute, ok } from '../../kernel/route.js';
import { component, Id, Str } from '../../kernel/schemas.js';
import {
  followAttempt,
  toVerifications,
  VerificationSchema,
} from '../../shared/verification-representation.js';

const BranchQuery = {
  branchId: Id({
    description: 'Branch the caller holds the permission on (customers belong to the tenant).',
  }),
};
const byBranchQuery = 'the `branchId` query parameter';

/** `GET /verification?guserId[&branchId][&includeDetails=false]`: a customer's attempts, newest first. */
export const listCustomerVerifications = defineRoute({
  operationId: 'listCustomerVerifications',
  method: 'get',
  path: '/verification',
  interface: 'back',
  summary: 'Verification attempts of a customer',
  description:
    '`includeDetails=false` leaves out media and reasons. Customers belong to the tenant, so the answer is the same with or without `branchId`: with it, the caller needs CUSTOMER_READ on that branch; without it, CUSTOMER_READ on some branch of the tenant.',
  tags: ['Customers'],
  query: Type.Object({
    branchId: Type.Optional(
      Id({
        description: 'Branch the caller acts in (permission scope); optional, customers are tenant-wide.',
      }),
    ),
    guserId: Id(),
    includeDetails: Type.Optional(Type.Boolean({ default: true })),
  }),
  access: {
    anyCaller:
      'the handler requires CUSTOMER_READ on `branchId` when given, else on some branch of the tenant.',
  },
  responses: { 200: { description: 'Attempts', schema: Type.Array(VerificationSchema) } },
  errors: ['AUTH002', 'B404', 'U106'],
  async handler(ctx) {
    const { em, query } = ctx;
    await authorizeOnBranchOrAnywhere(ctx, 'CUSTOMER_READ', query.branchId);
    if (!(await em.count(Customer, query.guserId))) throw new DomainError('U106');
    const attempts = await em.find(Verification, { customer: query.guserId }, { orderBy: { id: 'desc' } });
    return ok(await toVerifications(em, attempts, query.includeDetails ?? true));
  },
});

/** `GET /verification-queue?branchId`: attempts waiting for an operator, oldest first. */
export const verificationQueue = defineRoute({
  operationId: 'getVerificationQueue',
  method: 'get',
  path: '/verification-queue',
  interface: 'back',
  summary: 'Verification attempts waiting for review',
  description: `States ${reviewableStates.join(', ')}; oldest first.`,
  tags: ['Customers'],
  query: Type.Object({ ...BranchQuery }),
  paged: { defaultSize: 20 },
  access: { permission: 'VERIFICATION_REVIEW', branchOf: byBranchQuery, branch: (ctx) => ctx.query.branchId },
  responses: { 200: { description: 'Attempts', schema: Type.Array(VerificationSchema) } },
  errors: [],
  async handler({ em, page }) {
    const [rows, total] = await em.findAndCount(
      Verification,
      { state: { $in: [...reviewableStates] } },
      { orderBy: { createdAt: 'asc', id: 'asc' }, limit: page.size, offset: page.offset },
    );
    return ok(await toVerifications(em, rows), { total });
  },
});

/** `GET /verification/{verificationId}?branchId[&attemptUuid]`. */
export const getVerification = defineRoute({
  operationId: 'getVerification',
  method: 'get',
  path: '/verification/{verificationId}',
  interface: 'back',
  summary: 'One verification attempt',
  description: 'With `attemptUuid`, the attempt must carry it (UV404 otherwise).',
  tags: ['Customers'],
  params: Type.Object({ verificationId: Id() }),
  query: Type.Object({
    ...BranchQuery,
    attemptUuid: Type.Optional(Type.String({ format: 'uuid', maxLength: 36 })),
  }),
  access: { permission: 'CUSTOMER_READ', branchOf: byBranchQuery, branch: (ctx) => ctx.query.branchId },
  responses: { 200: { description: 'The attempt', schema: VerificationSchema } },
  errors: ['UV404'],
  async handler({ em, params, query }) {
    const attempt = await em.findOne(Verification, params.verificationId);
    if (!attempt || (query.attemptUuid !== undefined && attempt.attemptUuid !== query.attemptUuid))
      throw new DomainError('UV404');
    return ok((await toVerifications(em, [attempt]))[0]!);
  },
});

const MediaFile = component(
  'VerificationMediaFile',
  Type.Object(
    {
      fileUuid: Type.String({ format: 'uuid' }),
      label: Type.String(),
      contentType: Type.String(),
      sizeBytes: Type.Integer(),
      dataBase64: Type.String(),
    },
    { additionalProperties: false },
  ),
);

/** `GET /verification/media/{fileUuid}?branchId`: one picture of an attempt. */
export const getVerificationMedia = defineRoute({
  operationId: 'getVerificationMedia',
  method: 'get',
  path: '/verification/media/{fileUuid}',
  interface: 'back',
  summary: 'A picture of a verification attempt',
  tags: ['Customers'],
  params: Type.Object({ fileUuid: Type.String({ format: 'uuid', maxLength: 36 }) }),
  query: Type.Object({ ...BranchQuery }),
  access: { permission: 'VERIFICATION_REVIEW', branchOf: byBranchQuery, branch: (ctx) => ctx.query.branchId },
  responses: { 200: { description: 'The picture', schema: MediaFile } },
  errors: ['UV404'],
  async handler({ em, params }) {
    const media = await em.findOne(VerificationMedia, { fileUuid: params.fileUuid }, { populate: ['data'] });
    if (!media) throw new DomainError('UV404');
    return ok({
      fileUuid: media.fileUuid,
      label: media.label,
      contentType: media.contentType,
      sizeBytes: media.sizeBytes,
      dataBase64: media.data.toString('base64'),
    });
  },
});

/** `POST /verification/{verificationId}/decision?branchId`: approve, reject or send back an attempt in review. */
export const decideVerification = defineRoute({
  operationId: 'decideVerification',
  method: 'post',
  path: '/verification/{verificationId}/decision',
  interface: 'back',
  summary: 'Approve, reject or send back a verification in review',
  description:
    'VERIFIED or REJECTED decide; RETRY asks the customer for new pictures. Only attempts in review can be decided (UV409).',
  tags: ['Customers'],
  params: Type.Object({ verificationId: Id() }),
  query: Type.Object({ ...BranchQuery }),
  body: component(
    'VerificationDecision',
    Type.Object(
      {
        decision: Type.Unsafe<(typeof verificationDecisions)[number]>({
          type: 'string',
          enum: [...verificationDecisions],
        }),
        reason: Type.Optional(Str(1000)),
        drivingLicenseCategories: Type.Optional(
          Type.Array(Str(8, { minLength: 1, pattern: '^[A-Za-z0-9]+$' }), {
            maxItems: 20,
            uniqueItems: true,
            description:
              'Licence categories read from the documents (e.g. B, A1); recorded on the customer when a LICENSE attempt is VERIFIED (UV409 for other kinds or decisions).',
          }),
        ),
      },
      { additionalProperties: false },
    ),
  ),
  access: { permission: 'VERIFICATION_REVIEW', branchOf: byBranchQuery, branch: (ctx) => ctx.query.branchId },
  responses: { 200: { description: 'The decided attempt', schema: VerificationSchema } },
  errors: ['UV404', 'UV409'],
  async handler({ em, params, body, actor, query, recordEvent }) {
    const attempt = await em.findOne(Verification, params.verificationId, { populate: ['customer'] });
    if (!attempt) throw new DomainError('UV404');
    assertReviewable(attempt.state);
    if (body.drivingLicenseCategories && (attempt.kind !== 'LICENSE' || body.decision !== 'VERIFIED'))
      throw new DomainError(
        'UV409',
        'licence categories are recorded only when a LICENSE attempt is VERIFIED',
      );
    if (body.drivingLicenseCategories)
      attempt.customer.drivingLicenseCategories = body.drivingLicenseCategories.map((category) =>
        category.toUpperCase(),
      );
    attempt.state = body.decision;
    attempt.reason = body.reason ?? null;
    attempt.decidedBy = actor;
    attempt.decidedAt = new Date();
    // The customer follows the newest attempt of the kind only.
    const newest = await em.findOne(
      Verification,
      { customer: attempt.customer, kind: attempt.kind },
      { orderBy: { id: 'desc' } },
    );
    if (newest?.id === attempt.id) followAttempt(attempt.customer, attempt);
    recordEvent({
      type: `USER_${attempt.kind === 'LICENSE' ? 'LICENCE' : attempt.kind}_VERIFICATION`,
      customerId: attempt.customer.id,
      branchId: query.branchId,
      payload: { verificationId: attempt.id, state: attempt.state },
    });
    await em.flush();
    return ok((await toVerifications(em, [attempt]))[0]!);
  },
});

export const verificationRoutes = [
  listCustomerVerifications,
  verificationQueue,
  getVerification,
  getVerificationMedia,
  decideVerification,
];
