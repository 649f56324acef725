// The maintenance service's service vehicles (/api/vehicles): the crews' own vans, not rental vehicles.
// List by branch, create, edit and delete (PATCH with the id in the body and DELETE with the id in the
// query, as the spec lists the four verbs on the one path). A route may name one (field-routes.ts).
import { UniqueConstraintViolationException } from '@mikro-orm/core';
import { Type, type Static } from '@sinclair/typebox';
import { FieldRoute } from '../../../db/entities/FieldRoute.js';
import { ServiceVehicle } from '../../../db/entities/ServiceVehicle.js';
import { branchWithDescendants } from '../../../db/branches.js';
import type { EntityManager } from '../../../db/orm.js';
import { DomainError } from '../../../domain/errors.js';
import { serviceVehicleStates } from '../../../domain/maintenance.js';
import { created, defineRoute, noContent, ok, type RouteContext } from '../../kernel/route.js';
import { component, Id, Int, Nullable, Position, StringEnum } from '../../kernel/schemas.js';
import { Name } from './field-route-representation.js';

const tags = ['Service Vehicles'];

const ServiceVehicleState = component('ServiceVehicleState', StringEnum(serviceVehicleStates));
const LicencePlate = Type.String({
  minLength: 2,
  maxLength: 20,
  pattern: '^[\\p{L}\\p{N}][\\p{L}\\p{N} -]*[\\p{L}\\p{N}]$',
  description:
    'Letters, digits, spaces and dashes; unique in the tenant regardless of case, spaces and dashes.',
});
const Capacity = Int(0, 1000, { description: 'How many vehicles or battery packs it carries.' });

const ServiceVehicleSchema = component(
  'ServiceVehicle',
  Type.Object(
    {
      id: Type.Integer(),
      branchId: Type.Integer(),
      name: Type.String(),
      licencePlate: Type.String(),
      capacity: Type.Integer(),
      state: ServiceVehicleState,
      position: Nullable(Position),
      createdAt: Type.String({ format: 'date-time' }),
      updatedAt: Type.String({ format: 'date-time' }),
    },
    { additionalProperties: false },
  ),
);

function dto(van: ServiceVehicle): Static<typeof ServiceVehicleSchema> {
  return {
    id: van.id,
    branchId: van.branchId,
    name: van.name,
    licencePlate: van.licencePlate,
    capacity: van.capacity,
    state: van.state,
    position:
      van.latitude != null && van.longitude != null ? { lat: van.latitude, lng: van.longitude } : null,
    createdAt: new Date(van.createdAt).toISOString(),
    updatedAt: new Date(van.updatedAt).toISOString(),
  };
}

/** What uniqueness compares: the plate upper-cased without spaces and dashes. */
const plateKey = (plate: string) => plate.replace(/[\s-]/g, '').toUpperCase();

/** Refuses a plate another service vehicle of the tenant has (MT414); the unique index settles races. */
async function assertPlateFree(em: EntityManager, plate: string, except?: number): Promise<void> {
  const other = await em.findOne(ServiceVehicle, { plateKey: plateKey(plate) });
  if (other && other.id !== except)
    throw new DomainError('MT414', `service vehicle ${other.id} has licence plate ${other.licencePlate}`);
}

/** Flushes, answering MT414 when a concurrent write took the plate first. */
async function flushPlate(em: EntityManager): Promise<void> {
  try {
    await em.flush();
  } catch (error) {
    if (error instanceof UniqueConstraintViolationException)
      throw new DomainError('MT414', 'another service vehicle has that licence plate');
    throw error;
  }
}

const vanById = (ctx: RouteContext, id: number) =>
  ctx.once(`service-vehicle:${id}`, async () => {
    const van = await ctx.em.findOne(ServiceVehicle, id);
    if (!van) throw new DomainError('MT406', `service vehicle ${id} not found`);
    return van;
  });

function recordVanEvent(ctx: RouteContext, type: string, van: ServiceVehicle, fields?: string[]) {
  ctx.recordEvent({
    type,
    branchId: van.branchId,
    description: van.name,
    payload: { serviceVehicleId: van.id, licencePlate: van.licencePlate, ...(fields ? { fields } : {}) },
  });
}

export const listServiceVehicles = defineRoute({
  operationId: 'listServiceVehicles',
  method: 'get',
  path: '/api/vehicles',
  interface: 'maintenance',
  summary: "A branch's service vehicles, by name",
  tags,
  query: Type.Object({
    branchId: Id(),
    includeChildBranches: Type.Optional(Type.Boolean({ default: false })),
    state: Type.Optional(ServiceVehicleState),
  }),
  paged: { defaultSize: 50, maxSize: 200 },
  access: {
    permission: 'MAINTENANCE_READ',
    branchOf: 'query parameter branchId',
    branch: (ctx) => ctx.query.branchId,
  },
  responses: {
    200: { description: 'One page of service vehicles', schema: Type.Array(ServiceVehicleSchema) },
  },
  errors: [],
  async handler({ em, tenant, query, page }) {
    const where: Record<string, unknown> = {
      branchId: query.includeChildBranches
        ? { $in: await branchWithDescendants(em, tenant, query.branchId) }
        : query.branchId,
    };
    if (query.state) where.state = query.state;
    const [rows, total] = await em.findAndCount(ServiceVehicle, where, {
      orderBy: { name: 'asc', id: 'asc' },
      limit: page.size,
      offset: page.offset,
    });
    return ok(rows.map(dto), { total });
  },
});

