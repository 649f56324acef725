// The maintenance service's field routes (/api/routes): a crew's tour of a branch's vehicles and stations
// with what to do at each stop. Create (optionally optimised), list by branch, the caller's own, edit
// (PATCH /api/routes, the id in the body as the spec lists it), and the route, stop and stop item actions
// that move them through the tables of domain/maintenance.ts, recording the maintenance events.
import { LockMode } from '@mikro-orm/core';
import { Type } from '@sinclair/typebox';
import { FieldRoute } from '../../../db/entities/FieldRoute.js';
import { FieldRouteStop } from '../../../db/entities/FieldRouteStop.js';
import { FieldRouteStopItem } from '../../../db/entities/FieldRouteStopItem.js';
import { Task } from '../../../db/entities/Task.js';
import { Vehicle } from '../../../db/entities/Vehicle.js';
import { branchWithDescendants } from '../../../db/branches.js';
import { recordEvent } from '../../../db/events.js';
import type { EntityManager } from '../../../db/orm.js';
import { DomainError } from '../../../domain/errors.js';
import {
  batterySwapEventType,
  fieldRouteActions,
  fieldRouteItemActions,
  fieldRouteItemRefusal,
  fieldRouteRefusal,
  fieldRouteStopActions,
  fieldRouteStopRefusal,
  fieldRouteStopTransitions,
  fieldRouteTransitions,
  isFinalRouteState,
  type LatLng,
} from '../../../domain/maintenance.js';
import { taskCompletionRefusal } from '../../../domain/work.js';
import { recordTaskEvent } from '../back/tasks.js';
import { created, defineRoute, ok, type RouteContext } from '../../kernel/route.js';
import { Id, Nullable, Position, Str, StringEnum } from '../../kernel/schemas.js';
import {
  AssigneeInput,
  assertServiceVehicle,
  FieldRouteSchema,
  FieldRouteState,
  insertStops,
  Name,
  onThePathRoute,
  optimisedStops,
  resolveStops,
  routeById,
  routeTags as tags,
  StopsInput,
  toRouteDto,
  toRouteDtos,
} from './field-route-representation.js';

const PlannedFor = Type.String({
  format: 'date',
  maxLength: 10,
  description: 'The day the route is planned for.',
});
const optimizeDescription =
  'Order the stops by the optimiser (nearest neighbour, then 2-opt, over straight-line distances) from `start`, else the service vehicle’s position, else the first stop. Needs the maintenance.routing setting enabled (RO100); RO103 for more stops than it allows or a stop without a position.';
const Optimize = Type.Boolean({ default: false, description: optimizeDescription });
/** No default in PATCH: a default the validator fills in would count as a field sent. */
const OptimizeAgain = Type.Boolean({ description: optimizeDescription });
const States = Type.Optional(Type.Array(FieldRouteState, { maxItems: 5, uniqueItems: true }));
const RoutePage = Type.Array(FieldRouteSchema);

const startOf = (
  start: { lat: number; lng: number } | null | undefined,
  van?: { latitude?: number | null; longitude?: number | null },
) =>
  start ??
  (van?.latitude != null && van.longitude != null ? { lat: van.latitude, lng: van.longitude } : undefined);

/** Appends a route's event (FIELD_ROUTE_*) to the unit of work. */
function recordRouteEvent(
  em: EntityManager,
  actor: string,
  type: string,
  route: FieldRoute,
  payload: Record<string, unknown>,
) {
  recordEvent(em, {
    type,
    branchId: route.branchId,
    adminSubject: actor,
    description: route.name,
    payload: { routeId: route.id, state: route.state, ...payload },
  });
}

