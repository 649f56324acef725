// What the field route endpoints share: the route's representation (stops and items included), the stop
// and item inputs, how a request's stops are resolved against the branch (vehicles, stations, tasks) and
// ordered by the optimiser, and the access helpers that take the branch from the route.
import { Type, type Static } from '@sinclair/typebox';
import { FieldRoute } from '../../../db/entities/FieldRoute.js';
import { FieldRouteStop } from '../../../db/entities/FieldRouteStop.js';
import { FieldRouteStopItem } from '../../../db/entities/FieldRouteStopItem.js';
import { ServiceVehicle } from '../../../db/entities/ServiceVehicle.js';
import { Station } from '../../../db/entities/Station.js';
import { Task } from '../../../db/entities/Task.js';
import { Vehicle } from '../../../db/entities/Vehicle.js';
import { branchAncestry, branchWithDescendants } from '../../../db/branches.js';
import type { EntityManager } from '../../../db/orm.js';
import { settingOrDefaults } from '../../../db/settings.js';
import { DomainError } from '../../../domain/errors.js';
import {
  fieldRouteItemActionKinds,
  fieldRouteItemStates,
  fieldRouteStates,
  fieldRouteStopStates,
  optimisationRefusal,
  optimiseOrder,
  pathLengthKm,
  routingDefaults,
  routingSettingKey,
  type FieldRouteItemActionKind,
  type LatLng,
} from '../../../domain/maintenance.js';
import type { RouteContext } from '../../kernel/route.js';
import { component, Id, Nullable, Position, Str, StringEnum } from '../../kernel/schemas.js';

export const routeTags = ['Field Routes'];

export const FieldRouteState = component('FieldRouteState', StringEnum(fieldRouteStates));
export const FieldRouteItemAction = component(
  'FieldRouteItemAction',
  StringEnum(fieldRouteItemActionKinds, {
    description: 'What to do at the stop; a completed BATTERY_SWAP records the BATTERY_SWAP event.',
  }),
);

/** Text with at least one non-blank character. */
export const Name = Str(200, { minLength: 1, pattern: '^[^\\u0000]*[^\\s\\u0000][^\\u0000]*$' });

export const AssigneeInput = Type.Object(
  {
    userAuthId: Str(200, {
      minLength: 1,
      description: "The assignee's user auth id (operator subject, e.g. client:demo-operator).",
    }),
    firstLastName: Type.Optional(Nullable(Str(200))),
  },
  { additionalProperties: false },
);

const ItemDescription = Str(1000);
export const StopItemInput = Type.Union([
  Type.Object(
    {
      taskId: Id({ description: 'A task of the branch; completing the item completes it.' }),
      description: Type.Optional(ItemDescription),
    },
    { additionalProperties: false },
  ),
  Type.Object(
    { action: FieldRouteItemAction, description: Type.Optional(ItemDescription) },
    { additionalProperties: false },
  ),
]);

export const StopInput = Type.Object(
  {
    vehicleId: Type.Optional(Id({ description: 'A rental vehicle of the branch (or below).' })),
    stationId: Type.Optional(Id({ description: 'A station of the branch (or below).' })),
    position: Type.Optional(Position),
    note: Type.Optional(Str(1000)),
    items: Type.Optional(Type.Array(StopItemInput, { maxItems: 20 })),
  },
  {
    additionalProperties: false,
    description:
      'One of vehicleId and stationId, or a bare position; the position defaults to the vehicle’s or station’s.',
  },
);
export type StopInputBody = Static<typeof StopInput>;

export const StopsInput = Type.Array(StopInput, { maxItems: 200 });

const Item = Type.Object(
  {
    id: Type.Integer(),
    sequence: Type.Integer({ minimum: 0 }),
    taskId: Nullable(Type.Integer()),
    action: Nullable(FieldRouteItemAction),
    description: Nullable(Type.String()),
    state: StringEnum(fieldRouteItemStates),
    settledAt: Nullable(Type.String({ format: 'date-time' })),
    settledBy: Nullable(Type.String()),
  },
  { additionalProperties: false },
);

