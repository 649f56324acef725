import { Type, type Static } from '@sinclair/typebox';
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import { BusinessUnit } from '../../../db/entities/BusinessUnit.js';
import { PricingAssignment } from '../../../db/entities/PricingAssignment.js';
import { PricingBundle } from '../../../db/entities/PricingBundle.js';
import { PricingBundleVersion } from '../../../db/entities/PricingBundleVersion.js';
import { VehicleCategory } from '../../../db/entities/VehicleCategory.js';
import type { EntityManager } from '../../../db/orm.js';
import {
  loadPricingBundle,
  loadPricingVersion,
  pricedVersion,
  versionApplyingAt,
} from '../../../db/pricing.js';
import { branchAncestry } from '../../../db/branches.js';
import { DomainError } from '../../../domain/errors.js';
import { isUniqueViolation } from '../../../db/constraints.js';
import {
  decimalPattern,
  distanceUnits,
  freeFloatingPricingModes,
  pricingBundleTypes,
  pricingVersionStatuses,
  publicationRefusal,
  validatePricingRules,
  type PricingRules,
} from '../../../domain/pricing.js';
import {
  awaitPublicationUpdate,
  pricingVersionWorkflowStartOptions,
  PRICING_VERSION_WORKFLOW_TYPE,
} from '../../../workflows/pricing.messages.js';
import { created, defineRoute, noContent, ok, type RouteContext } from '../../kernel/route.js';
import { component, DateTime, Id, Int, Nullable, Str, StringEnum } from '../../kernel/schemas.js';
import {
  bookingEstimate,
  branchUnitOf,
  instant,
  Estimate,
  BookingEstimate,
  freeFloatingEstimate,
  PricingVersionRef,
  resolveSimulatedVersion,
} from '../pricing-estimates.js';

// ---------------------------------------------------------------------------------------------------
// Schemas

/** Money and rates: decimal strings (never binary floating point), up to 10 integer digits, 6 decimals. */
const Decimal = (description: string) => Str(18, { pattern: decimalPattern, description });

const PricingBundleTypeSchema = component('PricingBundleType', StringEnum(pricingBundleTypes));
const PricingVersionStatusSchema = component('PricingVersionStatus', StringEnum(pricingVersionStatuses));
const FreeFloatingPricingModeSchema = component(
  'FreeFloatingPricingMode',
  StringEnum(freeFloatingPricingModes),
);
const DistanceUnitSchema = component('DistanceUnit', StringEnum(distanceUnits));
const Currency = Str(3, { pattern: '^[A-Z]{3}$', description: 'ISO 4217 code.' });

const TimeSlot = Type.Object(
  {
    fromMinute: Int(0, 525_600, {
      description: 'Billable minute from which the slot applies; the first is 0.',
    }),
    drivingPerMinute: Decimal('Rate per DRIVING minute.'),
    parkingPerMinute: Decimal('Rate per PARKING minute.'),
  },
  { additionalProperties: false },
);

const OnDemandRulesSchema = component(
  'OnDemandPricingRules',
  Type.Object(
    {
      unlockFee: Decimal('Charged once when the rental starts.'),
      reservationPerMinute: Decimal('Rate of RESERVATION_PAID minutes; RESERVATION_FREE costs nothing.'),
      timeSlots: Type.Array(TimeSlot, { minItems: 1, maxItems: 50 }),
      distancePerUnit: Decimal('Rate per distance unit beyond the included distance.'),
      includedDistance: Int(0, 1_000_000),
      billingIncrementMinutes: Int(1, 1440, { description: 'Each phase is billed in started increments.' }),
      minimumPrice: Decimal('A started rental costs at least this much (reservation excluded).'),
    },
    { additionalProperties: false },
  ),
);