export const createFieldRoute = defineRoute({
  operationId: 'createFieldRoute',
  method: 'post',
  path: '/api/routes',
  interface: 'maintenance',
  summary: 'Plan a field route with its stops (optionally optimised)',
  description:
    'Stops name a vehicle or a station of the branch (or below), or a bare position; items name a task of the branch or an action. The route starts PLANNED.',
  tags,
  body: Type.Object(
    {
      branchId: Id(),
      name: Name,
      assignee: Type.Optional(AssigneeInput),
      serviceVehicleId: Type.Optional(Id()),
      plannedFor: Type.Optional(PlannedFor),
      start: Type.Optional(Position),
      optimize: Type.Optional(Optimize),
      stops: StopsInput,
    },
    { additionalProperties: false },
  ),
  access: {
    permission: 'MAINTENANCE_MANAGE',
    branchOf: 'branchId of the body',
    branch: (ctx) => ctx.body.branchId,
  },
  responses: { 201: { description: 'The route', schema: FieldRouteSchema } },
  errors: ['MT406', 'MT412', 'MT413', 'RO100', 'RO103'],
  async handler(ctx) {
    const { em, body, tenant } = ctx;
    const van =
      body.serviceVehicleId === undefined
        ? undefined
        : await assertServiceVehicle(em, tenant, body.branchId, body.serviceVehicleId);
    let stops = await resolveStops(em, tenant, body.branchId, body.stops);
    const start = startOf(body.start, van);
    if (body.optimize) stops = await optimisedStops(em, tenant, body.branchId, stops, start);
    const route = await em.transactional(async (tx) => {
      const row = tx.create(FieldRoute, {
        branchId: body.branchId,
        name: body.name,
        assignee: body.assignee?.userAuthId ?? null,
        assigneeName: body.assignee?.firstLastName ?? null,
        serviceVehicleId: van?.id ?? null,
        plannedFor: body.plannedFor ?? null,
        optimized: body.optimize ?? false,
        startLatitude: start?.lat ?? null,
        startLongitude: start?.lng ?? null,
        createdBy: ctx.actor,
      });
      await tx.flush();
      await insertStops(tx, row, stops);
      recordRouteEvent(tx, ctx.actor, 'FIELD_ROUTE_CREATED', row, { stops: stops.length });
      return row;
    });
    return created(await toRouteDto(em, route));
  },
});

export const listFieldRoutes = defineRoute({
  operationId: 'listFieldRoutes',
  method: 'get',
  path: '/api/routes',
  interface: 'maintenance',
  summary: "A branch's field routes, newest first",
  tags,
  query: Type.Object({
    branchId: Id(),
    includeChildBranches: Type.Optional(Type.Boolean({ default: false })),
    state: States,
    assignee: Type.Optional(Str(200, { minLength: 1, description: "The assignee's user auth id." })),
  }),
  paged: { defaultSize: 20, maxSize: 100 },
  access: {
    permission: 'MAINTENANCE_READ',
    branchOf: 'query parameter branchId',
    branch: (ctx) => ctx.query.branchId,
  },
  responses: { 200: { description: 'One page of routes', schema: RoutePage } },
  errors: [],
  async handler({ em, tenant, query, page }) {
    const where: Record<string, unknown> = {
      branchId: query.includeChildBranches
        ? { $in: await branchWithDescendants(em, tenant, query.branchId) }
        : query.branchId,
    };
    if (query.state) where.state = { $in: [...query.state] };
    if (query.assignee) where.assignee = query.assignee;
    const [rows, total] = await em.findAndCount(FieldRoute, where, {
      orderBy: { id: 'desc' },
      limit: page.size,
      offset: page.offset,
    });
    return ok(await toRouteDtos(em, rows), { total });
  },
});

export const myFieldRoutes = defineRoute({
  operationId: 'myFieldRoutes',
  method: 'get',
  path: '/api/routes/my',
  interface: 'maintenance',
  summary: "The caller's field routes (assigned to the caller), newest first",
  description: 'Without state, the open ones (PLANNED, IN_PROGRESS, PAUSED).',
  tags,
  query: Type.Object({ state: States }),
  paged: { defaultSize: 20, maxSize: 100 },
  access: { anyCaller: 'only routes whose assignee is the caller (its user auth id) are listed' },
  responses: { 200: { description: 'One page of routes', schema: RoutePage } },
  errors: [],
  async handler({ em, query, page, actor }) {
    const states = query.state ?? ['PLANNED', 'IN_PROGRESS', 'PAUSED'];
    const [rows, total] = await em.findAndCount(
      FieldRoute,
      { assignee: actor, state: { $in: [...states] } },
      { orderBy: { id: 'desc' }, limit: page.size, offset: page.offset },
    );
    return ok(await toRouteDtos(em, rows), { total });
  },
});

