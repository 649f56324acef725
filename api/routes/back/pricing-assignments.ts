// Which bundle prices a branch and vehicle category: the assignments made on a branch (child branches use
// their nearest ancestor's), and the options they give a branch with the version applying now.
import { Type, type Static } from '@sinclair/typebox';
import { PricingAssignment } from '../../../db/entities/PricingAssignment.js';
import { PricingBundle } from '../../../db/entities/PricingBundle.js';
import { VehicleCategory } from '../../../db/entities/VehicleCategory.js';
import { loadPricingBundle, pricedVersion, versionApplyingAt } from '../../../db/pricing.js';
import { branchAncestry } from '../../../db/branches.js';
import { DomainError } from '../../../domain/errors.js';
import { created, defineRoute, noContent, ok, type RouteContext } from '../../kernel/route.js';
import { component, DateTime, Id, Nullable } from '../../kernel/schemas.js';
import { PricingBundleTypeSchema, PricingVersionRef } from '../../shared/pricing-estimates.js';
import { branchUnit, flushOrRefuse, FreeFloatingPricingModeSchema } from './pricing-representation.js';

const tags = ['Pricing Bundles'];

const PricingAssignmentSchema = component(
  'OnDemandPricingAssignment',
  Type.Object(
    {
      id: Id(),
      branchId: Id(),
      vehicleCategoryId: Id(),
      pricingBundleId: Id(),
      bundleType: PricingBundleTypeSchema,
      createdAt: DateTime(),
      createdBy: Nullable(Type.String()),
    },
    { additionalProperties: false },
  ),
);

const AddPricingAssignment = component(
  'AddOnDemandPricingAssignment',
  Type.Object(
    { branchId: Id(), vehicleCategoryId: Id(), pricingBundleId: Id() },
    { additionalProperties: false },
  ),
);

const PricingOptionSchema = component(
  'OnDemandPricingOption',
  Type.Object(
    {
      branchId: Id(),
      vehicleCategoryId: Id(),
      bundleType: PricingBundleTypeSchema,
      assignmentId: Id(),
      assignedAtBranchId: Id({
        description: 'The branch the assignment is on (this branch or an ancestor).',
      }),
      pricingBundleId: Id(),
      pricingBundleName: Type.String(),
      freeFloatingPricingMode: Nullable(FreeFloatingPricingModeSchema),
      currentVersion: Nullable(PricingVersionRef),
    },
    { additionalProperties: false },
  ),
);

function toAssignmentDto(assignment: PricingAssignment): Static<typeof PricingAssignmentSchema> {
  return {
    id: assignment.id,
    branchId: assignment.branch.id,
    vehicleCategoryId: assignment.vehicleCategory.id,
    pricingBundleId: assignment.bundle.id,
    bundleType: assignment.bundleType,
    createdAt: assignment.createdAt.toISOString(),
    createdBy: assignment.createdBy ?? null,
  };
}

/** The assignment of the path, loaded once per request. */
const assignmentOf = (ctx: RouteContext<{ assignmentId: number }>) =>
  ctx.once('assignment', async () => {
    const assignment = await ctx.em.findOne(PricingAssignment, ctx.params.assignmentId);
    if (!assignment) throw new DomainError('ODP108');
    return assignment;
  });

/** A live bundle that may price a branch: same business unit as the branch (ODP110 otherwise). */
async function bundleForBranch(
  ctx: RouteContext,
  pricingBundleId: number,
  branchId: number,
): Promise<PricingBundle> {
  const bundle = await loadPricingBundle(ctx.em, pricingBundleId);
  const unitId = await branchUnit(ctx, branchId);
  if (bundle.businessUnit.id !== unitId)
    throw new DomainError('ODP110', 'the bundle belongs to another business unit than the branch');
  return bundle;
}

const assignmentParams = Type.Object({ assignmentId: Id() });