const BookingRulesSchema = component(
  'BookingPricingRules',
  Type.Object(
    {
      hourlyRate: Decimal('Base rate per hour.'),
      unlockFee: Decimal('Charged once per booking.'),
      distancePerUnit: Decimal('Rate per distance unit beyond the daily allowance.'),
      includedDistancePerDay: Int(0, 1_000_000),
      nightRate: Nullable(
        Type.Object(
          {
            startLocalTime: Str(5, { pattern: '^([01][0-9]|2[0-3]):[0-5][0-9]$' }),
            endLocalTime: Str(5, { pattern: '^([01][0-9]|2[0-3]):[0-5][0-9]$' }),
            hourlyRate: Decimal('Rate per hour inside the night window (local time of the business unit).'),
          },
          { additionalProperties: false },
        ),
      ),
      weekendHourlyRate: Nullable(
        Decimal('Rate per hour on local Saturdays and Sundays outside the night window.'),
      ),
      adaptiveRates: Type.Array(
        Type.Object(
          { minimumHours: Int(0, 8784), factor: Decimal('Multiplies the time price, e.g. 0.8.') },
          { additionalProperties: false },
        ),
        { maxItems: 20 },
      ),
      additions: Type.Array(
        Type.Object(
          {
            code: Str(64, { pattern: '^[A-Z0-9_]{1,64}$' }),
            name: Str(200, { minLength: 1 }),
            price: Decimal('Price of the addition.'),
            per: StringEnum(['BOOKING', 'DAY'] as const),
          },
          { additionalProperties: false },
        ),
        { maxItems: 50 },
      ),
      cancellation: Type.Object(
        {
          cancellable: Type.Boolean(),
          freeUntilMinutesBefore: Int(0, 525_600),
          fee: Decimal('Fee after the free-cancellation deadline.'),
        },
        { additionalProperties: false },
      ),
      lateReturn: Type.Object(
        {
          graceMinutes: Int(0, 1440),
          hourlyRate: Decimal('Penalty per hour past the end and the grace period.'),
        },
        { additionalProperties: false },
      ),
      billingIncrementMinutes: Int(1, 1440),
    },
    { additionalProperties: false },
  ),
);

const VersionRulesFields = {
  notes: Type.Optional(Nullable(Str(1000))),
  pricesIncludeTax: Type.Optional(
    Type.Boolean({ default: true, description: 'Rates are gross (tax included).' }),
  ),
  freeFloatingPricingMode: Type.Optional(Nullable(FreeFloatingPricingModeSchema)),
  onDemand: Type.Optional(Nullable(OnDemandRulesSchema)),
  booking: Type.Optional(Nullable(BookingRulesSchema)),
};

const PricingBundleVersionSchema = component(
  'PricingBundleVersion',
  Type.Object(
    {
      id: Id(),
      pricingBundleId: Id(),
      version: Type.Integer(),
      status: PricingVersionStatusSchema,
      notes: Nullable(Type.String()),
      pricesIncludeTax: Type.Boolean(),
      freeFloatingPricingMode: Nullable(FreeFloatingPricingModeSchema),
      onDemand: Nullable(OnDemandRulesSchema),
      booking: Nullable(BookingRulesSchema),
      basedOnVersion: Nullable(Type.Integer()),
      effectiveFrom: Nullable(DateTime()),
      validUntil: Nullable(DateTime()),
      publishedAt: Nullable(DateTime()),
      publishedBy: Nullable(Type.String()),
      endedAt: Nullable(DateTime()),
      createdAt: DateTime(),
      updatedAt: DateTime(),
    },
    { additionalProperties: false },
  ),
);

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

// ---------------------------------------------------------------------------------------------------
// Mappers and loaders

/** The API's version representation. */
export function toVersionDto(version: PricingBundleVersion): Static<typeof PricingBundleVersionSchema> {
  return {
    id: version.id,
    pricingBundleId: version.bundle.id,
    version: version.version,
    status: version.status,
    notes: version.notes ?? null,
    pricesIncludeTax: version.rules.pricesIncludeTax,
    freeFloatingPricingMode: version.rules.freeFloatingPricingMode,
    onDemand: version.rules.onDemand,
    booking: version.rules.booking,
    basedOnVersion: version.basedOnVersion ?? null,
    effectiveFrom: version.effectiveFrom?.toISOString() ?? null,
    validUntil: version.validUntil?.toISOString() ?? null,
    publishedAt: version.publishedAt?.toISOString() ?? null,
    publishedBy: version.publishedBy ?? null,
    endedAt: version.endedAt?.toISOString() ?? null,
    createdAt: version.createdAt.toISOString(),
    updatedAt: version.updatedAt.toISOString(),
  };
}

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

/** The bundle of the path, loaded once per request (access check and handler share it). */
const bundleOf = (ctx: RouteContext<{ pricingBundleId: number }>) =>
  ctx.once('bundle', () => loadPricingBundle(ctx.em, ctx.params.pricingBundleId));

/** Finance permissions on a bundle are checked on its business unit. */
const bundleUnit = async (ctx: RouteContext<{ pricingBundleId: number }>) =>
  (await bundleOf(ctx)).businessUnit.id;

/** The business unit behind a branch given in the query or body, loaded once per request. */
const branchUnit = async (ctx: RouteContext, branchId: number) => (await branchUnitOf(ctx, branchId)).id;

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

/** Flushes; a unique key lost to a concurrent request is the business conflict it stands for. */
async function flushOrRefuse(em: EntityManager, code: 'ODP102' | 'ODP109' | 'ODP112'): Promise<void> {
  try {
    await em.flush();
  } catch (error) {
    if (isUniqueViolation(error)) throw new DomainError(code, 'a concurrent request got there first; retry');
    throw error;
  }
}