export const updateFieldRoute = defineRoute({
  operationId: 'updateFieldRoute',
  method: 'patch',
  path: '/api/routes',
  interface: 'maintenance',
  summary: 'Edit a field route (its id in the body)',
  description:
    'Name, assignee, service vehicle and plannedFor may change until the route is COMPLETED or CANCELLED; stops (replaced as a whole), start and optimize only while it is PLANNED (MT409). optimize: true without stops re-orders the current ones.',
  tags,
  body: Type.Object(
    {
      id: Id({ description: 'The route.' }),
      name: Type.Optional(Name),
      assignee: Type.Optional(Nullable(AssigneeInput)),
      serviceVehicleId: Type.Optional(Nullable(Id())),
      plannedFor: Type.Optional(Nullable(PlannedFor)),
      start: Type.Optional(Nullable(Position)),
      optimize: Type.Optional(OptimizeAgain),
      stops: Type.Optional(StopsInput),
    },
    { additionalProperties: false, minProperties: 2 },
  ),
  access: {
    permission: 'MAINTENANCE_MANAGE',
    branchOf: 'the route (id of the body)',
    branch: async (ctx) => (await routeById(ctx, ctx.body.id)).branchId,
  },
  responses: { 200: { description: 'The route', schema: FieldRouteSchema } },
  errors: ['MT404', 'MT406', 'MT409', 'MT412', 'MT413', 'RO100', 'RO103'],
  async handler(ctx) {
    const { em, body, tenant } = ctx;
    const route = await routeById(ctx, body.id);
    if (isFinalRouteState(route.state)) throw new DomainError('MT409', `the route is ${route.state}`);
    const replanning = body.stops !== undefined || body.start !== undefined || body.optimize !== undefined;
    if (replanning && route.state !== 'PLANNED')
      throw new DomainError(
        'MT409',
        `stops, start and optimize change only while the route is PLANNED (it is ${route.state})`,
      );
    const van =
      body.serviceVehicleId == null
        ? undefined
        : await assertServiceVehicle(em, tenant, route.branchId, body.serviceVehicleId);
    if (body.name !== undefined) route.name = body.name;
    if (body.assignee !== undefined) {
      route.assignee = body.assignee?.userAuthId ?? null;
      route.assigneeName = body.assignee?.firstLastName ?? null;
    }
    if (body.serviceVehicleId !== undefined) route.serviceVehicleId = van?.id ?? null;
    if (body.plannedFor !== undefined) route.plannedFor = body.plannedFor;
    if (body.start !== undefined) {
      route.startLatitude = body.start?.lat ?? null;
      route.startLongitude = body.start?.lng ?? null;
    }
    await em.transactional(async (tx) => {
      if (replanning) {
        const current = await tx.find(
          FieldRouteStop,
          { routeId: route.id },
          { orderBy: { sequence: 'asc' } },
        );
        const currentItems = await tx.find(
          FieldRouteStopItem,
          { routeId: route.id },
          { orderBy: { sequence: 'asc' } },
        );
        let stops =
          body.stops !== undefined
            ? await resolveStops(tx, tenant, route.branchId, body.stops)
            : current.map((stop) => ({
                vehicleId: stop.vehicleId ?? null,
                stationId: stop.stationId ?? null,
                position:
                  stop.latitude != null && stop.longitude != null
                    ? { lat: stop.latitude, lng: stop.longitude }
                    : null,
                note: stop.note ?? null,
                items: currentItems
                  .filter((item) => item.stopId === stop.id)
                  .map((item) => ({
                    taskId: item.taskId ?? null,
                    action: item.action ?? null,
                    description: item.description ?? null,
                  })),
              }));
        const start: LatLng | undefined = startOf(
          route.startLatitude != null && route.startLongitude != null
            ? { lat: route.startLatitude, lng: route.startLongitude }
            : undefined,
          van,
        );
        if (body.optimize) stops = await optimisedStops(tx, tenant, route.branchId, stops, start);
        if (body.optimize !== undefined) route.optimized = body.optimize;
        else if (body.stops !== undefined) route.optimized = false;
        await tx.nativeDelete(FieldRouteStopItem, { routeId: route.id });
        await tx.nativeDelete(FieldRouteStop, { routeId: route.id });
        await insertStops(tx, route, stops);
      }
      tx.persist(route);
      recordRouteEvent(tx, ctx.actor, 'FIELD_ROUTE_UPDATED', route, {
        fields: Object.keys(body).filter((key) => key !== 'id'),
      });
    });
    return ok(await toRouteDto(em, route));
  },
});

