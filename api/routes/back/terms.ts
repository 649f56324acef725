// Terms and conditions: versions per branch (or tenant-wide), managed by operators.
import { Type } from '@sinclair/typebox';
import type { EntityManager } from '@mikro-orm/postgresql';
import { Branch } from '../../../db/entities/Branch.js';
import { TermsAcceptance } from '../../../db/entities/TermsAcceptance.js';
import { TermsAndConditions } from '../../../db/entities/TermsAndConditions.js';
import { branchAncestry } from '../../../db/branches.js';
import { DomainError } from '../../../domain/errors.js';
import { created, defineRoute, noContent, ok, type RouteContext } from '../../kernel/route.js';
import { authorizeTenantWide } from '../../authorization.js';
import { component, Id, Nullable, Str } from '../../kernel/schemas.js';
import { TermsSchema, toTerms } from '../../shared/terms-representation.js';

const TermsFields = {
  name: Str(200, { minLength: 1 }),
  url: Str(2000, {
    minLength: 1,
    // A host name (no IPv6 literal, no credentials), optional port, then any path without spaces or NUL.
    pattern: '^https?://[A-Za-z0-9]([A-Za-z0-9.-]*[A-Za-z0-9])?(:[0-9]{1,5})?(/[^\\u0000\\s]*)?$',
    description: 'http(s) URL of the terms document.',
  }),
  content: Type.Optional(Nullable(Str(100_000))),
};

const TermsWrite = component(
  'TermsAndConditionsWrite',
  Type.Object(
    {
      branchId: Nullable(
        Id({ description: 'Branch the terms apply to (and its descendants); null: tenant-wide.' }),
      ),
      ...TermsFields,
    },
    { additionalProperties: false },
  ),
);
const TermsUpdate = component(
  'TermsAndConditionsUpdate',
  Type.Object(TermsFields, { additionalProperties: false }),
);

/**
 * TERMS_MANAGE on the terms' branch; tenant-wide terms (no branch) need it on every top-level branch,
 * i.e. over the whole tenant.
 */
async function authorizeTerms(ctx: RouteContext, branchId: number | null): Promise<void> {
  if (branchId !== null) return ctx.authorize('TERMS_MANAGE', { branchId });
  await authorizeTenantWide(ctx, 'TERMS_MANAGE');
}

async function termsOrFail(em: EntityManager, id: number): Promise<TermsAndConditions> {
  const terms = await em.findOne(TermsAndConditions, id);
  if (!terms) throw new DomainError('U604', `terms ${id} not found`);
  return terms;
}

/** U605 once any customer accepted the version: what they accepted never changes. */
async function assertUnaccepted(em: EntityManager, terms: TermsAndConditions): Promise<void> {
  if (await em.count(TermsAcceptance, { terms }))
    throw new DomainError(
      'U605',
      `version ${terms.version} was accepted by customers; publish a new version instead`,
    );
}

const TermsParam = Type.Object({ termsAndConditionsId: Id() });

/** `GET /terms-and-conditions?branchId`: the versions that can apply to a branch (its own, ancestors', tenant-wide). */
export const listTerms = defineRoute({
  operationId: 'listTermsAndConditions',
  method: 'get',
  path: '/terms-and-conditions',
  interface: 'back',
  summary: 'Terms and conditions versions that apply to a branch',
  description:
    "The branch's own versions, those of its ancestors and the tenant-wide ones, newest version first.",
  tags: ['Customers'],
  query: Type.Object({ branchId: Id() }),
  paged: { defaultSize: 50 },
  access: {
    permission: 'CUSTOMER_READ',
    branchOf: 'the `branchId` query parameter',
    branch: (ctx) => ctx.query.branchId,
  },
  responses: { 200: { description: 'Versions', schema: Type.Array(TermsSchema) } },
  errors: [],
  async handler({ em, tenant, query, page }) {
    const chain = await branchAncestry(em, tenant, query.branchId);
    const [rows, total] = await em.findAndCount(
      TermsAndConditions,
      { $or: [{ branch: { $in: chain } }, { branch: null }] },
      { orderBy: { version: 'desc', id: 'desc' }, limit: page.size, offset: page.offset },
    );
    return ok(rows.map(toTerms), { total });
  },
});

