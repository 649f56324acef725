// Areas (geofences with policies) and area types. Geofences are GeoJSON MultiPolygons with [lng, lat]
// positions, validated on every write (domain/geofence.ts).
import { randomUUID } from 'node:crypto';
import { Type, type Static } from '@sinclair/typebox';
import { Area } from '../../../db/entities/Area.js';
import { AreaType } from '../../../db/entities/AreaType.js';
import { Branch } from '../../../db/entities/Branch.js';
import type { EntityManager } from '../../../db/orm.js';
import { branchWithDescendants } from '../../../db/branches.js';
import { DomainError } from '../../../domain/errors.js';
import {
  areaPolicyTypes,
  areaStatuses,
  capacityCountedStates,
  geofenceProblem,
  maxGeofencePositions,
  policiesProblem,
  weekdays,
  type AreaPolicy,
  type GeofenceGeometry,
} from '../../../domain/geofence.js';
import { created, defineRoute, noContent, ok, type RouteContext } from '../../kernel/route.js';
import { component, DateTime, Id, Int, Nullable, Str, StringEnum } from '../../kernel/schemas.js';
import { orderBy } from '../../paging.js';

const tags = ['Areas'];

const Uuid = (options = {}) => Str(36, { format: 'uuid', ...options });
const Tag = Str(64, { minLength: 1 });
const Tags = Type.Array(Tag, { maxItems: 50, uniqueItems: true });

const AreaPolicyType = component('AreaPolicyType', StringEnum(areaPolicyTypes));
const AreaStatus = component('AreaStatus', StringEnum(areaStatuses));

export const Geofence = component(
  'Geofence',
  Type.Object(
    {
      type: StringEnum(['MultiPolygon'] as const),
      coordinates: Type.Array(
        Type.Array(
          Type.Array(
            Type.Array(Type.Number({ minimum: -1000, maximum: 1000 }), { minItems: 2, maxItems: 3 }),
            { maxItems: maxGeofencePositions },
          ),
          { maxItems: 20 },
        ),
        { maxItems: 50 },
      ),
    },
    {
      additionalProperties: false,
      description:
        'GeoJSON MultiPolygon. Positions are [longitude, latitude] as GeoJSON says (not latitude/longitude); every ring is closed (last position = first) and no ring crosses itself or another ring of its polygon; at most 5000 positions in all.',
    },
  ),
);

const clock = Str(5, { pattern: '^([01][0-9]|2[0-3]):[0-5][0-9]$', description: 'HH:mm, local time.' });
const PolicySchedule = component(
  'PolicySchedule',
  Type.Object(
    {
      weekdays: Type.Array(StringEnum(weekdays), { minItems: 1, maxItems: 7 }),
      startTime: clock,
      endTime: clock,
    },
    {
      additionalProperties: false,
      description:
        "In force on these weekdays from startTime (inclusive) to endTime (exclusive), in the branch's time zone; an end before the start spans midnight.",
    },
  ),
);
const schedule = Type.Optional(Nullable(PolicySchedule));
const capacity = Int(0, 100000);
const kmh = Int(1, 300, { description: 'km/h' });

const AreaPolicySchema = component(
  'AreaPolicy',
  Type.Union([
    Type.Object(
      {
        type: StringEnum(['END_RENTAL_CAPACITY_POLICY'] as const),
        overallCapacity: Type.Optional(Nullable(capacity)),
        applicableStates: Type.Array(StringEnum(capacityCountedStates), {
          minItems: 1,
          maxItems: capacityCountedStates.length,
        }),
        capacityByCategories: Type.Optional(
          Type.Array(Type.Object({ vehicleCategoryId: Id(), capacity }, { additionalProperties: false }), {
            maxItems: 100,
          }),
        ),
        schedule,
      },
      { additionalProperties: false },
    ),
    Type.Object(
      {
        type: StringEnum(['SPEED_LIMIT_POLICY'] as const),
        speedLimit: kmh,
        speedLimitOverrides: Type.Optional(
          Type.Array(
            Type.Object({ vehicleCategoryId: Id(), speedLimit: kmh }, { additionalProperties: false }),
            { maxItems: 100 },
          ),
        ),
        schedule,
      },
      { additionalProperties: false },
    ),
    Type.Object(
      {
        type: StringEnum([
          'NO_PARKING_POLICY',
          'NO_END_RENTAL_POLICY',
          'ALLOW_END_RENTAL_POLICY',
          'NOTICE_AREA_POLICY',
        ] as const),
        schedule,
      },
      { additionalProperties: false },
    ),
  ]),
);

