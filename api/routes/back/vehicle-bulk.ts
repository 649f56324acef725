// Operator endpoints over many vehicles: bulk creation and updates with per-vehicle outcomes (partial
// success), tasks and notes, the spatial clusters, the overviews and the details of several vehicles.
import { Type, type Static } from '@sinclair/typebox';
import { featureCollection, point } from '@turf/turf';
import { Branch } from '../../../db/entities/Branch.js';
import { Task } from '../../../db/entities/Task.js';
import { Vehicle } from '../../../db/entities/Vehicle.js';
import { VehicleCategory } from '../../../db/entities/VehicleCategory.js';
import { VehicleNote } from '../../../db/entities/VehicleNote.js';
import { taskPriorities, taskStates } from '../../../db/entities/Task.js';
import type { EntityManager } from '../../../db/orm.js';
import { branchWithDescendants } from '../../../db/branches.js';
import { resolvedCategories } from '../../../db/categories.js';
import { DomainError, isDomainError } from '../../../domain/errors.js';
import {
  effectiveBatteryLevel,
  serviceStateEventType,
  vehicleRentalStates,
} from '../../../domain/vehicle.js';
import { recordEvent } from '../../../db/events.js';
import { defineRoute, ok, type RouteContext } from '../../kernel/route.js';
import {
  component,
  DateTime,
  Id,
  Int,
  Nullable,
  Position,
  Str,
  StringEnum,
  Dictionary,
} from '../../kernel/schemas.js';
import { readinessOf } from '../../shared/vehicle-readiness.js';
import { ServiceStateV2, onTheVehicle, vehicleById } from './vehicle-representation.js';

const tags = ['Vehicles'];

const BulkResult = component(
  'VehicleBulkResult',
  Type.Object(
    {
      successes: Type.Array(
        Type.Object(
          { index: Type.Integer(), vehicleId: Id(), code: Type.String() },
          { additionalProperties: false },
        ),
      ),
      failures: Type.Array(
        Type.Object(
          {
            index: Type.Integer(),
            vehicleId: Nullable(Type.Integer()),
            errorCode: Type.String(),
            message: Type.String(),
          },
          { additionalProperties: false },
        ),
      ),
    },
    {
      additionalProperties: false,
      description:
        'Per-vehicle outcome: each vehicle is committed on its own, so some may succeed while others fail.',
    },
  ),
);

type BulkResultDto = Static<typeof BulkResult>;

const VehicleIds = Type.Array(Id(), { minItems: 1, maxItems: 200, uniqueItems: true });

/**
 * Runs `work` for each vehicle in its own transaction after checking `permission` on its branch; a
 * refusal, a missing vehicle or a domain error becomes that vehicle's failure, the others go on.
 */
async function forEachVehicle(
  ctx: RouteContext,
  vehicleIds: readonly number[],
  permission: string,
  work: (em: EntityManager, vehicle: Vehicle) => Promise<void>,
): Promise<BulkResultDto> {
  const result: BulkResultDto = { successes: [], failures: [] };
  for (const [index, vehicleId] of vehicleIds.entries()) {
    try {
      const vehicle = await ctx.em.fork().findOne(Vehicle, vehicleId);
      if (!vehicle) throw new DomainError('V404', `vehicle ${vehicleId} not found`);
      await ctx.authorize(permission, { branchId: vehicle.branch.id });
      await ctx.em.fork().transactional(async (tx) => {
        const row = await tx.findOneOrFail(Vehicle, vehicleId);
        await work(tx, row);
      });
      result.successes.push({ index, vehicleId, code: vehicle.code });
    } catch (error) {
      if (!isDomainError(error)) throw error;
      result.failures.push({ index, vehicleId, errorCode: error.code, message: error.message });
    }
  }
  return result;
}

const bulkAccess = {
  anyCaller:
    "vehicles may belong to different branches: the handler checks the permission on each vehicle's branch and reports a refusal as that vehicle's failure (AUTH002)",
} as const;

