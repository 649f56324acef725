// How vehicle categories appear in the public feeds as GBFS vehicle types (docs/feeds.md): form factor,
// propulsion and the range of the battery model, which the categories themselves do not say. Categories
// are tenant-wide display configuration (like area types), so reading needs FEED_READ and changing
// FEED_MANAGE granted anywhere in the tenant. A category without a mapping stays out of the feeds.
import { Type, type Static } from '@sinclair/typebox';
import { FeedVehicleType } from '../../../db/entities/FeedVehicleType.js';
import { VehicleCategory } from '../../../db/entities/VehicleCategory.js';
import { DomainError } from '../../../domain/errors.js';
import {
  gbfsFormFactors,
  gbfsPropulsionTypes,
  isMotorised,
  type GbfsPropulsionType,
} from '../../../domain/gbfs-vocabulary.js';
import { invalidateFeeds } from '../../feeds/gbfs-snapshots.js';
import { defineRoute, noContent, ok, type RouteContext } from '../../kernel/route.js';
import { component, Id, Int, Nullable, Str, StringEnum } from '../../kernel/schemas.js';

const tags = ['Feeds'];

export const FeedVehicleTypeSchema = component(
  'FeedVehicleType',
  Type.Object(
    {
      categoryId: Id(),
      vehicleTypeId: Type.String({ description: 'The GBFS vehicle_type_id the feeds publish.' }),
      formFactor: StringEnum(gbfsFormFactors),
      propulsionType: StringEnum(gbfsPropulsionTypes),
      batteryModel: Nullable(Type.String()),
      maxRangeMeters: Nullable(Type.Integer()),
      riderCapacity: Nullable(Type.Integer()),
      make: Nullable(Type.String()),
      model: Nullable(Type.String()),
      wheelCount: Nullable(Type.Integer()),
      maxPermittedSpeedKmh: Nullable(Type.Integer()),
    },
    { additionalProperties: false },
  ),
);

const FeedVehicleTypeWrite = component(
  'FeedVehicleTypeWrite',
  Type.Object(
    {
      formFactor: StringEnum(gbfsFormFactors),
      propulsionType: StringEnum(gbfsPropulsionTypes),
      batteryModel: Type.Optional(Nullable(Str(200, { minLength: 1 }))),
      maxRangeMeters: Type.Optional(
        Nullable(
          Int(1, 10_000_000, {
            description:
              'Full-charge range of the battery model, metres; required unless propulsion is human.',
          }),
        ),
      ),
      riderCapacity: Type.Optional(Nullable(Int(1, 100))),
      make: Type.Optional(Nullable(Str(200, { minLength: 1 }))),
      model: Type.Optional(Nullable(Str(200, { minLength: 1 }))),
      wheelCount: Type.Optional(Nullable(Int(1, 32))),
      maxPermittedSpeedKmh: Type.Optional(Nullable(Int(1, 400))),
    },
    { additionalProperties: false },
  ),
);

type Dto = Static<typeof FeedVehicleTypeSchema>;

const toDto = (row: FeedVehicleType): Dto => ({
  categoryId: row.category.id,
  vehicleTypeId: `cat-${row.category.id}`,
  formFactor: row.formFactor,
  propulsionType: row.propulsionType,
  batteryModel: row.batteryModel ?? null,
  maxRangeMeters: row.maxRangeMeters ?? null,
  riderCapacity: row.riderCapacity ?? null,
  make: row.make ?? null,
  model: row.model ?? null,
  wheelCount: row.wheelCount ?? null,
  maxPermittedSpeedKmh: row.maxPermittedSpeedKmh ?? null,
});

async function requireAnywhere(ctx: RouteContext, permission: string): Promise<void> {
  if (!(await ctx.holds({ permission })))
    throw new DomainError('AUTH002', `missing permission ${permission}`);
}

const Params = Type.Object({ categoryId: Id() });