const AreaSchema = component(
  'Area',
  Type.Object(
    {
      id: Type.String({ format: 'uuid' }),
      name: Type.String(),
      branchId: Id(),
      areaTypeId: Type.String({ format: 'uuid' }),
      status: AreaStatus,
      vehicleTypeIds: Type.Array(Id(), { description: 'Vehicle categories it applies to; empty: all.' }),
      geofence: Geofence,
      policies: Type.Array(AreaPolicySchema),
      tags: Type.Array(Type.String()),
      labels: Type.Array(Type.String(), { description: 'System labels, read-only (NEW until reviewed).' }),
      createdAt: DateTime(),
      updatedAt: DateTime(),
    },
    { additionalProperties: false },
  ),
);

const AreaWrite = component(
  'AreaWrite',
  Type.Object(
    {
      name: Str(200, { minLength: 1 }),
      branchId: Id(),
      areaTypeId: Uuid(),
      status: Type.Optional(AreaStatus),
      vehicleTypeIds: Type.Optional(Type.Array(Id(), { maxItems: 100, uniqueItems: true })),
      geofence: Geofence,
      policies: Type.Optional(Type.Array(AreaPolicySchema, { maxItems: areaPolicyTypes.length })),
      tags: Type.Optional(Tags),
    },
    { additionalProperties: false },
  ),
);

const AreaTypeStyle = component(
  'AreaTypeStyle',
  Type.Object(
    {
      color: Str(7, { pattern: '^#[0-9a-fA-F]{6}$' }),
      lineThickness: Int(1, 20),
      opacity: Type.Number({ minimum: 0, maximum: 1 }),
    },
    { additionalProperties: false },
  ),
);

const AreaTypeSchema = component(
  'AreaType',
  Type.Object(
    {
      id: Type.String({ format: 'uuid' }),
      name: Type.String(),
      description: Nullable(Type.String()),
      style: AreaTypeStyle,
      policyTypes: Type.Array(AreaPolicyType),
      readOnly: Type.Boolean(),
      tags: Type.Array(Type.String()),
      labels: Type.Array(Type.String()),
      areaCount: Type.Integer({ description: 'Areas of this type.' }),
    },
    { additionalProperties: false },
  ),
);

const AreaTypeWrite = component(
  'AreaTypeWrite',
  Type.Object(
    {
      name: Str(200, { minLength: 1 }),
      description: Type.Optional(Nullable(Str(2000))),
      style: AreaTypeStyle,
      policyTypes: Type.Array(AreaPolicyType, { maxItems: areaPolicyTypes.length, uniqueItems: true }),
      tags: Type.Optional(Tags),
    },
    { additionalProperties: false },
  ),
);

const AreaTypePatch = component(
  'AreaTypePatch',
  Type.Object(
    {
      name: Type.Optional(AreaTypeWrite.properties.name),
      description: AreaTypeWrite.properties.description,
      style: Type.Optional(AreaTypeStyle),
      policyTypes: Type.Optional(AreaTypeWrite.properties.policyTypes),
      tags: AreaTypeWrite.properties.tags,
    },
    {
      additionalProperties: false,
      minProperties: 1,
      description: 'The fields of AreaTypeWrite to change; the others keep their values.',
    },
  ),
);

const AreaIdParams = Type.Object({ areaId: Uuid() });
const AreaTypeIdParams = Type.Object({ areaTypeId: Uuid() });

type AreaDto = Static<typeof AreaSchema>;