const BulkCreate = component(
  'VehicleBulkCreate',
  Type.Object(
    {
      vehicles: Type.Array(
        Type.Object(
          {
            code: Str(64, { minLength: 1 }),
            licensePlate: Type.Optional(Nullable(Str(32))),
            branchId: Id(),
            categoryId: Id(),
            serviceStateV2: Type.Optional(ServiceStateV2),
            position: Type.Optional(Position),
            tags: Type.Optional(Type.Array(Str(64), { maxItems: 50 })),
          },
          { additionalProperties: false },
        ),
        { minItems: 1, maxItems: 100 },
      ),
    },
    { additionalProperties: false },
  ),
);

export const bulkCreateVehicles = defineRoute({
  operationId: 'bulkCreateVehicles',
  method: 'post',
  path: '/vehicles/bulk-create',
  interface: 'back',
  summary: 'Create many vehicles; each succeeds or fails on its own',
  tags,
  body: BulkCreate,
  access: bulkAccess,
  responses: { 200: { description: 'Per-vehicle outcome', schema: BulkResult } },
  errors: [],
  async handler(ctx) {
    const result: BulkResultDto = { successes: [], failures: [] };
    for (const [index, item] of ctx.body.vehicles.entries()) {
      try {
        await ctx.authorize('VEHICLE_CREATE', { branchId: item.branchId });
        const vehicle = await ctx.em.fork().transactional(async (tx) => {
          const category = await tx.findOne(VehicleCategory, item.categoryId);
          if (!category) throw new DomainError('VC404', `vehicle category ${item.categoryId} not found`);
          if (await tx.count(Vehicle, { code: item.code }))
            throw new DomainError('V100', `a vehicle with code ${item.code} exists`);
          const created = tx.create(Vehicle, {
            code: item.code,
            licensePlate: item.licensePlate ?? null,
            branch: tx.getReference(Branch, item.branchId),
            category,
            serviceStateV2: item.serviceStateV2 ?? 'FUNCTIONAL',
            latitude: item.position?.lat ?? null,
            longitude: item.position?.lng ?? null,
            tags: item.tags ?? [],
            rotatingUuid: crypto.randomUUID(),
          });
          await tx.flush();
          recordEvent(tx, {
            type: 'VEHICLE_UPDATE',
            branchId: item.branchId,
            vehicleId: created.id,
            description: 'created (bulk)',
            adminSubject: ctx.actor,
          });
          return created;
        });
        result.successes.push({ index, vehicleId: vehicle.id, code: vehicle.code });
      } catch (error) {
        if (!isDomainError(error)) throw error;
        result.failures.push({ index, vehicleId: null, errorCode: error.code, message: error.message });
      }
    }
    return ok(result);
  },
});

const BulkChanges = component(
  'VehicleBulkChanges',
  Type.Object(
    {
      serviceStateV2: Type.Optional(ServiceStateV2),
      categoryId: Type.Optional(Id()),
      addTags: Type.Optional(Type.Array(Str(64), { maxItems: 50 })),
      removeTags: Type.Optional(Type.Array(Str(64), { maxItems: 50 })),
      customProperties: Type.Optional(Dictionary(Str(64), Str(1000), { maxProperties: 50 })),
    },
    { additionalProperties: false, minProperties: 1 },
  ),
);

