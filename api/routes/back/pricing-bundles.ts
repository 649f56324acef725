// The operator's pricing bundles: list, create, read, rename and delete (or archive) a bundle of a type,
// whose rules go into its versions (pricing-bundle-versions.ts); and the estimate by query of a bundle or of
// a branch and category (GET /pricing-bundles/pricing-simulator).
import { Type, type Static } from '@sinclair/typebox';
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import { BusinessUnit } from '../../../db/entities/BusinessUnit.js';
import { PricingAssignment } from '../../../db/entities/PricingAssignment.js';
import { PricingBundle } from '../../../db/entities/PricingBundle.js';
import { PricingBundleVersion } from '../../../db/entities/PricingBundleVersion.js';
import { branchAncestry } from '../../../db/branches.js';
import { DomainError } from '../../../domain/errors.js';
import { distanceUnits } from '../../../domain/pricing.js';
import { pricingVersionWorkflowId } from '../../../workflows/pricing.messages.js';
import { created, defineRoute, noContent, ok } from '../../kernel/route.js';
import { component, DateTime, Id, Nullable, Str, StringEnum } from '../../kernel/schemas.js';
import {
  BookingEstimate,
  PricingBundleTypeSchema,
  SimulatorQuery,
  simulateFromQuery,
} from '../../shared/pricing-estimates.js';
import {
  branchUnit,
  bundleOf,
  bundleParams,
  bundleUnit,
  flushOrRefuse,
  PricingBundleVersionSchema,
  toVersionDto,
} from './pricing-representation.js';

const tags = ['Pricing Bundles'];

const DistanceUnitSchema = component('DistanceUnit', StringEnum(distanceUnits));
const Currency = Str(3, { pattern: '^[A-Z]{3}$', description: 'ISO 4217 code.' });

const PricingBundleSchema = component(
  'PricingBundle',
  Type.Object(
    {
      id: Id(),
      name: Type.String(),
      description: Nullable(Type.String()),
      type: PricingBundleTypeSchema,
      currency: Type.String(),
      distanceUnit: DistanceUnitSchema,
      businessUnitId: Id(),
      createdAt: DateTime(),
      updatedAt: DateTime(),
      versions: Type.Optional(
        Type.Array(PricingBundleVersionSchema, { description: 'Present with includeVersions=true.' }),
      ),
    },
    { additionalProperties: false },
  ),
);

const AddPricingBundle = component(
  'AddPricingBundle',
  Type.Object(
    {
      name: Str(200, { minLength: 1 }),
      description: Type.Optional(Nullable(Str(1000))),
      type: PricingBundleTypeSchema,
      businessUnitId: Id({ description: 'The business unit that owns the bundle (finance scope, tax).' }),
      currency: Type.Optional(Currency),
      distanceUnit: Type.Optional(DistanceUnitSchema),
    },
    { additionalProperties: false },
  ),
);

const UpdatePricingBundle = component(
  'UpdatePricingBundle',
  Type.Object(
    { name: Str(200, { minLength: 1 }), description: Type.Optional(Nullable(Str(1000))) },
    {
      additionalProperties: false,
      description: 'Metadata only: type, currency and distance unit give published versions their meaning.',
    },
  ),
);

/** The API's bundle representation, with its versions when asked. */
function toBundleDto(
  bundle: PricingBundle,
  versions?: PricingBundleVersion[],
): Static<typeof PricingBundleSchema> {
  return {
    id: bundle.id,
    name: bundle.name,
    description: bundle.description ?? null,
    type: bundle.type,
    currency: bundle.currency,
    distanceUnit: bundle.distanceUnit,
    businessUnitId: bundle.businessUnit.id,
    createdAt: bundle.createdAt.toISOString(),
    updatedAt: bundle.updatedAt.toISOString(),
    ...(versions ? { versions: versions.map(toVersionDto) } : {}),
  };
}

export const getPricingSimulation = defineRoute({
  operationId: 'getPricingSimulation',
  method: 'get',
  path: '/pricing-bundles/pricing-simulator',
  interface: 'back',
  summary: 'Estimate by query: on-demand minutes, or a booking window, for a bundle or a branch and category',
  tags,
  query: SimulatorQuery,
  access: {
    permission: 'PRICING_READ',
    businessUnitOf: 'the business unit of query parameter branchId',
    businessUnit: (ctx) => branchUnit(ctx, ctx.query.branchId),
  },
  responses: { 200: { description: 'An estimate', schema: BookingEstimate } },
  errors: ['B404', 'ODP100', 'ODP101', 'ODP104', 'ODP106', 'ODP110', 'ODP111'],
  async handler(ctx) {
    return ok(await simulateFromQuery(ctx, true));
  },
});

