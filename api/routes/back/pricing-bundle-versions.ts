// The versions of a pricing bundle: list, create a DRAFT (optionally a copy), read, replace a draft's rules
// and publish it with an effective date through the publication workflow (workflows/pricing.ts). Published
// versions never change; see docs/pricing.md.
import { Type } from '@sinclair/typebox';
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import { PricingBundle } from '../../../db/entities/PricingBundle.js';
import { PricingBundleVersion } from '../../../db/entities/PricingBundleVersion.js';
import type { EntityManager } from '../../../db/orm.js';
import { loadPricingVersion } from '../../../db/pricing.js';
import { DomainError } from '../../../domain/errors.js';
import { publicationRefusal } from '../../../domain/pricing-versions.js';
import { validatePricingRules } from '../../../domain/pricing-validation.js';
import type { PricingRules } from '../../../domain/pricing.js';
import {
  awaitPublicationUpdate,
  pricingVersionWorkflowStartOptions,
  PRICING_VERSION_WORKFLOW_TYPE,
} from '../../../workflows/pricing.messages.js';
import { created, defineRoute, ok } from '../../kernel/route.js';
import { component, DateTime, Id, Nullable, Str } from '../../kernel/schemas.js';
import {
  BookingRulesSchema,
  bundleOf,
  bundleParams,
  bundleUnit,
  flushOrRefuse,
  FreeFloatingPricingModeSchema,
  OnDemandRulesSchema,
  PricingBundleVersionSchema,
  PricingVersionStatusSchema,
  toVersionDto,
} from './pricing-representation.js';

const tags = ['Pricing Bundles'];
const versionParams = Type.Object({ pricingBundleId: Id(), pricingBundleVersionId: Id() });

const VersionRulesFields = {
  notes: Type.Optional(Nullable(Str(1000))),
  pricesIncludeTax: Type.Optional(
    Type.Boolean({ default: true, description: 'Rates are gross (tax included).' }),
  ),
  freeFloatingPricingMode: Type.Optional(Nullable(FreeFloatingPricingModeSchema)),
  onDemand: Type.Optional(Nullable(OnDemandRulesSchema)),
  booking: Type.Optional(Nullable(BookingRulesSchema)),
};

const AddPricingBundleVersion = component(
  'AddPricingBundleVersion',
  Type.Object(
    {
      basedOnVersionId: Type.Optional(
        Id({ description: 'Copy the rules of this version, then apply the given fields.' }),
      ),
      ...VersionRulesFields,
    },
    { additionalProperties: false },
  ),
);

const UpdatePricingBundleVersion = component(
  'UpdatePricingBundleVersion',
  Type.Object(
    {
      notes: Type.Optional(Nullable(Str(1000))),
      pricesIncludeTax: Type.Boolean(),
      freeFloatingPricingMode: Type.Optional(Nullable(FreeFloatingPricingModeSchema)),
      onDemand: Type.Optional(Nullable(OnDemandRulesSchema)),
      booking: Type.Optional(Nullable(BookingRulesSchema)),
    },
    { additionalProperties: false, description: 'Replaces the rules of a DRAFT; an omitted part is null.' },
  ),
);

const PublishPricingBundleVersion = component(
  'PublishPricingBundleVersion',
  Type.Object(
    {
      effectiveFrom: DateTime({ description: 'When the version starts to apply; now or later.' }),
      validUntil: Type.Optional(
        Nullable(DateTime({ description: 'Optional end of validity: the version then becomes EXPIRED.' })),
      ),
    },
    { additionalProperties: false },
  ),
);

/** Rules from a request, checked against the bundle type (ODP103). */
function rulesFrom(
  type: PricingBundle['type'],
  body: Partial<Pick<PricingRules, 'freeFloatingPricingMode' | 'onDemand' | 'booking'>> & {
    pricesIncludeTax?: boolean;
  },
  base?: PricingRules,
): PricingRules {
  const rules: PricingRules = {
    pricesIncludeTax: body.pricesIncludeTax ?? base?.pricesIncludeTax ?? true,
    freeFloatingPricingMode:
      body.freeFloatingPricingMode !== undefined
        ? body.freeFloatingPricingMode
        : (base?.freeFloatingPricingMode ?? null),
    onDemand: body.onDemand !== undefined ? body.onDemand : (base?.onDemand ?? null),
    booking: body.booking !== undefined ? body.booking : (base?.booking ?? null),
  };
  validatePricingRules(type, rules);
  return rules;
}

async function nextVersionNumber(em: EntityManager, bundleId: number): Promise<number> {
  const [row] = await em.execute<[{ next: number }]>(
    'select coalesce(max(version), 0)::int + 1 as next from pricing_bundle_version where bundle_id = ?',
    [bundleId],
  );
  return Number(row.next);
}