const Stop = Type.Object(
  {
    id: Type.Integer(),
    sequence: Type.Integer({ minimum: 0, description: 'Place in the visiting order, from 0.' }),
    vehicleId: Nullable(Type.Integer()),
    stationId: Nullable(Type.Integer()),
    position: Nullable(Position),
    note: Nullable(Type.String()),
    state: StringEnum(fieldRouteStopStates),
    arrivedAt: Nullable(Type.String({ format: 'date-time' })),
    settledAt: Nullable(Type.String({ format: 'date-time' })),
    settledBy: Nullable(Type.String()),
    items: Type.Array(Item),
  },
  { additionalProperties: false },
);

export const FieldRouteSchema = component(
  'FieldRoute',
  Type.Object(
    {
      id: Type.Integer(),
      branchId: Type.Integer(),
      name: Type.String(),
      assignee: Nullable(
        Type.Object(
          { userAuthId: Type.String(), firstLastName: Nullable(Type.String()) },
          { additionalProperties: false },
        ),
      ),
      serviceVehicleId: Nullable(Type.Integer()),
      plannedFor: Nullable(Type.String({ format: 'date' })),
      state: FieldRouteState,
      optimized: Type.Boolean({ description: 'Whether the stop order came from the optimiser.' }),
      start: Nullable(Position),
      distanceKm: Type.Number({
        minimum: 0,
        description: 'Straight-line (haversine) length from the start through the stops with a position.',
      }),
      createdBy: Nullable(Type.String()),
      createdAt: Type.String({ format: 'date-time' }),
      updatedAt: Type.String({ format: 'date-time' }),
      startedAt: Nullable(Type.String({ format: 'date-time' })),
      finishedAt: Nullable(Type.String({ format: 'date-time' })),
      stops: Type.Array(Stop),
    },
    { additionalProperties: false },
  ),
);
export type FieldRouteDto = Static<typeof FieldRouteSchema>;

const iso = (date: Date | null | undefined) => (date ? new Date(date).toISOString() : null);
const positionOf = (lat: number | null | undefined, lng: number | null | undefined) =>
  lat != null && lng != null ? { lat, lng } : null;

/** The representations of routes, their stops and items loaded with two queries. */
export async function toRouteDtos(
  em: EntityManager,
  routes: readonly FieldRoute[],
): Promise<FieldRouteDto[]> {
  if (routes.length === 0) return [];
  const ids = routes.map((route) => route.id);
  const [stops, items] = await Promise.all([
    em.find(FieldRouteStop, { routeId: { $in: ids } }, { orderBy: { sequence: 'asc', id: 'asc' } }),
    em.find(FieldRouteStopItem, { routeId: { $in: ids } }, { orderBy: { sequence: 'asc', id: 'asc' } }),
  ]);
  return routes.map((route) => {
    const start = positionOf(route.startLatitude, route.startLongitude);
    const own = stops.filter((stop) => stop.routeId === route.id);
    const positions = own.flatMap((stop) => {
      const position = positionOf(stop.latitude, stop.longitude);
      return position ? [position] : [];
    });
    return {
      id: route.id,
      branchId: route.branchId,
      name: route.name,
      assignee: route.assignee
        ? { userAuthId: route.assignee, firstLastName: route.assigneeName ?? null }
        : null,
      serviceVehicleId: route.serviceVehicleId ?? null,
      plannedFor: route.plannedFor ?? null,
      state: route.state,
      optimized: route.optimized,
      start,
      distanceKm: Math.round(pathLengthKm(positions, start ?? undefined) * 1000) / 1000,
      createdBy: route.createdBy ?? null,
      createdAt: iso(route.createdAt)!,
      updatedAt: iso(route.updatedAt)!,
      startedAt: iso(route.startedAt),
      finishedAt: iso(route.finishedAt),
      stops: own.map((stop) => ({
        id: stop.id,
        sequence: stop.sequence,
        vehicleId: stop.vehicleId ?? null,
        stationId: stop.stationId ?? null,
        position: positionOf(stop.latitude, stop.longitude),
        note: stop.note ?? null,
        state: stop.state,
        arrivedAt: iso(stop.arrivedAt),
        settledAt: iso(stop.settledAt),
        settledBy: stop.settledBy ?? null,
        items: items
          .filter((item) => item.stopId === stop.id)
          .map((item) => ({
            id: item.id,
            sequence: item.sequence,
            taskId: item.taskId ?? null,
            action: item.action ?? null,
            description: item.description ?? null,
            state: item.state,
            settledAt: iso(item.settledAt),
            settledBy: item.settledBy ?? null,
          })),
      })),
    };
  });
}