export const listPricingBundles = defineRoute({
  operationId: 'listPricingBundles',
  method: 'get',
  path: '/pricing-bundles',
  interface: 'back',
  summary: 'Pricing bundles, searchable, optionally with their versions',
  description:
    'Lists the live bundles of the business units where the caller holds PRICING_READ. `branchId` and `vehicleCategoryId` keep bundles assigned there (assignments on the branch or its ancestors).',
  tags,
  query: Type.Object({
    searchText: Type.Optional(Str(200, { minLength: 1, description: 'Part of the name, case-insensitive.' })),
    includeVersions: Type.Optional(Type.Boolean({ default: false })),
    vehicleCategoryId: Type.Optional(Id()),
    branchId: Type.Optional(Id()),
    type: Type.Optional(PricingBundleTypeSchema),
  }),
  paged: { defaultSize: 20 },
  access: { anyCaller: 'only bundles of business units where the caller holds PRICING_READ are listed.' },
  responses: { 200: { description: 'One page of bundles', schema: Type.Array(PricingBundleSchema) } },
  errors: [],
  async handler({ em, tenant, query, page, holds }) {
    const units = await em.find(BusinessUnit, {}, { fields: ['id'] });
    const readable: number[] = [];
    for (const unit of units)
      if (await holds({ permission: 'PRICING_READ', businessUnitId: unit.id })) readable.push(unit.id);
    const where: Record<string, unknown> = { archivedAt: null, businessUnit: { $in: readable } };
    if (query.searchText) where.name = { $ilike: `%${query.searchText.replace(/[\\%_]/g, '\\$&')}%` };
    if (query.type) where.type = query.type;
    if (query.branchId !== undefined || query.vehicleCategoryId !== undefined) {
      const assignmentWhere: Record<string, unknown> = {};
      if (query.branchId !== undefined)
        assignmentWhere.branch = { $in: await branchAncestry(em, tenant, query.branchId) };
      if (query.vehicleCategoryId !== undefined) assignmentWhere.vehicleCategory = query.vehicleCategoryId;
      const assigned = await em.find(PricingAssignment, assignmentWhere, { fields: ['bundle'] });
      where.id = { $in: assigned.map((assignment) => assignment.bundle.id) };
    }
    const [bundles, total] = await em.findAndCount(PricingBundle, where, {
      orderBy: { name: 'asc', id: 'asc' },
      limit: page.size,
      offset: page.offset,
    });
    if (!query.includeVersions)
      return ok(
        bundles.map((bundle) => toBundleDto(bundle)),
        { total },
      );
    const versions = await em.find(
      PricingBundleVersion,
      { bundle: { $in: bundles.map((bundle) => bundle.id) } },
      { orderBy: { version: 'asc' } },
    );
    return ok(
      bundles.map((bundle) =>
        toBundleDto(
          bundle,
          versions.filter((version) => version.bundle.id === bundle.id),
        ),
      ),
      { total },
    );
  },
});

export const addPricingBundle = defineRoute({
  operationId: 'addPricingBundle',
  method: 'post',
  path: '/pricing-bundles',
  interface: 'back',
  summary: 'Create a pricing bundle of a type (its rules go into versions)',
  tags,
  body: AddPricingBundle,
  access: {
    permission: 'PRICING_WRITE',
    businessUnitOf: 'body field businessUnitId',
    businessUnit: (ctx) => ctx.body.businessUnitId,
  },
  responses: {
    201: {
      description: 'Bundle created',
      schema: PricingBundleSchema,
      headers: { Location: { description: 'URL of the new bundle.', schema: Str(200) } },
      links: {
        GetPricingBundle: {
          operationId: 'getPricingBundle',
          parameters: { tenant: '$request.path.tenant', pricingBundleId: '$response.body#/id' },
        },
        AddPricingBundleVersion: {
          operationId: 'addPricingBundleVersion',
          parameters: { tenant: '$request.path.tenant', pricingBundleId: '$response.body#/id' },
        },
      },
    },
  },
  errors: ['B405', 'ODP110', 'ODP112'],
  async handler(ctx) {
    const { em, body } = ctx;
    const unit = await em.findOne(BusinessUnit, body.businessUnitId);
    if (!unit) throw new DomainError('B405');
    if (body.currency !== undefined && body.currency !== unit.currency)
      throw new DomainError('ODP110', `the business unit bills in ${unit.currency}, not ${body.currency}`);
    if (await em.findOne(PricingBundle, { name: body.name, archivedAt: null }))
      throw new DomainError('ODP112');
    const bundle = em.create(PricingBundle, {
      businessUnit: unit,
      name: body.name,
      description: body.description ?? null,
      type: body.type,
      currency: unit.currency,
      distanceUnit: body.distanceUnit ?? 'KILOMETER',
    });
    await flushOrRefuse(em, 'ODP112');
    return created(toBundleDto(bundle), { Location: `${ctx.baseUrl}/pricing-bundles/${bundle.id}` });
  },
});