export const listFeedVehicleTypes = defineRoute({
  operationId: 'listFeedVehicleTypes',
  method: 'get',
  path: '/feed-vehicle-types',
  interface: 'back',
  summary: 'The GBFS vehicle types of the tenant: one per published vehicle category',
  tags,
  access: { anyCaller: 'the handler requires FEED_READ on some branch of the tenant' },
  responses: { 200: { description: 'Every mapping', schema: Type.Array(FeedVehicleTypeSchema) } },
  errors: ['AUTH002'],
  async handler(ctx) {
    await requireAnywhere(ctx, 'FEED_READ');
    const rows = await ctx.em.find(FeedVehicleType, {}, { orderBy: { category: 'asc' } });
    return ok(rows.map(toDto));
  },
});

export const putFeedVehicleType = defineRoute({
  operationId: 'putFeedVehicleType',
  method: 'put',
  path: '/feed-vehicle-types/{categoryId}',
  interface: 'back',
  summary: 'Publish a vehicle category as a GBFS vehicle type, or change how it is published',
  tags,
  params: Params,
  body: FeedVehicleTypeWrite,
  access: {
    anyCaller:
      'the handler requires FEED_MANAGE granted on some branch of the tenant (categories are tenant-wide)',
  },
  responses: { 200: { description: 'The mapping', schema: FeedVehicleTypeSchema } },
  errors: ['AUTH002', 'VC404', 'FD104'],
  async handler(ctx) {
    await requireAnywhere(ctx, 'FEED_MANAGE');
    const category = await ctx.em.findOne(VehicleCategory, ctx.params.categoryId);
    if (!category) throw new DomainError('VC404', `vehicle category ${ctx.params.categoryId} not found`);
    const { body } = ctx;
    if (isMotorised(body.propulsionType as GbfsPropulsionType) && !body.maxRangeMeters)
      throw new DomainError('FD104', `maxRangeMeters is required for ${body.propulsionType} propulsion`);
    const row =
      (await ctx.em.findOne(FeedVehicleType, { category: category.id })) ??
      ctx.em.create(FeedVehicleType, {
        category,
        formFactor: body.formFactor,
        propulsionType: body.propulsionType,
      });
    row.formFactor = body.formFactor;
    row.propulsionType = body.propulsionType;
    row.batteryModel = body.batteryModel ?? null;
    row.maxRangeMeters = body.maxRangeMeters ?? null;
    row.riderCapacity = body.riderCapacity ?? null;
    row.make = body.make ?? null;
    row.model = body.model ?? null;
    row.wheelCount = body.wheelCount ?? null;
    row.maxPermittedSpeedKmh = body.maxPermittedSpeedKmh ?? null;
    await ctx.em.flush();
    invalidateFeeds(ctx.tenant);
    return ok(toDto(row));
  },
});

export const deleteFeedVehicleType = defineRoute({
  operationId: 'deleteFeedVehicleType',
  method: 'delete',
  path: '/feed-vehicle-types/{categoryId}',
  interface: 'back',
  summary: 'Stop publishing a vehicle category: its vehicles leave the feeds',
  tags,
  params: Params,
  access: {
    anyCaller:
      'the handler requires FEED_MANAGE granted on some branch of the tenant (categories are tenant-wide)',
  },
  responses: { 204: { description: 'No longer published' } },
  errors: ['AUTH002', 'FD404'],
  async handler(ctx) {
    await requireAnywhere(ctx, 'FEED_MANAGE');
    const row = await ctx.em.findOne(FeedVehicleType, { category: ctx.params.categoryId });
    if (!row) throw new DomainError('FD404', `vehicle category ${ctx.params.categoryId} is not published`);
    ctx.em.remove(row);
    await ctx.em.flush();
    invalidateFeeds(ctx.tenant);
    return noContent();
  },
});

export const feedVehicleTypeRoutes = [listFeedVehicleTypes, putFeedVehicleType, deleteFeedVehicleType];