const RouteParams = Type.Object({ routeId: Id() });

/**
 * Acting on a route needs MAINTENANCE_READ on its branch (the declared access) and either being its
 * assignee or holding MAINTENANCE_MANAGE there (AUTH002 otherwise).
 */
async function assertMayAct(ctx: RouteContext, route: FieldRoute): Promise<void> {
  if (route.assignee === ctx.actor) return;
  await ctx.authorize('MAINTENANCE_MANAGE', { branchId: route.branchId });
}

/** The route locked for the request's transaction (the row is re-read under the lock). */
async function lockedRoute(tx: EntityManager, id: number): Promise<FieldRoute> {
  const route = await tx.findOne(FieldRoute, id, { lockMode: LockMode.PESSIMISTIC_WRITE, refresh: true });
  if (!route) throw new DomainError('MT404', `field route ${id} not found`);
  return route;
}

const actorNote =
  'Needs MAINTENANCE_READ on the route’s branch and either to be the route’s assignee or to hold MAINTENANCE_MANAGE there (AUTH002).';

export const fieldRouteAction = defineRoute({
  operationId: 'fieldRouteAction',
  method: 'post',
  path: '/api/routes/{routeId}/action',
  interface: 'maintenance',
  summary: 'Start, stop (pause), complete or cancel a field route',
  description: `START: PLANNED or PAUSED → IN_PROGRESS; STOP: IN_PROGRESS → PAUSED; COMPLETE: IN_PROGRESS or PAUSED → COMPLETED, every stop COMPLETED or SKIPPED; CANCEL: any open state → CANCELLED. Others MT409. ${actorNote}`,
  tags,
  params: RouteParams,
  body: Type.Object({ action: StringEnum(fieldRouteActions) }, { additionalProperties: false }),
  access: onThePathRoute('MAINTENANCE_READ'),
  responses: { 200: { description: 'The route', schema: FieldRouteSchema } },
  errors: ['MT404', 'MT409', 'AUTH002'],
  async handler(ctx) {
    const { action } = ctx.body;
    await assertMayAct(ctx, await routeById(ctx, ctx.params.routeId));
    const route = await ctx.em.transactional(async (tx) => {
      const row = await lockedRoute(tx, ctx.params.routeId);
      const refusal = fieldRouteRefusal(row.state, action);
      if (refusal) throw new DomainError('MT409', refusal);
      if (action === 'COMPLETE') {
        const open = await tx.count(FieldRouteStop, {
          routeId: row.id,
          state: { $in: ['PENDING', 'ARRIVED'] },
        });
        if (open) throw new DomainError('MT409', `${open} stop(s) are neither COMPLETED nor SKIPPED`);
      }
      const from = row.state;
      row.state = fieldRouteTransitions[action].to;
      if (action === 'START') row.startedAt ??= new Date();
      if (action === 'COMPLETE' || action === 'CANCEL') row.finishedAt = new Date();
      recordRouteEvent(tx, ctx.actor, `FIELD_ROUTE_${action}`, row, { from });
      return row;
    });
    return ok(await toRouteDto(ctx.em, route));
  },
});