async function nextVersionNumber(em: EntityManager, bundleId: number): Promise<number> {
  const [row] = await em.execute<[{ next: number }]>(
    'select coalesce(max(version), 0)::int + 1 as next from pricing_bundle_version where bundle_id = ?',
    [bundleId],
  );
  return Number(row.next);
}

const tags = ['Pricing Bundles'];
const bundleParams = Type.Object({ pricingBundleId: Id() });
const versionParams = Type.Object({ pricingBundleId: Id(), pricingBundleVersionId: Id() });

// ---------------------------------------------------------------------------------------------------
// Bundles

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

export const deletePricingBundle = defineRoute({
  operationId: 'deletePricingBundle',
  method: 'delete',
  path: '/pricing-bundles/{pricingBundleId}',
  interface: 'back',
  summary: 'Delete a bundle (archived when it was ever published)',
  description:
    'A bundle with assignments is refused (ODP107). A bundle never published is deleted with its drafts; otherwise it is archived: hidden, its versions ARCHIVED, while rentals and bookings keep the version they recorded.',
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
    const { em } = ctx;
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
    return noContent();
  },
});

// ---------------------------------------------------------------------------------------------------
// Versions

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

// ---------------------------------------------------------------------------------------------------
// Assignments and options

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

// ---------------------------------------------------------------------------------------------------
// Simulators (operator): any version, drafts included, so a draft can be tried before it is published

const SimulatorTarget = {
  branchId: Id({ description: 'Branch whose business unit gives tax, rounding and time zone.' }),
  vehicleCategoryId: Type.Optional(
    Id({ description: 'Use the bundle assigned to this category at the branch.' }),
  ),
  pricingBundleId: Type.Optional(Id({ description: 'Or name the bundle directly.' })),
  pricingBundleVersionId: Type.Optional(
    Id({ description: 'A version of that bundle, drafts included; default: the one applying at startTime.' }),
  ),
};

const FreeFloatingSimulation = component(
  'FreeFloatingPricingSimulation',
  Type.Object(
    {
      ...SimulatorTarget,
      startTime: Type.Optional(DateTime({ description: 'When the reservation starts; default now.' })),
      reservationFreeMinutes: Type.Optional(Int(0, 1440, { default: 0 })),
      reservationPaidMinutes: Type.Optional(Int(0, 1440, { default: 0 })),
      phases: Type.Array(
        Type.Object(
          { phase: StringEnum(['DRIVING', 'PARKING'] as const), minutes: Int(0, 44_640) },
          { additionalProperties: false },
        ),
        { maxItems: 500, description: 'The rental after its reservation, in order.' },
      ),
      distance: Type.Optional(Str(20, { pattern: decimalPattern, default: '0' })),
    },
    { additionalProperties: false },
  ),
);

const BookingSimulation = component(
  'BookingPricingSimulation',
  Type.Object(
    {
      ...SimulatorTarget,
      startTime: DateTime(),
      endTime: DateTime(),
      returnTime: Type.Optional(DateTime({ description: 'Actual return, for the late-return penalty.' })),
      reservationTime: Type.Optional(
        DateTime({ description: 'When the booking is made (cancellation terms); default now.' }),
      ),
      distance: Type.Optional(Str(20, { pattern: decimalPattern, default: '0' })),
      additions: Type.Optional(Type.Array(Str(64, { pattern: '^[A-Z0-9_]{1,64}$' }), { maxItems: 50 })),
    },
    { additionalProperties: false },
  ),
);

const simulatorAccess = {
  permission: 'PRICING_READ',
  businessUnitOf: 'the business unit of body field branchId',
  businessUnit: (ctx: RouteContext<unknown, unknown, { branchId: number }>) =>
    branchUnit(ctx, ctx.body.branchId),
};

export const simulateFreeFloatingPrice = defineRoute({
  operationId: 'simulateFreeFloatingPrice',
  method: 'post',
  path: '/pricing-simulator/free-floating',
  interface: 'back',
  summary: 'Estimate an on-demand rental: reservation, then driving and parking phases',
  tags,
  body: FreeFloatingSimulation,
  access: simulatorAccess,
  responses: { 200: { description: 'An estimate', schema: Estimate } },
  errors: ['B404', 'ODP100', 'ODP101', 'ODP104', 'ODP106', 'ODP110', 'ODP111'],
  async handler(ctx) {
    const { body } = ctx;
    const start = instant(body.startTime);
    const resolved = await resolveSimulatedVersion(ctx, {
      ...body,
      bundleType: 'ON_DEMAND_LEGACY',
      at: start,
      draftsAllowed: true,
    });
    return ok(
      freeFloatingEstimate(resolved, {
        startMs: start.getTime(),
        reservationFreeMinutes: body.reservationFreeMinutes ?? 0,
        reservationPaidMinutes: body.reservationPaidMinutes ?? 0,
        phases: body.phases,
        distance: body.distance ?? '0',
      }),
    );
  },
});