/** One route's representation (its stops and items loaded). */
export const toRouteDto = async (em: EntityManager, route: FieldRoute) =>
  (await toRouteDtos(em, [route]))[0]!;

/** A route by id, loaded once per request (MT404 when the tenant has none). */
export const routeById = (ctx: RouteContext, id: number) =>
  ctx.once(`field-route:${id}`, async () => {
    const route = await ctx.em.findOne(FieldRoute, id);
    if (!route) throw new DomainError('MT404', `field route ${id} not found`);
    return route;
  });

/** Access on the route of the path's `routeId`: `permission` on its branch. */
export const onThePathRoute = (permission: string) => ({
  permission,
  branchOf: 'the route (path parameter routeId)',
  branch: async (ctx: RouteContext<{ routeId: number }>) =>
    (await routeById(ctx, ctx.params.routeId)).branchId,
});

/** A resolved stop, ready to insert. */
export interface PlannedStop {
  vehicleId: number | null;
  stationId: number | null;
  position: LatLng | null;
  note: string | null;
  items: { taskId: number | null; action: FieldRouteItemActionKind | null; description: string | null }[];
}

/**
 * The request's stops checked against the route's branch and its descendants (MT412 for a vehicle,
 * station or task elsewhere or unknown, or a stop naming nothing), positions taken from the vehicles
 * and stations where not given.
 */
export async function resolveStops(
  em: EntityManager,
  tenant: string,
  branchId: number,
  stops: readonly StopInputBody[],
): Promise<PlannedStop[]> {
  const branches = new Set(await branchWithDescendants(em, tenant, branchId));
  const ids = (pick: (stop: StopInputBody) => number | undefined) => [
    ...new Set(stops.flatMap((stop) => (pick(stop) === undefined ? [] : [pick(stop)!]))),
  ];
  const vehicleIds = ids((stop) => stop.vehicleId);
  const stationIds = ids((stop) => stop.stationId);
  const taskIds = [
    ...new Set(
      stops.flatMap((stop) => (stop.items ?? []).flatMap((item) => ('taskId' in item ? [item.taskId] : []))),
    ),
  ];
  const [vehicles, stations, tasks] = await Promise.all([
    vehicleIds.length ? em.find(Vehicle, { id: { $in: vehicleIds } }) : [],
    stationIds.length ? em.find(Station, { id: { $in: stationIds } }) : [],
    taskIds.length ? em.find(Task, { id: { $in: taskIds } }) : [],
  ]);
  return stops.map((stop, index) => {
    const where = `stop ${index + 1}`;
    if (stop.vehicleId !== undefined && stop.stationId !== undefined)
      throw new DomainError('MT412', `${where}: name a vehicle or a station, not both`);
    let position: LatLng | null = stop.position ?? null;
    if (stop.vehicleId !== undefined) {
      const vehicle = vehicles.find((row) => row.id === stop.vehicleId);
      if (!vehicle || !branches.has(vehicle.branch.id))
        throw new DomainError('MT412', `${where}: vehicle ${stop.vehicleId} is not in the route's branch`);
      position ??= positionOf(vehicle.latitude, vehicle.longitude);
    } else if (stop.stationId !== undefined) {
      const station = stations.find((row) => row.id === stop.stationId);
      if (!station || !branches.has(station.branch.id))
        throw new DomainError('MT412', `${where}: station ${stop.stationId} is not in the route's branch`);
      position ??= positionOf(station.latitude, station.longitude);
    } else if (!position) throw new DomainError('MT412', `${where}: name a vehicle, a station or a position`);
    const items = (stop.items ?? []).map((item) => {
      if ('taskId' in item) {
        const task = tasks.find((row) => row.id === item.taskId);
        if (!task || !branches.has(task.branchId))
          throw new DomainError('MT412', `${where}: task ${item.taskId} is not in the route's branch`);
        return { taskId: task.id, action: null, description: item.description ?? null };
      }
      return { taskId: null, action: item.action, description: item.description ?? null };
    });
    return {
      vehicleId: stop.vehicleId ?? null,
      stationId: stop.stationId ?? null,
      position,
      note: stop.note ?? null,
      items,
    };
  });
}