function toAreaDto(area: Area): AreaDto {
  return {
    id: area.id,
    name: area.name,
    branchId: area.branch.id,
    areaTypeId: area.areaType.id,
    status: area.status,
    vehicleTypeIds: area.vehicleTypeIds,
    geofence: area.geofence,
    policies: area.policies as AreaDto['policies'],
    tags: area.tags,
    labels: area.labels,
    createdAt: area.createdAt.toISOString(),
    updatedAt: area.updatedAt.toISOString(),
  };
}

async function toAreaTypeDto(em: EntityManager, type: AreaType): Promise<Static<typeof AreaTypeSchema>> {
  return {
    id: type.id,
    name: type.name,
    description: type.description ?? null,
    style: type.style,
    policyTypes: type.policyTypes,
    readOnly: type.readOnly,
    tags: type.tags,
    labels: type.labels,
    areaCount: await em.count(Area, { areaType: type.id }),
  };
}

const areaOf = (ctx: RouteContext<{ areaId: string }>) =>
  ctx.once('area', async () => {
    const area = await ctx.em.findOne(Area, ctx.params.areaId);
    if (!area) throw new DomainError('AREA404', `area ${ctx.params.areaId} not found`);
    return area;
  });

async function loadAreaType(em: EntityManager, id: string): Promise<AreaType> {
  const type = await em.findOne(AreaType, id);
  if (!type) throw new DomainError('AT404', `area type ${id} not found`);
  return type;
}

/** Validates an area's geofence and policies against its type: GF100, AREA100, AREA101. */
function checkArea(body: Static<typeof AreaWrite>, type: AreaType): AreaPolicy[] {
  const problem = geofenceProblem(body.geofence);
  if (problem)
    throw new DomainError('GF100', problem.message, { reason: problem.reason, path: problem.path });
  const policies = (body.policies ?? []) as AreaPolicy[];
  const refused = policies.find((policy) => !type.policyTypes.includes(policy.type));
  if (refused) throw new DomainError('AREA100', `area type ${type.name} does not allow ${refused.type}`);
  const inconsistency = policiesProblem(policies);
  if (inconsistency) throw new DomainError('AREA101', inconsistency);
  return policies;
}

/**
 * Writes an area type's new fields, as PUT and PATCH share it: a read-only type is refused (AT410), and so
 * is removing a policy type that an area of this type still uses (AT411).
 */
async function changeAreaType(
  em: EntityManager,
  type: AreaType,
  next: Pick<AreaType, 'name' | 'description' | 'style' | 'policyTypes' | 'tags'>,
): Promise<void> {
  if (type.readOnly) throw new DomainError('AT410');
  const removed = type.policyTypes.filter((policyType) => !next.policyTypes.includes(policyType));
  if (removed.length) {
    const areas = await em.find(Area, { areaType: type.id });
    const stillUsed = removed.filter((policyType) =>
      areas.some((area) => area.policies.some((policy) => policy.type === policyType)),
    );
    if (stillUsed.length)
      throw new DomainError('AT411', `areas of this type still use ${stillUsed.join(', ')}`);
  }
  Object.assign(type, next);
  await em.flush();
}

/** Area types are tenant-wide display configuration: writing them needs AREA_TYPE_MANAGE somewhere. */
async function authorizeAreaTypeWrite(ctx: RouteContext): Promise<void> {
  if (!(await ctx.holds({ permission: 'AREA_TYPE_MANAGE' })))
    throw new DomainError('AUTH002', 'missing permission AREA_TYPE_MANAGE');
}

const paginationHeaders = {
  'X-Pagination-Total-Count': {
    description: 'Areas matching (the spec’s X-Pagination-* family).',
    schema: Type.Integer(),
  },
  'X-Pagination-Total-Pages': { description: 'Pages of this size.', schema: Type.Integer() },
  'X-Pagination-Page': { description: 'Zero-based page number.', schema: Type.Integer() },
  'X-Pagination-Size': { description: 'Page size.', schema: Type.Integer() },
};