/** `POST /terms-and-conditions`: publishes the next version for a branch (or tenant-wide). */
export const createTerms = defineRoute({
  operationId: 'createTermsAndConditions',
  method: 'post',
  path: '/terms-and-conditions',
  interface: 'back',
  summary: 'Publish a new terms and conditions version',
  description:
    "The version number is the next of the branch's (or tenant-wide) series. Customers who accepted an earlier version are OUTDATED (U602) until they accept this one. Tenant-wide terms need TERMS_MANAGE on every top-level branch.",
  tags: ['Customers'],
  body: TermsWrite,
  access: {
    anyCaller:
      'the handler checks TERMS_MANAGE on `branchId` (on every top-level branch for tenant-wide terms).',
  },
  responses: {
    201: {
      description: 'Published',
      schema: TermsSchema,
      headers: { Location: { description: 'The new version.', schema: Str(200) } },
    },
  },
  errors: ['B404', 'AUTH002'],
  async handler(ctx) {
    const { em, body, baseUrl } = ctx;
    await authorizeTerms(ctx, body.branchId);
    const terms = await em.transactional(async (tx) => {
      // Serialise version numbering per series with an advisory lock on (tenant, branch).
      await tx.execute('select pg_advisory_xact_lock(hashtext(?))', [
        `terms:${ctx.tenant}:${body.branchId ?? 0}`,
      ]);
      const latest = await tx.findOne(
        TermsAndConditions,
        { branch: body.branchId },
        { orderBy: { version: 'desc' } },
      );
      const row = tx.create(TermsAndConditions, {
        branch: body.branchId === null ? null : tx.getReference(Branch, body.branchId),
        version: (latest?.version ?? 0) + 1,
        name: body.name,
        url: body.url,
        content: body.content ?? null,
      });
      await tx.flush();
      return row;
    });
    return created(toTerms(terms), { Location: `${baseUrl}/terms-and-conditions/${terms.id}` });
  },
});

/** `GET /terms-and-conditions/{id}`. */
export const getTerms = defineRoute({
  operationId: 'getTermsAndConditions',
  method: 'get',
  path: '/terms-and-conditions/{termsAndConditionsId}',
  interface: 'back',
  summary: 'One terms and conditions version',
  tags: ['Customers'],
  params: TermsParam,
  access: {
    anyCaller:
      "the handler checks CUSTOMER_READ on the terms' branch (terms text is not confidential; tenant-wide terms are readable by every operator).",
  },
  responses: { 200: { description: 'The version', schema: TermsSchema } },
  errors: ['U604'],
  async handler(ctx) {
    const terms = await termsOrFail(ctx.em, ctx.params.termsAndConditionsId);
    if (terms.branch) await ctx.authorize('CUSTOMER_READ', { branchId: terms.branch.id });
    return ok(toTerms(terms));
  },
});

/** `PUT /terms-and-conditions/{id}`: corrects a version nobody accepted yet. */
export const updateTerms = defineRoute({
  operationId: 'updateTermsAndConditions',
  method: 'put',
  path: '/terms-and-conditions/{termsAndConditionsId}',
  interface: 'back',
  summary: 'Correct a terms version that no customer accepted yet',
  tags: ['Customers'],
  params: TermsParam,
  body: TermsUpdate,
  access: {
    anyCaller:
      "the handler checks TERMS_MANAGE on the terms' branch (every top-level branch for tenant-wide terms).",
  },
  responses: { 200: { description: 'Updated', schema: TermsSchema } },
  errors: ['U604', 'U605'],
  async handler(ctx) {
    const terms = await termsOrFail(ctx.em, ctx.params.termsAndConditionsId);
    await authorizeTerms(ctx, terms.branch?.id ?? null);
    await assertUnaccepted(ctx.em, terms);
    terms.name = ctx.body.name;
    terms.url = ctx.body.url;
    terms.content = ctx.body.content ?? null;
    return ok(toTerms(terms));
  },
});

/** `DELETE /terms-and-conditions/{id}`: withdraws a version nobody accepted yet. */
export const deleteTerms = defineRoute({
  operationId: 'deleteTermsAndConditions',
  method: 'delete',
  path: '/terms-and-conditions/{termsAndConditionsId}',
  interface: 'back',
  summary: 'Withdraw a terms version that no customer accepted yet',
  tags: ['Customers'],
  params: TermsParam,
  access: {
    anyCaller:
      "the handler checks TERMS_MANAGE on the terms' branch (every top-level branch for tenant-wide terms).",
  },
  responses: { 204: { description: 'Withdrawn' } },
  errors: ['U604', 'U605'],
  async handler(ctx) {
    const terms = await termsOrFail(ctx.em, ctx.params.termsAndConditionsId);
    await authorizeTerms(ctx, terms.branch?.id ?? null);
    await assertUnaccepted(ctx.em, terms);
    ctx.em.remove(terms);
    return noContent();
  },
});

export const termsRoutes = [listTerms, createTerms, getTerms, updateTerms, deleteTerms];