export const createServiceVehicle = defineRoute({
  operationId: 'createServiceVehicle',
  method: 'post',
  path: '/api/vehicles',
  interface: 'maintenance',
  summary: 'Add a service vehicle to a branch',
  tags,
  body: Type.Object(
    {
      branchId: Id(),
      name: Name,
      licencePlate: LicencePlate,
      capacity: Capacity,
      state: Type.Optional(ServiceVehicleState),
      position: Type.Optional(Nullable(Position)),
    },
    { additionalProperties: false },
  ),
  access: {
    permission: 'MAINTENANCE_MANAGE',
    branchOf: 'branchId of the body',
    branch: (ctx) => ctx.body.branchId,
  },
  responses: { 201: { description: 'The service vehicle', schema: ServiceVehicleSchema } },
  errors: ['MT414'],
  async handler(ctx) {
    const { body, em } = ctx;
    await assertPlateFree(em, body.licencePlate);
    const van = em.create(ServiceVehicle, {
      branchId: body.branchId,
      name: body.name,
      licencePlate: body.licencePlate,
      plateKey: plateKey(body.licencePlate),
      capacity: body.capacity,
      state: body.state ?? 'ACTIVE',
      latitude: body.position?.lat ?? null,
      longitude: body.position?.lng ?? null,
    });
    await flushPlate(em);
    recordVanEvent(ctx, 'SERVICE_VEHICLE_CREATED', van);
    return created(dto(van));
  },
});

export const updateServiceVehicle = defineRoute({
  operationId: 'updateServiceVehicle',
  method: 'patch',
  path: '/api/vehicles',
  interface: 'maintenance',
  summary: 'Edit a service vehicle (its id in the body)',
  description: 'The branch does not change.',
  tags,
  body: Type.Object(
    {
      id: Id({ description: 'The service vehicle.' }),
      name: Type.Optional(Name),
      licencePlate: Type.Optional(LicencePlate),
      capacity: Type.Optional(Capacity),
      state: Type.Optional(ServiceVehicleState),
      position: Type.Optional(Nullable(Position)),
    },
    { additionalProperties: false, minProperties: 2 },
  ),
  access: {
    permission: 'MAINTENANCE_MANAGE',
    branchOf: 'the service vehicle (id of the body)',
    branch: async (ctx) => (await vanById(ctx, ctx.body.id)).branchId,
  },
  responses: { 200: { description: 'The service vehicle', schema: ServiceVehicleSchema } },
  errors: ['MT406', 'MT414'],
  async handler(ctx) {
    const { body, em } = ctx;
    const van = await vanById(ctx, body.id);
    if (body.licencePlate !== undefined) {
      await assertPlateFree(em, body.licencePlate, van.id);
      van.licencePlate = body.licencePlate;
      van.plateKey = plateKey(body.licencePlate);
    }
    if (body.name !== undefined) van.name = body.name;
    if (body.capacity !== undefined) van.capacity = body.capacity;
    if (body.state !== undefined) van.state = body.state;
    if (body.position !== undefined) {
      van.latitude = body.position?.lat ?? null;
      van.longitude = body.position?.lng ?? null;
    }
    van.updatedAt = new Date();
    await flushPlate(em);
    recordVanEvent(
      ctx,
      'SERVICE_VEHICLE_UPDATED',
      van,
      Object.keys(body).filter((key) => key !== 'id'),
    );
    return ok(dto(van));
  },
});

export const deleteServiceVehicle = defineRoute({
  operationId: 'deleteServiceVehicle',
  method: 'delete',
  path: '/api/vehicles',
  interface: 'maintenance',
  summary: 'Remove a service vehicle (its id in the query)',
  description:
    'Refused (MT415) while a route that is not COMPLETED or CANCELLED names it; finished routes keep its id.',
  tags,
  query: Type.Object({ id: Id({ description: 'The service vehicle.' }) }),
  access: {
    permission: 'MAINTENANCE_MANAGE',
    branchOf: 'the service vehicle (query parameter id)',
    branch: async (ctx) => (await vanById(ctx, ctx.query.id)).branchId,
  },
  responses: { 204: { description: 'Removed' } },
  errors: ['MT406', 'MT415'],
  async handler(ctx) {
    const van = await vanById(ctx, ctx.query.id);
    const open = await ctx.em.count(FieldRoute, {
      serviceVehicleId: van.id,
      state: { $in: ['PLANNED', 'IN_PROGRESS', 'PAUSED'] },
    });
    if (open) throw new DomainError('MT415', `${open} open route(s) name service vehicle ${van.id}`);
    recordVanEvent(ctx, 'SERVICE_VEHICLE_DELETED', van);
    ctx.em.remove(van);
    await ctx.em.flush();
    return noContent();
  },
});

export const serviceVehicleRoutes = [
  listServiceVehicles,
  createServiceVehicle,
  updateServiceVehicle,
  deleteServiceVehicle,
];