export const listAreas = defineRoute({
  operationId: 'listAreas',
  method: 'get',
  path: '/areas',
  interface: 'back',
  summary: 'Areas of a branch',
  description: 'Paging is also answered in X-Pagination-* headers, as the spec documents for this list.',
  tags,
  query: Type.Object({
    branchId: Id(),
    includeChildBranches: Type.Optional(Type.Boolean({ default: false })),
    areaTypeId: Type.Optional(Uuid()),
    status: Type.Optional(AreaStatus),
    tag: Type.Optional(Tag),
    sort: Type.Optional(
      Str(24, { pattern: '^(id|name|status|createdAt|updatedAt)(,(asc|desc|ASC|DESC))?$', default: 'name' }),
    ),
  }),
  paged: { defaultSize: 50, maxSize: 500 },
  access: {
    permission: 'AREA_READ',
    branchOf: 'query parameter branchId',
    branch: (ctx) => ctx.query.branchId,
  },
  responses: {
    200: { description: 'One page of areas', schema: Type.Array(AreaSchema), headers: paginationHeaders },
  },
  errors: [],
  async handler({ em, tenant, query, page }) {
    const branches = query.includeChildBranches
      ? await branchWithDescendants(em, tenant, query.branchId)
      : [query.branchId];
    const where: Record<string, unknown> = { branch: { $in: branches } };
    if (query.areaTypeId) where.areaType = query.areaTypeId;
    if (query.status) where.status = query.status;
    if (query.tag) where.tags = { $contains: [query.tag] };
    const [areas, total] = await em.findAndCount(Area, where, {
      orderBy: orderBy(query.sort, 'name'),
      limit: page.size,
      offset: page.offset,
    });
    return ok(areas.map(toAreaDto), {
      total,
      headers: {
        'X-Pagination-Total-Count': String(total),
        'X-Pagination-Total-Pages': String(Math.ceil(total / page.size)),
        'X-Pagination-Page': String(page.page),
        'X-Pagination-Size': String(page.size),
      },
    });
  },
});

export const getArea = defineRoute({
  operationId: 'getArea',
  method: 'get',
  path: '/areas/{areaId}',
  interface: 'back',
  summary: 'One area',
  tags,
  params: AreaIdParams,
  access: {
    permission: 'AREA_READ',
    branchOf: 'the area',
    branch: async (ctx) => (await areaOf(ctx)).branch.id,
  },
  responses: { 200: { description: 'The area', schema: AreaSchema } },
  errors: ['AREA404'],
  async handler(ctx) {
    return ok(toAreaDto(await areaOf(ctx)));
  },
});

export const createArea = defineRoute({
  operationId: 'createArea',
  method: 'post',
  path: '/areas',
  interface: 'back',
  summary: 'Create an area',
  description: 'New areas carry the system label NEW until a PUT with resetNew=true.',
  tags,
  body: AreaWrite,
  access: { permission: 'AREA_MANAGE', branchOf: 'body.branchId', branch: (ctx) => ctx.body.branchId },
  responses: {
    201: {
      description: 'Area created',
      schema: AreaSchema,
      headers: { Location: { description: 'URL of the new area.', schema: Str(200) } },
    },
  },
  errors: ['AT404', 'GF100', 'AREA100', 'AREA101'],
  async handler(ctx) {
    const { em, body } = ctx;
    const type = await loadAreaType(em, body.areaTypeId);
    const policies = checkArea(body, type);
    const area = em.create(Area, {
      id: randomUUID(),
      name: body.name,
      branch: em.getReference(Branch, body.branchId),
      areaType: type,
      status: body.status ?? 'ACTIVE',
      vehicleTypeIds: body.vehicleTypeIds ?? [],
      geofence: body.geofence as GeofenceGeometry,
      policies,
      tags: body.tags ?? [],
      labels: ['NEW'],
    });
    await em.flush();
    return created(toAreaDto(area), { Location: `${ctx.baseUrl}/areas/${area.id}` });
  },
});