/** Applies one bulk change to one vehicle, with its events. */
async function applyChanges(
  ctx: RouteContext,
  tx: EntityManager,
  vehicle: Vehicle,
  changes: Static<typeof BulkChanges>,
): Promise<void> {
  const event = (type: string, payload: Record<string, unknown>) =>
    recordEvent(tx, {
      type,
      branchId: vehicle.branch.id,
      vehicleId: vehicle.id,
      adminSubject: ctx.actor,
      payload,
    });
  if (changes.categoryId !== undefined && changes.categoryId !== vehicle.category.id) {
    const category = await tx.findOne(VehicleCategory, changes.categoryId);
    if (!category) throw new DomainError('VC404', `vehicle category ${changes.categoryId} not found`);
    vehicle.category = category;
  }
  if (changes.serviceStateV2 && changes.serviceStateV2 !== vehicle.serviceStateV2) {
    event(serviceStateEventType(changes.serviceStateV2), {
      from: vehicle.serviceStateV2,
      to: changes.serviceStateV2,
    });
    vehicle.serviceStateV2 = changes.serviceStateV2;
  }
  if (changes.addTags || changes.removeTags) {
    const removed = new Set(changes.removeTags ?? []);
    vehicle.tags = [...new Set([...vehicle.tags, ...(changes.addTags ?? [])])].filter(
      (tag) => !removed.has(tag),
    );
  }
  if (changes.customProperties)
    vehicle.customProperties = { ...vehicle.customProperties, ...changes.customProperties };
  const configuration = (await resolvedCategories(tx)).get(vehicle.category.id)?.configuration ?? {};
  vehicle.batteryLevel = effectiveBatteryLevel(vehicle, configuration);
  event('VEHICLE_BULK_UPDATE', { changes: Object.keys(changes) });
}

export const bulkUpdateVehicles = defineRoute({
  operationId: 'bulkUpdateVehicles',
  method: 'post',
  path: '/vehicles/bulk-update',
  interface: 'back',
  summary: 'Update every vehicle of a branch that matches a query; each vehicle succeeds or fails on its own',
  tags,
  query: Type.Object({
    branchId: Id(),
    includeChildBranches: Type.Optional(Type.Boolean({ default: false })),
  }),
  body: Type.Object(
    {
      filter: Type.Object(
        {
          serviceStateV2: Type.Optional(Type.Array(ServiceStateV2, { maxItems: 30 })),
          rentalState: Type.Optional(Type.Array(StringEnum(vehicleRentalStates), { maxItems: 5 })),
          categoryId: Type.Optional(Id()),
          tag: Type.Optional(Str(64, { minLength: 1 })),
        },
        { additionalProperties: false },
      ),
      changes: BulkChanges,
    },
    { additionalProperties: false },
  ),
  access: {
    permission: 'VEHICLE_UPDATE',
    branchOf: 'query parameter branchId',
    branch: (ctx) => ctx.query.branchId,
  },
  responses: { 200: { description: 'Per-vehicle outcome', schema: BulkResult } },
  errors: [],
  async handler(ctx) {
    const { em, tenant, query, body } = ctx;
    const branches = query.includeChildBranches
      ? await branchWithDescendants(em, tenant, query.branchId)
      : [query.branchId];
    const where: Record<string, unknown> = { branch: { $in: branches } };
    if (body.filter.serviceStateV2) where.serviceStateV2 = { $in: body.filter.serviceStateV2 };
    if (body.filter.rentalState) where.rentalState = { $in: body.filter.rentalState };
    if (body.filter.categoryId) where.category = body.filter.categoryId;
    if (body.filter.tag) where.tags = { $contains: [body.filter.tag] };
    const ids = (await em.find(Vehicle, where, { fields: ['id'], orderBy: { id: 'asc' }, limit: 5000 })).map(
      (v) => v.id,
    );
    return ok(
      await forEachVehicle(ctx, ids, 'VEHICLE_UPDATE', (tx, vehicle) =>
        applyChanges(ctx, tx, vehicle, body.changes),
      ),
    );
  },
});

export const bulkUpdateVehiclesByIds = defineRoute({
  operationId: 'bulkUpdateVehiclesByIds',
  method: 'post',
  path: '/vehicles/bulk-update-by-ids',
  interface: 'back',
  summary: 'Update the given vehicles; each succeeds or fails on its own',
  tags,
  body: Type.Object({ vehicleIds: VehicleIds, changes: BulkChanges }, { additionalProperties: false }),
  access: bulkAccess,
  responses: { 200: { description: 'Per-vehicle outcome', schema: BulkResult } },
  errors: [],
  async handler(ctx) {
    return ok(
      await forEachVehicle(ctx, ctx.body.vehicleIds, 'VEHICLE_UPDATE', (tx, vehicle) =>
        applyChanges(ctx, tx, vehicle, ctx.body.changes),
      ),
    );
  },
});