export const simulateBookingPrice = defineRoute({
  operationId: 'simulateBookingPrice',
  method: 'post',
  path: '/pricing-simulator/booking',
  interface: 'back',
  summary: 'Estimate a booking, with its cancellation terms',
  tags,
  body: BookingSimulation,
  access: simulatorAccess,
  responses: { 200: { description: 'An estimate', schema: BookingEstimate } },
  errors: ['B404', 'ODP100', 'ODP101', 'ODP104', 'ODP106', 'ODP110', 'ODP111'],
  async handler(ctx) {
    const { body } = ctx;
    const reservedAt = instant(body.reservationTime);
    const resolved = await resolveSimulatedVersion(ctx, {
      ...body,
      bundleType: 'BOOKING',
      at: reservedAt,
      draftsAllowed: true,
    });
    return ok(
      bookingEstimate(resolved, {
        startMs: Date.parse(body.startTime),
        endMs: Date.parse(body.endTime),
        returnedAtMs: body.returnTime ? Date.parse(body.returnTime) : undefined,
        reservedAtMs: reservedAt.getTime(),
        distance: body.distance ?? '0',
        additions: body.additions ?? [],
      }),
    );
  },
});

/** The query of GET .../pricing-simulator on both interfaces: a bundle (or branch + category) and usage. */
export const SimulatorQuery = Type.Object({
  branchId: Id(),
  vehicleCategoryId: Type.Optional(Id()),
  pricingBundleId: Type.Optional(Id()),
  pricingBundleVersionId: Type.Optional(Id()),
  type: Type.Optional(PricingBundleTypeSchema),
  startTime: Type.Optional(DateTime({ description: 'Reservation or booking start; default now.' })),
  endTime: Type.Optional(DateTime({ description: 'Booking end (BOOKING bundles).' })),
  reservationFreeMinutes: Type.Optional(Int(0, 1440)),
  reservationPaidMinutes: Type.Optional(Int(0, 1440)),
  drivingMinutes: Type.Optional(Int(0, 44_640)),
  parkingMinutes: Type.Optional(Int(0, 44_640)),
  distance: Type.Optional(Str(20, { pattern: decimalPattern })),
  additions: Type.Optional(Type.Array(Str(64, { pattern: '^[A-Z0-9_]{1,64}$' }), { maxItems: 50 })),
});

/** Answers a GET simulator query with an on-demand or a booking estimate, by the bundle's type. */
export async function simulateFromQuery(
  ctx: RouteContext<unknown, Static<typeof SimulatorQuery>>,
  draftsAllowed: boolean,
): Promise<Static<typeof BookingEstimate>> {
  const { query } = ctx;
  const start = instant(query.startTime);
  const bundleType =
    query.type ??
    (query.pricingBundleId !== undefined
      ? (await loadPricingBundle(ctx.em, query.pricingBundleId)).type
      : 'ON_DEMAND_LEGACY');
  const resolved = await resolveSimulatedVersion(ctx, { ...query, bundleType, at: start, draftsAllowed });
  if (bundleType === 'BOOKING') {
    if (!query.endTime) throw new DomainError('ODP111', 'endTime is required for a booking estimate');
    return bookingEstimate(resolved, {
      startMs: start.getTime(),
      endMs: Date.parse(query.endTime),
      reservedAtMs: Date.now(),
      distance: query.distance ?? '0',
      additions: query.additions ?? [],
    });
  }
  const phases = [
    { phase: 'DRIVING' as const, minutes: query.drivingMinutes ?? 0 },
    { phase: 'PARKING' as const, minutes: query.parkingMinutes ?? 0 },
  ].filter((phase) => phase.minutes > 0);
  return freeFloatingEstimate(resolved, {
    startMs: start.getTime(),
    reservationFreeMinutes: query.reservationFreeMinutes ?? 0,
    reservationPaidMinutes: query.reservationPaidMinutes ?? 0,
    phases,
    distance: query.distance ?? '0',
  });
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

// Static paths before `/pricing-bundles/{pricingBundleId}`, so the literal segment wins.
export const pricingRoutes = [
  getPricingSimulation,
  listPricingBundles,
  addPricingBundle,
  getPricingBundle,
  updatePricingBundle,
  deletePricingBundle,
  listPricingBundleVersions,
  addPricingBundleVersion,
  getPricingBundleVersion,
  updatePricingBundleVersion,
  publishPricingBundleVersion,
  listPricingAssignments,
  addPricingAssignment,
  updatePricingAssignment,
  deletePricingAssignment,
  listPricingOptions,
  simulateFreeFloatingPrice,
  simulateBookingPrice,
];