/** The route's stop (MT405 when it is not one of the route's), locked with the route. */
async function stopOf(tx: EntityManager, route: FieldRoute, stopId: number): Promise<FieldRouteStop> {
  const stop = await tx.findOne(FieldRouteStop, { id: stopId, routeId: route.id }, { refresh: true });
  if (!stop) throw new DomainError('MT405', `stop ${stopId} is not one of route ${route.id}'s`);
  return stop;
}

/** The event of a vehicle stop's step (VEHICLE_MAINTENANCE_APPROACH / _CLOSE, BATTERY_SWAP). */
async function recordVehicleEvent(
  tx: EntityManager,
  actor: string,
  type: string,
  route: FieldRoute,
  stop: FieldRouteStop,
  payload: Record<string, unknown>,
) {
  const vehicle = stop.vehicleId == null ? null : await tx.findOne(Vehicle, stop.vehicleId);
  recordEvent(tx, {
    type,
    branchId: vehicle?.branch.id ?? route.branchId,
    vehicleId: stop.vehicleId ?? null,
    adminSubject: actor,
    description: route.name,
    position:
      stop.latitude != null && stop.longitude != null ? { lat: stop.latitude, lng: stop.longitude } : null,
    payload: { routeId: route.id, stopId: stop.id, ...payload },
  });
}

export const fieldRouteStopAction = defineRoute({
  operationId: 'fieldRouteStopAction',
  method: 'post',
  path: '/api/routes/{routeId}/stop-action',
  interface: 'maintenance',
  summary: 'Arrive at, complete or skip a stop of a route in progress',
  description: `The route must be IN_PROGRESS (MT409). ARRIVE: PENDING → ARRIVED (at a vehicle: VEHICLE_MAINTENANCE_APPROACH); COMPLETE: ARRIVED → COMPLETED, every item settled (at a vehicle: VEHICLE_MAINTENANCE_CLOSE); SKIP: PENDING or ARRIVED → SKIPPED. Others MT410. ${actorNote}`,
  tags,
  params: RouteParams,
  body: Type.Object(
    { stopId: Id(), action: StringEnum(fieldRouteStopActions), note: Type.Optional(Str(1000)) },
    { additionalProperties: false },
  ),
  access: onThePathRoute('MAINTENANCE_READ'),
  responses: { 200: { description: 'The route', schema: FieldRouteSchema } },
  errors: ['MT404', 'MT405', 'MT409', 'MT410', 'AUTH002'],
  async handler(ctx) {
    const { action, stopId, note } = ctx.body;
    await assertMayAct(ctx, await routeById(ctx, ctx.params.routeId));
    const route = await ctx.em.transactional(async (tx) => {
      const row = await lockedRoute(tx, ctx.params.routeId);
      if (row.state !== 'IN_PROGRESS')
        throw new DomainError('MT409', `the route is ${row.state}, not IN_PROGRESS`);
      const stop = await stopOf(tx, row, stopId);
      const refusal = fieldRouteStopRefusal(stop.state, action);
      if (refusal) throw new DomainError('MT410', refusal);
      if (action === 'COMPLETE') {
        const open = await tx.count(FieldRouteStopItem, { stopId: stop.id, state: 'OPEN' });
        if (open) throw new DomainError('MT410', `${open} item(s) of the stop are still OPEN`);
      }
      stop.state = fieldRouteStopTransitions[action].to;
      if (note !== undefined) stop.note = note;
      if (action === 'ARRIVE') stop.arrivedAt = new Date();
      else {
        stop.settledAt = new Date();
        stop.settledBy = ctx.actor;
      }
      if (stop.vehicleId != null && action === 'ARRIVE')
        await recordVehicleEvent(tx, ctx.actor, 'VEHICLE_MAINTENANCE_APPROACH', row, stop, {});
      if (stop.vehicleId != null && action === 'COMPLETE')
        await recordVehicleEvent(tx, ctx.actor, 'VEHICLE_MAINTENANCE_CLOSE', row, stop, {});
      row.updatedAt = new Date();
      return row;
    });
    return ok(await toRouteDto(ctx.em, route));
  },
});