export const listPricingAssignments = defineRoute({
  operationId: 'listOnDemandPricingAssignments',
  method: 'get',
  path: '/on-demand-pricing-assignments',
  interface: 'back',
  summary: 'Pricing assignments made on a branch',
  tags,
  query: Type.Object({
    branchId: Id(),
    vehicleCategoryId: Type.Optional(Id()),
    pricingBundleId: Type.Optional(Id()),
    bundleType: Type.Optional(PricingBundleTypeSchema),
  }),
  paged: { defaultSize: 50 },
  access: {
    permission: 'PRICING_READ',
    businessUnitOf: 'the business unit of query parameter branchId',
    businessUnit: (ctx) => branchUnit(ctx, ctx.query.branchId),
  },
  responses: { 200: { description: 'One page of assignments', schema: Type.Array(PricingAssignmentSchema) } },
  errors: ['B404'],
  async handler({ em, query, page }) {
    const where: Record<string, unknown> = { branch: query.branchId };
    if (query.vehicleCategoryId !== undefined) where.vehicleCategory = query.vehicleCategoryId;
    if (query.pricingBundleId !== undefined) where.bundle = query.pricingBundleId;
    if (query.bundleType) where.bundleType = query.bundleType;
    const [rows, total] = await em.findAndCount(PricingAssignment, where, {
      orderBy: { id: 'asc' },
      limit: page.size,
      offset: page.offset,
    });
    return ok(rows.map(toAssignmentDto), { total });
  },
});

export const addPricingAssignment = defineRoute({
  operationId: 'addOnDemandPricingAssignment',
  method: 'post',
  path: '/on-demand-pricing-assignments',
  interface: 'back',
  summary: 'Assign a bundle to a branch and vehicle category (one per bundle type)',
  description: "Child branches without their own assignment use their nearest ancestor's.",
  tags,
  body: AddPricingAssignment,
  access: {
    permission: 'PRICING_WRITE',
    businessUnitOf: 'the business unit of body field branchId',
    businessUnit: (ctx) => branchUnit(ctx, ctx.body.branchId),
  },
  responses: { 201: { description: 'Assignment created', schema: PricingAssignmentSchema } },
  errors: ['B404', 'ODP100', 'ODP109', 'ODP110', 'ODP113'],
  async handler(ctx) {
    const { em, body } = ctx;
    const bundle = await bundleForBranch(ctx, body.pricingBundleId, body.branchId);
    if (!(await em.findOne(VehicleCategory, body.vehicleCategoryId))) throw new DomainError('ODP113');
    const clash = await em.findOne(PricingAssignment, {
      branch: body.branchId,
      vehicleCategory: body.vehicleCategoryId,
      bundleType: bundle.type,
    });
    if (clash)
      throw new DomainError('ODP109', `assignment ${clash.id} already prices this branch and category`);
    const assignment = em.create(PricingAssignment, {
      branch: body.branchId,
      vehicleCategory: body.vehicleCategoryId,
      bundle,
      bundleType: bundle.type,
      createdBy: ctx.actor,
    });
    ctx.recordEvent({
      type: 'PRICING_ASSIGNED',
      branchId: body.branchId,
      adminSubject: ctx.actor,
      payload: { ...body },
    });
    await flushOrRefuse(em, 'ODP109');
    return created(toAssignmentDto(assignment));
  },
});

export const updatePricingAssignment = defineRoute({
  operationId: 'updateOnDemandPricingAssignment',
  method: 'put',
  path: '/on-demand-pricing-assignments/{assignmentId}',
  interface: 'back',
  summary: 'Point an assignment at another bundle of the same type',
  tags,
  params: assignmentParams,
  body: Type.Object({ pricingBundleId: Id() }, { additionalProperties: false }),
  access: {
    permission: 'PRICING_WRITE',
    businessUnitOf: "the assignment's branch",
    businessUnit: async (ctx) => branchUnit(ctx, (await assignmentOf(ctx)).branch.id),
  },
  responses: { 200: { description: 'The assignment', schema: PricingAssignmentSchema } },
  errors: ['ODP100', 'ODP108', 'ODP110'],
  async handler(ctx) {
    const assignment = await assignmentOf(ctx);
    const bundle = await bundleForBranch(ctx, ctx.body.pricingBundleId, assignment.branch.id);
    if (bundle.type !== assignment.bundleType)
      throw new DomainError('ODP110', `the assignment needs a ${assignment.bundleType} bundle`);
    assignment.bundle = bundle;
    ctx.recordEvent({
      type: 'PRICING_ASSIGNED',
      branchId: assignment.branch.id,
      adminSubject: ctx.actor,
      payload: { assignmentId: assignment.id, pricingBundleId: bundle.id },
    });
    return ok(toAssignmentDto(assignment));
  },
});