export const listPricingBundleVersions = defineRoute({
  operationId: 'listPricingBundleVersions',
  method: 'get',
  path: '/pricing-bundles/{pricingBundleId}/versions',
  interface: 'back',
  summary: 'Versions of a bundle, newest first',
  tags,
  params: bundleParams,
  query: Type.Object({ status: Type.Optional(PricingVersionStatusSchema) }),
  paged: { defaultSize: 20 },
  access: {
    permission: 'PRICING_READ',
    businessUnitOf: 'the bundle',
    businessUnit: (ctx) => bundleUnit(ctx),
  },
  responses: { 200: { description: 'One page of versions', schema: Type.Array(PricingBundleVersionSchema) } },
  errors: ['ODP100'],
  async handler(ctx) {
    const bundle = await bundleOf(ctx);
    const where: Record<string, unknown> = { bundle: bundle.id };
    if (ctx.query.status) where.status = ctx.query.status;
    const [versions, total] = await ctx.em.findAndCount(PricingBundleVersion, where, {
      orderBy: { version: 'desc' },
      limit: ctx.page.size,
      offset: ctx.page.offset,
    });
    return ok(versions.map(toVersionDto), { total });
  },
});

export const addPricingBundleVersion = defineRoute({
  operationId: 'addPricingBundleVersion',
  method: 'post',
  path: '/pricing-bundles/{pricingBundleId}/versions',
  interface: 'back',
  summary: 'Create a DRAFT version (optionally a copy of another version with changes)',
  description:
    'The way to change published prices: published versions are never mutated, a new draft is created and published instead. ON_DEMAND_LEGACY versions need freeFloatingPricingMode and onDemand; BOOKING versions need booking and refuse a freeFloatingPricingMode (ODP103).',
  tags,
  params: bundleParams,
  body: AddPricingBundleVersion,
  access: {
    permission: 'PRICING_WRITE',
    businessUnitOf: 'the bundle',
    businessUnit: (ctx) => bundleUnit(ctx),
  },
  responses: {
    201: {
      description: 'Draft created',
      schema: PricingBundleVersionSchema,
      headers: { Location: { description: 'URL of the new version.', schema: Str(300) } },
      links: {
        GetPricingBundleVersion: {
          operationId: 'getPricingBundleVersion',
          parameters: {
            tenant: '$request.path.tenant',
            pricingBundleId: '$request.path.pricingBundleId',
            pricingBundleVersionId: '$response.body#/id',
          },
        },
      },
    },
  },
  errors: ['ODP100', 'ODP102', 'ODP103', 'ODP114'],
  async handler(ctx) {
    const { em, body } = ctx;
    const bundle = await bundleOf(ctx);
    // A missing copy source is a refused body field (422), not a missing resource of the path.
    const base =
      body.basedOnVersionId !== undefined
        ? await loadPricingVersion(em, bundle.id, body.basedOnVersionId).catch((error: unknown) => {
            if (error instanceof DomainError && error.code === 'ODP101')
              throw new DomainError(
                'ODP114',
                `version ${body.basedOnVersionId} is not a version of this bundle`,
              );
            throw error;
          })
        : undefined;
    const rules = rulesFrom(bundle.type, body, base?.rules);
    const version = em.create(PricingBundleVersion, {
      bundle,
      version: await nextVersionNumber(em, bundle.id),
      notes: body.notes ?? null,
      rules,
      basedOnVersion: base?.version ?? null,
    });
    await flushOrRefuse(em, 'ODP102');
    return created(toVersionDto(version), {
      Location: `${ctx.baseUrl}/pricing-bundles/${bundle.id}/versions/${version.id}`,
    });
  },
});

export const getPricingBundleVersion = defineRoute({
  operationId: 'getPricingBundleVersion',
  method: 'get',
  path: '/pricing-bundles/{pricingBundleId}/versions/{pricingBundleVersionId}',
  interface: 'back',
  summary: 'One version of a bundle',
  tags,
  params: versionParams,
  access: {
    permission: 'PRICING_READ',
    businessUnitOf: 'the bundle',
    businessUnit: (ctx) => bundleUnit(ctx),
  },
  responses: { 200: { description: 'The version', schema: PricingBundleVersionSchema } },
  errors: ['ODP100', 'ODP101'],
  async handler(ctx) {
    const bundle = await bundleOf(ctx);
    return ok(toVersionDto(await loadPricingVersion(ctx.em, bundle.id, ctx.params.pricingBundleVersionId)));
  },
});