export const fieldRouteStopItemAction = defineRoute({
  operationId: 'fieldRouteStopItemAction',
  method: 'post',
  path: '/api/routes/{routeId}/stop-item-action',
  interface: 'maintenance',
  summary: 'Complete or skip an item of the stop the crew is at',
  description: `The route must be IN_PROGRESS (MT409) and the stop ARRIVED (MT410); the item OPEN (MT411). Completing a task item completes the task as PATCH /tasks/complete does (TASK_MANAGE on the task's branch; TK100 for a task that cannot complete, TK404 when it is gone); completing a BATTERY_SWAP item records the BATTERY_SWAP event. ${actorNote}`,
  tags,
  params: RouteParams,
  body: Type.Object(
    { stopId: Id(), itemId: Id(), action: StringEnum(fieldRouteItemActions) },
    { additionalProperties: false },
  ),
  access: onThePathRoute('MAINTENANCE_READ'),
  responses: { 200: { description: 'The route', schema: FieldRouteSchema } },
  errors: ['MT404', 'MT405', 'MT409', 'MT410', 'MT411', 'TK404', 'TK100', 'AUTH002'],
  async handler(ctx) {
    const { action, stopId, itemId } = ctx.body;
    await assertMayAct(ctx, await routeById(ctx, ctx.params.routeId));
    const route = await ctx.em.transactional(async (tx) => {
      const row = await lockedRoute(tx, ctx.params.routeId);
      if (row.state !== 'IN_PROGRESS')
        throw new DomainError('MT409', `the route is ${row.state}, not IN_PROGRESS`);
      const stop = await stopOf(tx, row, stopId);
      // What the request names comes first: an item of another stop is MT405 whatever this stop's state.
      const item = await tx.findOne(FieldRouteStopItem, { id: itemId, stopId: stop.id }, { refresh: true });
      if (!item) throw new DomainError('MT405', `item ${itemId} is not one of stop ${stop.id}'s`);
      if (stop.state !== 'ARRIVED') throw new DomainError('MT410', `the stop is ${stop.state}, not ARRIVED`);
      const refusal = fieldRouteItemRefusal(item.state, action);
      if (refusal) throw new DomainError('MT411', refusal);
      if (action === 'COMPLETE' && item.taskId != null) await completeTask(ctx, tx, item.taskId, row);
      if (action === 'COMPLETE' && item.action === 'BATTERY_SWAP')
        await recordVehicleEvent(tx, ctx.actor, batterySwapEventType, row, stop, { itemId: item.id });
      item.state = action === 'COMPLETE' ? 'COMPLETED' : 'SKIPPED';
      item.settledAt = new Date();
      item.settledBy = ctx.actor;
      row.updatedAt = new Date();
      return row;
    });
    return ok(await toRouteDto(ctx.em, route));
  },
});

/**
 * Completes a task through the work domain's rules: its state table (TK100), TASK_MANAGE on its branch,
 * the completion stamp and the TASK_COMPLETED event; an already COMPLETED task stays as it is.
 */
async function completeTask(
  ctx: RouteContext,
  tx: EntityManager,
  taskId: number,
  route: FieldRoute,
): Promise<void> {
  const task = await tx.findOne(Task, taskId, { lockMode: LockMode.PESSIMISTIC_WRITE });
  if (!task) throw new DomainError('TK404', `task ${taskId} not found`);
  await ctx.authorize('TASK_MANAGE', { branchId: task.branchId });
  const refusal = taskCompletionRefusal(task.taskState);
  if (refusal) throw new DomainError('TK100', `task ${task.id}: ${refusal}`);
  if (task.taskState === 'COMPLETED') return;
  task.taskState = 'COMPLETED';
  task.completedAt = new Date();
  task.completedBy = ctx.actor;
  task.updatedAt = new Date();
  recordTaskEvent(tx, ctx.actor, 'TASK_COMPLETED', task, { fieldRouteId: route.id });
}

/** Fixed paths (/api/routes/my) are mounted before parameters by the kernel. */
export const fieldRouteRoutes = [
  createFieldRoute,
  listFieldRoutes,
  myFieldRoutes,
  updateFieldRoute,
  fieldRouteAction,
  fieldRouteStopAction,
  fieldRouteStopItemAction,
];