export const deletePricingAssignment = defineRoute({
  operationId: 'deleteOnDemandPricingAssignment',
  method: 'delete',
  path: '/on-demand-pricing-assignments/{assignmentId}',
  interface: 'back',
  summary: 'Remove an assignment (the branch then uses its ancestors’ assignment, if any)',
  tags,
  params: assignmentParams,
  access: {
    permission: 'PRICING_WRITE',
    businessUnitOf: "the assignment's branch",
    businessUnit: async (ctx) => branchUnit(ctx, (await assignmentOf(ctx)).branch.id),
  },
  responses: { 204: { description: 'Removed' } },
  errors: ['ODP108'],
  async handler(ctx) {
    const assignment = await assignmentOf(ctx);
    ctx.em.remove(assignment);
    ctx.recordEvent({
      type: 'PRICING_UNASSIGNED',
      branchId: assignment.branch.id,
      adminSubject: ctx.actor,
      payload: { assignmentId: assignment.id, pricingBundleId: assignment.bundle.id },
    });
    return noContent();
  },
});

export const listPricingOptions = defineRoute({
  operationId: 'listOnDemandPricingOptions',
  method: 'get',
  path: '/on-demand-pricing-options',
  interface: 'back',
  summary: 'The effective pricing of each vehicle category at a branch, with the version applying now',
  description:
    'One option per category and bundle type that has an assignment on the branch or an ancestor; categories without one are not listed (they cannot be priced).',
  tags,
  query: Type.Object({
    branchId: Id(),
    vehicleCategoryId: Type.Optional(Id()),
    bundleType: Type.Optional(PricingBundleTypeSchema),
  }),
  access: {
    permission: 'PRICING_READ',
    businessUnitOf: 'the business unit of query parameter branchId',
    businessUnit: (ctx) => branchUnit(ctx, ctx.query.branchId),
  },
  responses: { 200: { description: 'The options', schema: Type.Array(PricingOptionSchema) } },
  errors: ['B404'],
  async handler({ em, tenant, query }) {
    const ancestry = await branchAncestry(em, tenant, query.branchId);
    const where: Record<string, unknown> = { branch: { $in: ancestry } };
    if (query.vehicleCategoryId !== undefined) where.vehicleCategory = query.vehicleCategoryId;
    if (query.bundleType) where.bundleType = query.bundleType;
    const rows = await em.find(PricingAssignment, where, { populate: ['bundle'], orderBy: { id: 'asc' } });
    const nearest = new Map<string, PricingAssignment>();
    for (const branchId of ancestry)
      for (const row of rows.filter((candidate) => candidate.branch.id === branchId)) {
        const key = `${row.vehicleCategory.id}:${row.bundleType}`;
        if (!nearest.has(key)) nearest.set(key, row);
      }
    const now = new Date();
    const options: Static<typeof PricingOptionSchema>[] = [];
    for (const row of [...nearest.values()].sort((a, b) => a.vehicleCategory.id - b.vehicleCategory.id)) {
      const current = await versionApplyingAt(em, row.bundle.id, now).catch((error: unknown) => {
        if (error instanceof DomainError && error.code === 'ODP106') return undefined;
        throw error;
      });
      options.push({
        branchId: query.branchId,
        vehicleCategoryId: row.vehicleCategory.id,
        bundleType: row.bundleType,
        assignmentId: row.id,
        assignedAtBranchId: row.branch.id,
        pricingBundleId: row.bundle.id,
        pricingBundleName: row.bundle.name,
        freeFloatingPricingMode: current?.rules.freeFloatingPricingMode ?? null,
        currentVersion: current ? pricedVersion(row.bundle, current).ref : null,
      });
    }
    return ok(options);
  },
});

export const pricingAssignmentRoutes = [
  listPricingAssignments,
  addPricingAssignment,
  updatePricingAssignment,
  deletePricingAssignment,
  listPricingOptions,
];