export const bulkUpdateTags = defineRoute({
  operationId: 'bulkUpdateVehicleTags',
  method: 'patch',
  path: '/vehicles/tags/bulk-update',
  interface: 'back',
  summary: 'Add and remove tags on many vehicles',
  tags,
  body: Type.Object(
    {
      vehicleIds: VehicleIds,
      addTags: Type.Optional(Type.Array(Str(64), { maxItems: 50 })),
      removeTags: Type.Optional(Type.Array(Str(64), { maxItems: 50 })),
    },
    { additionalProperties: false },
  ),
  access: bulkAccess,
  responses: { 200: { description: 'Per-vehicle outcome', schema: BulkResult } },
  errors: [],
  async handler(ctx) {
    const { addTags = [], removeTags = [] } = ctx.body;
    const removed = new Set(removeTags);
    return ok(
      await forEachVehicle(ctx, ctx.body.vehicleIds, 'VEHICLE_UPDATE', async (tx, vehicle) => {
        vehicle.tags = [...new Set([...vehicle.tags, ...addTags])].filter((tag) => !removed.has(tag));
        recordEvent(tx, {
          type: 'VEHICLE_TAGS_BULK_UPDATE',
          branchId: vehicle.branch.id,
          vehicleId: vehicle.id,
          adminSubject: ctx.actor,
          payload: { tags: vehicle.tags },
        });
      }),
    );
  },
});

const TaskSchema = component(
  'VehicleTask',
  Type.Object(
    {
      id: Id(),
      title: Type.String(),
      description: Nullable(Type.String()),
      priority: StringEnum(taskPriorities),
      taskState: StringEnum(taskStates),
      branchId: Id(),
      assignedTo: Nullable(Type.String()),
      tags: Type.Array(Type.String()),
      vehicleId: Nullable(Type.Integer()),
      createdBy: Nullable(Type.String()),
      createdAt: DateTime(),
      updatedAt: DateTime(),
    },
    { additionalProperties: false },
  ),
);

const toTaskDto = (task: Task): Static<typeof TaskSchema> => ({
  id: task.id,
  title: task.title,
  description: task.description ?? null,
  priority: task.priority,
  taskState: task.taskState,
  branchId: task.branchId,
  assignedTo: task.assignedTo ?? null,
  tags: task.tags,
  vehicleId: task.vehicleId ?? null,
  createdBy: task.createdBy ?? null,
  createdAt: task.createdAt.toISOString(),
  updatedAt: task.updatedAt.toISOString(),
});

export const bulkCreateTasks = defineRoute({
  operationId: 'bulkCreateVehicleTasks',
  method: 'post',
  path: '/vehicles/tasks/bulk-create',
  interface: 'back',
  summary: 'Create the same task for many vehicles; each succeeds or fails on its own',
  tags,
  body: Type.Object(
    {
      vehicleIds: VehicleIds,
      task: Type.Object(
        {
          title: Str(200, { minLength: 1 }),
          description: Type.Optional(Str(4000)),
          priority: Type.Optional(StringEnum(taskPriorities)),
          assignedTo: Type.Optional(Str(200)),
          tags: Type.Optional(Type.Array(Str(64), { maxItems: 20 })),
        },
        { additionalProperties: false },
      ),
    },
    { additionalProperties: false },
  ),
  access: bulkAccess,
  responses: { 200: { description: 'Per-vehicle outcome', schema: BulkResult } },
  errors: [],
  async handler(ctx) {
    const { task } = ctx.body;
    return ok(
      await forEachVehicle(ctx, ctx.body.vehicleIds, 'VEHICLE_UPDATE', async (tx, vehicle) => {
        tx.create(Task, {
          title: task.title,
          description: task.description ?? null,
          priority: task.priority ?? 'NORMAL',
          branchId: vehicle.branch.id,
          assignedTo: task.assignedTo ?? null,
          tags: task.tags ?? [],
          vehicleId: vehicle.id,
          createdBy: ctx.actor,
        });
        recordEvent(tx, {
          type: 'VEHICLE_TASK_BULK_CREATE',
          branchId: vehicle.branch.id,
          vehicleId: vehicle.id,
          adminSubject: ctx.actor,
          description: task.title,
        });
      }),
    );
  },
});