export const updateArea = defineRoute({
  operationId: 'updateArea',
  method: 'put',
  path: '/areas/{areaId}',
  interface: 'back',
  summary: 'Replace an area',
  description:
    'resetNew=true removes the system label NEW (the area has been reviewed). Moving the area to another branch needs AREA_MANAGE there too.',
  tags,
  params: AreaIdParams,
  query: Type.Object({ resetNew: Type.Optional(Type.Boolean({ default: false })) }),
  body: AreaWrite,
  access: {
    permission: 'AREA_MANAGE',
    branchOf: 'the area',
    branch: async (ctx) => (await areaOf(ctx)).branch.id,
  },
  responses: { 200: { description: 'The area', schema: AreaSchema } },
  errors: ['AREA404', 'AT404', 'GF100', 'AREA100', 'AREA101'],
  async handler(ctx) {
    const { em, body, query } = ctx;
    const area = await areaOf(ctx);
    if (body.branchId !== area.branch.id) {
      await ctx.authorize('AREA_MANAGE', { branchId: body.branchId });
      area.branch = em.getReference(Branch, body.branchId);
    }
    const type = await loadAreaType(em, body.areaTypeId);
    area.policies = checkArea(body, type);
    Object.assign(area, {
      name: body.name,
      areaType: type,
      status: body.status ?? 'ACTIVE',
      vehicleTypeIds: body.vehicleTypeIds ?? [],
      geofence: body.geofence as GeofenceGeometry,
      tags: body.tags ?? [],
    });
    if (query.resetNew) area.labels = area.labels.filter((label) => label !== 'NEW');
    await em.flush();
    return ok(toAreaDto(area));
  },
});

export const deleteArea = defineRoute({
  operationId: 'deleteArea',
  method: 'delete',
  path: '/areas/{areaId}',
  interface: 'back',
  summary: 'Delete an area',
  tags,
  params: AreaIdParams,
  access: {
    permission: 'AREA_MANAGE',
    branchOf: 'the area',
    branch: async (ctx) => (await areaOf(ctx)).branch.id,
  },
  responses: { 204: { description: 'Deleted' } },
  errors: ['AREA404'],
  async handler(ctx) {
    ctx.em.remove(await areaOf(ctx));
    await ctx.em.flush();
    return noContent();
  },
});

export const listAreaTypes = defineRoute({
  operationId: 'listAreaTypes',
  method: 'get',
  path: '/areatypes',
  interface: 'back',
  summary: 'Area types of the tenant',
  tags,
  access: { anyCaller: 'area types are tenant-wide display configuration without customer or fleet data.' },
  responses: {
    200: { description: 'Area types, by name', schema: Type.Array(AreaTypeSchema, { maxItems: 1000 }) },
  },
  errors: [],
  async handler({ em }) {
    const types = await em.find(AreaType, {}, { orderBy: { name: 'asc', id: 'asc' }, limit: 1000 });
    return ok(await Promise.all(types.map((type) => toAreaTypeDto(em, type))));
  },
});

export const getAreaType = defineRoute({
  operationId: 'getAreaType',
  method: 'get',
  path: '/areatypes/{areaTypeId}',
  interface: 'back',
  summary: 'One area type',
  tags,
  params: AreaTypeIdParams,
  access: { anyCaller: 'area types are tenant-wide display configuration without customer or fleet data.' },
  responses: { 200: { description: 'The area type', schema: AreaTypeSchema } },
  errors: ['AT404'],
  async handler({ em, params }) {
    return ok(await toAreaTypeDto(em, await loadAreaType(em, params.areaTypeId)));
  },
});

export const createAreaType = defineRoute({
  operationId: 'createAreaType',
  method: 'post',
  path: '/areatypes',
  interface: 'back',
  summary: 'Create an area type',
  tags,
  body: AreaTypeWrite,
  access: { anyCaller: 'the handler requires AREA_TYPE_MANAGE (a tenant-wide grant) before writing.' },
  responses: {
    201: {
      description: 'Area type created',
      schema: AreaTypeSchema,
      headers: { Location: { description: 'URL of the new area type.', schema: Str(200) } },
    },
  },
  errors: ['AUTH002'],
  async handler(ctx) {
    await authorizeAreaTypeWrite(ctx);
    const { em, body } = ctx;
    const type = em.create(AreaType, {
      id: randomUUID(),
      name: body.name,
      description: body.description ?? null,
      style: body.style,
      policyTypes: body.policyTypes,
      tags: body.tags ?? [],
    });
    await em.flush();
    return created(await toAreaTypeDto(em, type), { Location: `${ctx.baseUrl}/areatypes/${type.id}` });
  },
});