export const getPricingBundle = defineRoute({
  operationId: 'getPricingBundle',
  method: 'get',
  path: '/pricing-bundles/{pricingBundleId}',
  interface: 'back',
  summary: 'One pricing bundle with its versions',
  tags,
  params: bundleParams,
  access: {
    permission: 'PRICING_READ',
    businessUnitOf: 'the bundle',
    businessUnit: (ctx) => bundleUnit(ctx),
  },
  responses: { 200: { description: 'The bundle', schema: PricingBundleSchema } },
  errors: ['ODP100'],
  async handler(ctx) {
    const bundle = await bundleOf(ctx);
    const versions = await ctx.em.find(
      PricingBundleVersion,
      { bundle: bundle.id },
      { orderBy: { version: 'asc' } },
    );
    return ok(toBundleDto(bundle, versions));
  },
});

export const updatePricingBundle = defineRoute({
  operationId: 'updatePricingBundle',
  method: 'put',
  path: '/pricing-bundles/{pricingBundleId}',
  interface: 'back',
  summary: "Change a bundle's name and description",
  tags,
  params: bundleParams,
  body: UpdatePricingBundle,
  access: {
    permission: 'PRICING_WRITE',
    businessUnitOf: 'the bundle',
    businessUnit: (ctx) => bundleUnit(ctx),
  },
  responses: { 200: { description: 'The bundle', schema: PricingBundleSchema } },
  errors: ['ODP100', 'ODP112'],
  async handler(ctx) {
    const bundle = await bundleOf(ctx);
    const clash = await ctx.em.findOne(PricingBundle, {
      name: ctx.body.name,
      archivedAt: null,
      id: { $ne: bundle.id },
    });
    if (clash) throw new DomainError('ODP112');
    bundle.name = ctx.body.name;
    if (ctx.body.description !== undefined) bundle.description = ctx.body.description;
    await flushOrRefuse(ctx.em, 'ODP112');
    return ok(toBundleDto(bundle));
  },
});

/**
 * Cancels a version's publication workflow if it still runs (waiting for the effective date or for
 * `validUntil`), so a deleted bundle leaves no timer behind; a version never published, or whose
 * workflow ended, has none to cancel.
 */
async function endPublication(temporal: Client, tenant: string, versionId: number): Promise<void> {
  try {
    await temporal.workflow.getHandle(pricingVersionWorkflowId(tenant, versionId)).cancel();
  } catch (error) {
    if (!(error instanceof WorkflowNotFoundError)) throw error;
  }
}

export const deletePricingBundle = defineRoute({
  operationId: 'deletePricingBundle',
  method: 'delete',
  path: '/pricing-bundles/{pricingBundleId}',
  interface: 'back',
  summary: 'Delete a bundle (archived when it was ever published)',
  description:
    'A bundle with assignments is refused (ODP107). A bundle never published is deleted with its drafts; otherwise it is archived: hidden, its versions ARCHIVED, while rentals and bookings keep the version they recorded. A version published for a future effective date never takes effect: the delete cancels the publication workflows (`pricing-version:{tenant}:{versionId}`) still running for the bundle, once the archive is committed.',
  tags,
  params: bundleParams,
  access: {
    permission: 'PRICING_WRITE',
    businessUnitOf: 'the bundle',
    businessUnit: (ctx) => bundleUnit(ctx),
  },
  responses: { 204: { description: 'Deleted or archived' } },
  errors: ['ODP100', 'ODP107'],
  async handler(ctx) {
    const { em, services, tenant } = ctx;
    const bundle = await bundleOf(ctx);
    if (await em.count(PricingAssignment, { bundle: bundle.id })) throw new DomainError('ODP107');
    const versions = await em.find(PricingBundleVersion, { bundle: bundle.id });
    if (versions.every((version) => version.status === 'DRAFT')) {
      versions.forEach((version) => em.remove(version));
      em.remove(bundle);
    } else {
      const now = new Date();
      bundle.archivedAt = now;
      for (const version of versions) {
        if (version.status === 'PUBLISHED' || version.status === 'DRAFT') version.endedAt = now;
        version.status = 'ARCHIVED';
      }
    }
    ctx.recordEvent({
      type: 'PRICING_BUNDLE_DELETED',
      adminSubject: ctx.actor,
      payload: { pricingBundleId: bundle.id, archived: Boolean(bundle.archivedAt) },
    });
    // Archive first, then end the publications (every version's: a superseded one may still wait for
    // its validUntil, a draft may be mid-publication). Cancelled first, a version left PUBLISHED by a
    // failed write would still apply at its date (versionApplyingAt reads the dates) with nobody to
    // supersede the earlier ones.
    await em.flush();
    for (const version of versions) await endPublication(services.temporal, tenant, version.id);
    return noContent();
  },
});

// Static paths before `/pricing-bundles/{pricingBundleId}`, so the literal segment wins.
export const pricingBundleRoutes = [
  getPricingSimulation,
  listPricingBundles,
  addPricingBundle,
  getPricingBundle,
  updatePricingBundle,
  deletePricingBundle,
];