export const bulkCreateNotes = defineRoute({
  operationId: 'bulkCreateVehicleNotes',
  method: 'post',
  path: '/vehicles/notes/bulk-create',
  interface: 'back',
  summary: 'Leave the same note on many vehicles; each succeeds or fails on its own',
  tags,
  body: Type.Object(
    { vehicleIds: VehicleIds, text: Str(4000, { minLength: 1 }) },
    { additionalProperties: false },
  ),
  access: bulkAccess,
  responses: { 200: { description: 'Per-vehicle outcome', schema: BulkResult } },
  errors: [],
  async handler(ctx) {
    return ok(
      await forEachVehicle(ctx, ctx.body.vehicleIds, 'VEHICLE_UPDATE', async (tx, vehicle) => {
        tx.create(VehicleNote, { vehicleId: vehicle.id, text: ctx.body.text, createdBy: ctx.actor });
        recordEvent(tx, {
          type: 'VEHICLE_NOTE_BULK_CREATE',
          branchId: vehicle.branch.id,
          vehicleId: vehicle.id,
          adminSubject: ctx.actor,
        });
      }),
    );
  },
});

const NoteSchema = Type.Object(
  { id: Id(), text: Type.String(), createdBy: Nullable(Type.String()), createdAt: DateTime() },
  { additionalProperties: false },
);

const VehicleDetails = component(
  'VehicleDetails',
  Type.Object(
    {
      vehicleId: Id(),
      code: Type.String(),
      tags: Type.Array(Type.String()),
      openTasks: Type.Array(TaskSchema),
      notes: Type.Array(NoteSchema),
    },
    { additionalProperties: false },
  ),
);

export const vehiclesDetails = defineRoute({
  operationId: 'vehiclesDetails',
  method: 'post',
  path: '/vehicles/details',
  interface: 'back',
  summary: 'Open tasks and annotations of several vehicles (vehicles the caller may not read are left out)',
  tags,
  body: Type.Object(
    { vehicleIds: Type.Array(Id(), { minItems: 1, maxItems: 200, uniqueItems: true }) },
    { additionalProperties: false },
  ),
  access: { anyCaller: 'only vehicles on whose branch the caller holds VEHICLE_READ are answered' },
  responses: { 200: { description: 'Details per readable vehicle', schema: Type.Array(VehicleDetails) } },
  errors: [],
  async handler(ctx) {
    const vehicles = await ctx.em.find(
      Vehicle,
      { id: { $in: ctx.body.vehicleIds } },
      { orderBy: { id: 'asc' } },
    );
    const readable: Vehicle[] = [];
    for (const vehicle of vehicles)
      if (await ctx.holds({ permission: 'VEHICLE_READ', branchId: vehicle.branch.id }))
        readable.push(vehicle);
    const ids = readable.map((vehicle) => vehicle.id);
    const [tasks, notes] = await Promise.all([
      ctx.em.find(
        Task,
        { vehicleId: { $in: ids }, taskState: { $ne: 'COMPLETED' } },
        { orderBy: { id: 'asc' } },
      ),
      ctx.em.find(VehicleNote, { vehicleId: { $in: ids } }, { orderBy: { id: 'desc' } }),
    ]);
    return ok(
      readable.map((vehicle) => ({
        vehicleId: vehicle.id,
        code: vehicle.code,
        tags: vehicle.tags,
        openTasks: tasks.filter((task) => task.vehicleId === vehicle.id).map(toTaskDto),
        notes: notes
          .filter((note) => note.vehicleId === vehicle.id)
          .map((note) => ({
            id: note.id,
            text: note.text,
            createdBy: note.createdBy ?? null,
            createdAt: note.createdAt.toISOString(),
          })),
      })),
    );
  },
});