export const updateAreaType = defineRoute({
  operationId: 'updateAreaType',
  method: 'put',
  path: '/areatypes/{areaTypeId}',
  interface: 'back',
  summary: 'Replace an area type',
  description:
    'A policy type still used by an area of this type cannot be removed (AT411): change those areas first.',
  tags,
  params: AreaTypeIdParams,
  body: AreaTypeWrite,
  access: { anyCaller: 'the handler requires AREA_TYPE_MANAGE (a tenant-wide grant) before writing.' },
  responses: { 200: { description: 'The area type', schema: AreaTypeSchema } },
  errors: ['AUTH002', 'AT404', 'AT410', 'AT411'],
  async handler(ctx) {
    await authorizeAreaTypeWrite(ctx);
    const { em, body, params } = ctx;
    const type = await loadAreaType(em, params.areaTypeId);
    await changeAreaType(em, type, {
      name: body.name,
      description: body.description ?? null,
      style: body.style,
      policyTypes: body.policyTypes,
      tags: body.tags ?? [],
    });
    return ok(await toAreaTypeDto(em, type));
  },
});

export const patchAreaType = defineRoute({
  operationId: 'patchAreaType',
  method: 'patch',
  path: '/areatypes/{areaTypeId}',
  interface: 'back',
  summary: 'Change some fields of an area type',
  description:
    'The fields given replace their values (`description: null` clears it); the others stay. As with PUT, a policy type still used by an area of this type cannot be removed (AT411) and a read-only type cannot change (AT410).',
  tags,
  params: AreaTypeIdParams,
  body: AreaTypePatch,
  access: { anyCaller: 'the handler requires AREA_TYPE_MANAGE (a tenant-wide grant) before writing.' },
  responses: { 200: { description: 'The area type', schema: AreaTypeSchema } },
  errors: ['AUTH002', 'AT404', 'AT410', 'AT411'],
  async handler(ctx) {
    await authorizeAreaTypeWrite(ctx);
    const { em, body, params } = ctx;
    const type = await loadAreaType(em, params.areaTypeId);
    await changeAreaType(em, type, {
      name: body.name ?? type.name,
      description: body.description !== undefined ? body.description : (type.description ?? null),
      style: body.style ?? type.style,
      policyTypes: body.policyTypes ?? type.policyTypes,
      tags: body.tags ?? type.tags,
    });
    return ok(await toAreaTypeDto(em, type));
  },
});

export const deleteAreaType = defineRoute({
  operationId: 'deleteAreaType',
  method: 'delete',
  path: '/areatypes/{areaTypeId}',
  interface: 'back',
  summary: 'Delete an unused area type',
  tags,
  params: AreaTypeIdParams,
  access: { anyCaller: 'the handler requires AREA_TYPE_MANAGE (a tenant-wide grant) before writing.' },
  responses: { 204: { description: 'Deleted' } },
  errors: ['AUTH002', 'AT404', 'AT409', 'AT410'],
  async handler(ctx) {
    await authorizeAreaTypeWrite(ctx);
    const { em, params } = ctx;
    const type = await loadAreaType(em, params.areaTypeId);
    if (type.readOnly) throw new DomainError('AT410');
    const used = await em.count(Area, { areaType: type.id });
    if (used) throw new DomainError('AT409', `${used} areas use area type ${type.name}`);
    em.remove(type);
    await em.flush();
    return noContent();
  },
});

export const areaRoutes = [
  listAreas,
  getArea,
  createArea,
  updateArea,
  deleteArea,
  listAreaTypes,
  getAreaType,
  createAreaType,
  updateAreaType,
  patchAreaType,
  deleteAreaType,
];