/**
 * The stops in the optimiser's order: RO100 unless `maintenance.routing` is enabled for the branch, RO103
 * for more stops than it allows or a stop without a position.
 */
export async function optimisedStops<S extends { position: LatLng | null }>(
  em: EntityManager,
  tenant: string,
  branchId: number,
  stops: readonly S[],
  start: LatLng | undefined,
): Promise<S[]> {
  const setting = await settingOrDefaults(em, tenant, routingSettingKey, branchId, routingDefaults);
  if (setting.enabled !== true)
    throw new DomainError('RO100', `route optimisation is not enabled (setting ${routingSettingKey})`);
  const maxStops = Number.isInteger(setting.maxStops) && setting.maxStops > 0 ? setting.maxStops : 0;
  const refusal = optimisationRefusal(
    stops.map((stop) => stop.position),
    maxStops,
  );
  if (refusal) throw new DomainError('RO103', refusal);
  return optimiseOrder(
    stops.map((stop) => stop.position!),
    start,
  ).map((index) => stops[index]!);
}

/** Writes a route's stops and items in order (after the route has its id). */
export async function insertStops(
  em: EntityManager,
  route: FieldRoute,
  stops: readonly PlannedStop[],
): Promise<void> {
  const rows = stops.map((stop, sequence) =>
    em.create(FieldRouteStop, {
      routeId: route.id,
      sequence,
      vehicleId: stop.vehicleId,
      stationId: stop.stationId,
      latitude: stop.position?.lat ?? null,
      longitude: stop.position?.lng ?? null,
      note: stop.note,
    }),
  );
  await em.flush();
  stops.forEach((stop, index) =>
    stop.items.forEach((item, sequence) =>
      em.create(FieldRouteStopItem, {
        routeId: route.id,
        stopId: rows[index]!.id,
        sequence,
        taskId: item.taskId,
        action: item.action,
        description: item.description,
      }),
    ),
  );
}

/**
 * The service vehicle a route names: it must exist (MT406), be ACTIVE and belong to the route's branch or
 * one of its ancestors (a city's van serves its districts) (MT413).
 */
export async function assertServiceVehicle(
  em: EntityManager,
  tenant: string,
  branchId: number,
  serviceVehicleId: number,
): Promise<ServiceVehicle> {
  const van = await em.findOne(ServiceVehicle, serviceVehicleId);
  if (!van) throw new DomainError('MT406', `service vehicle ${serviceVehicleId} not found`);
  if (van.state !== 'ACTIVE') throw new DomainError('MT413', `service vehicle ${van.id} is INACTIVE`);
  if (!(await branchAncestry(em, tenant, branchId)).includes(van.branchId))
    throw new DomainError('MT413', `service vehicle ${van.id} belongs to a branch the route is not in`);
  return van;
}