const OpenTasksOverview = component(
  'VehicleOpenTasksOverview',
  Type.Object(
    {
      vehicleId: Id(),
      code: Type.String(),
      openTasks: Type.Integer(),
      highestPriority: StringEnum(taskPriorities),
    },
    { additionalProperties: false },
  ),
);

export const openTasksOverview = defineRoute({
  operationId: 'vehiclesOpenTasksOverview',
  method: 'get',
  path: '/vehicles/open-tasks-overview',
  interface: 'back',
  summary: 'Vehicles of a branch with open tasks: how many and the highest priority',
  tags,
  query: Type.Object({
    branchId: Id(),
    includeChildBranches: Type.Optional(Type.Boolean({ default: false })),
  }),
  paged: { defaultSize: 50 },
  access: {
    permission: 'VEHICLE_READ',
    branchOf: 'query parameter branchId',
    branch: (ctx) => ctx.query.branchId,
  },
  responses: {
    200: { description: 'One page of vehicles with open tasks', schema: Type.Array(OpenTasksOverview) },
  },
  errors: [],
  async handler({ em, tenant, query, page }) {
    const branches = query.includeChildBranches
      ? await branchWithDescendants(em, tenant, query.branchId)
      : [query.branchId];
    const rows = await em.execute<
      { vehicle_id: number; code: string; open: string; top: number; total: string }[]
    >(
      `select t.vehicle_id, v.code, count(*) as open,
              max(case t.priority when 'SEVERE' then 3 when 'HIGH' then 2 when 'NORMAL' then 1 else 0 end) as top,
              count(*) over () as total
       from task t join vehicle v on v.id = t.vehicle_id and v.tenant_id = t.tenant_id
       where t.tenant_id = ? and t.task_state <> 'COMPLETED' and v.branch_id in (select jsonb_array_elements_text(?::jsonb)::int)
       group by t.vehicle_id, v.code order by t.vehicle_id limit ? offset ?`,
      [tenant, JSON.stringify(branches), page.size, page.offset],
    );
    const priorities = ['LOW', 'NORMAL', 'HIGH', 'SEVERE'] as const;
    return ok(
      rows.map((row) => ({
        vehicleId: Number(row.vehicle_id),
        code: row.code,
        openTasks: Number(row.open),
        highestPriority: priorities[Number(row.top)] ?? 'NORMAL',
      })),
      { total: Number(rows[0]?.total ?? 0) },
    );
  },
});