export const updatePricingBundleVersion = defineRoute({
  operationId: 'updatePricingBundleVersion',
  method: 'put',
  path: '/pricing-bundles/{pricingBundleId}/versions/{pricingBundleVersionId}',
  interface: 'back',
  summary: 'Replace the rules of a DRAFT (published versions are never changed: ODP102)',
  tags,
  params: versionParams,
  body: UpdatePricingBundleVersion,
  access: {
    permission: 'PRICING_WRITE',
    businessUnitOf: 'the bundle',
    businessUnit: (ctx) => bundleUnit(ctx),
  },
  responses: { 200: { description: 'The draft', schema: PricingBundleVersionSchema } },
  errors: ['ODP100', 'ODP101', 'ODP102', 'ODP103'],
  async handler(ctx) {
    const { em, body } = ctx;
    const bundle = await bundleOf(ctx);
    const version = await loadPricingVersion(em, bundle.id, ctx.params.pricingBundleVersionId);
    if (version.status !== 'DRAFT')
      throw new DomainError(
        'ODP102',
        `version ${version.version} is ${version.status}; create a new version instead`,
      );
    const rules = rulesFrom(bundle.type, body);
    const notes = body.notes !== undefined ? body.notes : (version.notes ?? null);
    // Conditional write: a publication that got in first wins, and this update then changes nothing.
    const updated = await em.nativeUpdate(
      PricingBundleVersion,
      { id: version.id, status: 'DRAFT' },
      { rules, notes, updatedAt: new Date() },
    );
    if (updated !== 1) throw new DomainError('ODP102', 'the version was published meanwhile');
    await em.refresh(version);
    return ok(toVersionDto(version));
  },
});

export const publishPricingBundleVersion = defineRoute({
  operationId: 'publishPricingBundleVersion',
  method: 'post',
  path: '/pricing-bundles/{pricingBundleId}/versions/{pricingBundleVersionId}/publish',
  interface: 'back',
  summary: 'Publish a DRAFT with an effective date',
  description:
    'Starts the publication workflow `pricing-version:{tenant}:{versionId}`: the version is PUBLISHED at once (and never changes again); at its effective date it applies and the previous published version becomes SUPERSEDED; with `validUntil` it becomes EXPIRED then.',
  tags,
  params: versionParams,
  body: PublishPricingBundleVersion,
  access: {
    permission: 'PRICING_PUBLISH',
    businessUnitOf: 'the bundle',
    businessUnit: (ctx) => bundleUnit(ctx),
  },
  responses: { 200: { description: 'The published version', schema: PricingBundleVersionSchema } },
  errors: ['ODP100', 'ODP101', 'ODP102', 'ODP105'],
  async handler(ctx) {
    const { em, body, services, tenant } = ctx;
    const bundle = await bundleOf(ctx);
    const version = await loadPricingVersion(em, bundle.id, ctx.params.pricingBundleVersionId);
    const effectiveFromMs = Date.parse(body.effectiveFrom);
    const validUntilMs = body.validUntil ? Date.parse(body.validUntil) : null;
    const published = await em.find(PricingBundleVersion, { bundle: bundle.id, status: 'PUBLISHED' });
    // Checked here for a quick answer; the workflow's activity checks again under a lock.
    const refused = publicationRefusal({
      bundleArchived: false,
      status: version.status,
      effectiveFromMs,
      validUntilMs,
      nowMs: Date.now(),
      publishedEffectiveFromMs: published.map((other) => other.effectiveFrom?.getTime() ?? 0),
    });
    if (refused) throw refused;
    let handle;
    try {
      handle = await services.temporal.workflow.start(
        PRICING_VERSION_WORKFLOW_TYPE,
        pricingVersionWorkflowStartOptions(
          {
            tenant,
            pricingBundleId: bundle.id,
            versionId: version.id,
            effectiveFrom: new Date(effectiveFromMs).toISOString(),
            validUntil: validUntilMs === null ? null : new Date(validUntilMs).toISOString(),
            requestedBy: ctx.actor,
          },
          services.taskQueue,
        ),
      );
    } catch (error) {
      if (error instanceof WorkflowExecutionAlreadyStartedError)
        throw new DomainError('ODP102', 'a publication of this version is already under way');
      throw error;
    }
    await handle.executeUpdate(awaitPublicationUpdate);
    const fresh = await em.fork().findOneOrFail(PricingBundleVersion, version.id);
    return ok(toVersionDto(fresh));
  },
});

export const pricingBundleVersionRoutes = [
  listPricingBundleVersions,
  addPricingBundleVersion,
  getPricingBundleVersion,
  updatePricingBundleVersion,
  publishPricingBundleVersion,
];