const Feature = Type.Object(
  {
    type: Type.Literal('Feature'),
    geometry: Type.Object({
      type: Type.Literal('Point'),
      coordinates: Type.Array(Type.Number(), { minItems: 2, maxItems: 2 }),
    }),
    properties: Type.Object(
      {
        count: Type.Integer(),
        available: Type.Integer(),
        vehicleIds: Type.Array(Id(), { description: 'Listed when the cluster holds at most 20 vehicles.' }),
      },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: false },
);

const Clusters = component(
  'VehicleClusters',
  Type.Object(
    { type: Type.Literal('FeatureCollection'), features: Type.Array(Feature) },
    { additionalProperties: false, description: 'GeoJSON; coordinates are [longitude, latitude].' },
  ),
);

export const vehicleClusters = defineRoute({
  operationId: 'vehicleClusters',
  method: 'get',
  path: '/vehicles/clusters',
  interface: 'back',
  summary: "A branch's vehicles in a bounding box aggregated on a grid that shrinks as the zoom grows",
  description:
    'Grid cells are 1/4 of a 256-pixel web-map tile at the zoom (360° / 2^zoom / 4 wide); each cluster sits at the mean position of its vehicles. Retired and virtual vehicles are left out, like on the map.',
  tags,
  query: Type.Object({
    branchId: Id(),
    includeChildBranches: Type.Optional(Type.Boolean({ default: false })),
    minLat: Type.Number({ minimum: -90, maximum: 90 }),
    minLng: Type.Number({ minimum: -180, maximum: 180 }),
    maxLat: Type.Number({ minimum: -90, maximum: 90 }),
    maxLng: Type.Number({ minimum: -180, maximum: 180 }),
    zoom: Int(0, 22),
  }),
  access: {
    permission: 'VEHICLE_READ',
    branchOf: 'query parameter branchId',
    branch: (ctx) => ctx.query.branchId,
  },
  responses: { 200: { description: 'Clusters', schema: Clusters } },
  errors: ['0022'],
  async handler({ em, tenant, query }) {
    if (query.minLat > query.maxLat || query.minLng > query.maxLng)
      throw new DomainError('0022', 'the bounding box needs minLat <= maxLat and minLng <= maxLng');
    const branches = query.includeChildBranches
      ? await branchWithDescendants(em, tenant, query.branchId)
      : [query.branchId];
    const vehicles = await em.find(
      Vehicle,
      {
        branch: { $in: branches },
        virtual: false,
        serviceStateV2: { $nin: ['RETIRED', 'DEFLEETED'] },
        latitude: { $gte: query.minLat, $lte: query.maxLat },
        longitude: { $gte: query.minLng, $lte: query.maxLng },
      },
      { limit: 50_000 },
    );
    const categories = await resolvedCategories(em);
    const cell = 360 / 2 ** query.zoom / 4;
    const cells = new Map<string, { lat: number; lng: number; ids: number[]; available: number }>();
    for (const vehicle of vehicles) {
      const key = `${Math.floor(vehicle.longitude! / cell)}:${Math.floor(vehicle.latitude! / cell)}`;
      const entry = cells.get(key) ?? { lat: 0, lng: 0, ids: [], available: 0 };
      entry.lat += vehicle.latitude!;
      entry.lng += vehicle.longitude!;
      entry.ids.push(vehicle.id);
      const readiness = readinessOf(vehicle, categories.get(vehicle.category.id));
      if (readiness.available) entry.available += 1;
      cells.set(key, entry);
    }
    const collection = featureCollection(
      [...cells.values()].map((entry) =>
        point([entry.lng / entry.ids.length, entry.lat / entry.ids.length], {
          count: entry.ids.length,
          available: entry.available,
          vehicleIds: entry.ids.length <= 20 ? entry.ids : [],
        }),
      ),
    );
    return ok({
      type: 'FeatureCollection' as const,
      features: collection.features.map((feature) => ({
        type: 'Feature' as const,
        geometry: { type: 'Point' as const, coordinates: feature.geometry.coordinates },
        properties: feature.properties,
      })),
    });
  },
});

export const vehicleTasks = defineRoute({
  operationId: 'vehicleTasks',
  method: 'get',
  path: '/vehicles/{id}/tasks',
  interface: 'back',
  summary: "A vehicle's tasks, newest first",
  tags,
  params: Type.Object({ id: Id() }),
  query: Type.Object({ taskState: Type.Optional(StringEnum(taskStates)) }),
  paged: { defaultSize: 50 },
  access: onTheVehicle('VEHICLE_READ'),
  responses: { 200: { description: 'One page of tasks', schema: Type.Array(TaskSchema) } },
  errors: ['V404'],
  async handler(ctx) {
    const vehicle = await vehicleById(ctx);
    const where: Record<string, unknown> = { vehicleId: vehicle.id };
    if (ctx.query.taskState) where.taskState = ctx.query.taskState;
    const [rows, total] = await ctx.em.findAndCount(Task, where, {
      orderBy: { id: 'desc' },
      limit: ctx.page.size,
      offset: ctx.page.offset,
    });
    return ok(rows.map(toTaskDto), { total });
  },
});

/** Static paths (clusters, overviews) come before /vehicles/{id} when mounted. */
export const vehicleBulkRoutes = [
  bulkCreateVehicles,
  bulkUpdateVehicles,
  bulkUpdateVehiclesByIds,
  bulkUpdateTags,
  bulkCreateTasks,
  bulkCreateNotes,
  vehiclesDetails,
  openTasksOverview,
  vehicleClusters,
  vehicleTasks,
];
