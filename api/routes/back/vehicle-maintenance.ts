// Legacy fleet endpoints: the maintenance family, the command shortcuts and the state refresh. They keep
// working for existing clients; execute-action and execute-command replace them.
import { randomUUID } from 'node:crypto';
import { Type } from '@sinclair/typebox';
import { distance, lineString } from '@turf/turf';
import { Vehicle } from '../../../db/entities/Vehicle.js';
import { effectiveSetting } from '../../../db/settings.js';
import { DomainError } from '../../../domain/errors.js';
import {
  serviceStatesV2,
  type PredefinedVehicleCommand,
  type ServiceStateV2,
} from '../../../domain/vehicle.js';
import { defineRoute, ok, type RouteContext } from '../../kernel/route.js';
import { Id, Position, Str } from '../../kernel/schemas.js';
import { assertCommandable, assertOnline, runOperation, startOperation } from './vehicle-commands.js';
import { onTheVehicle, vehicleById, vehicleDto, VehicleSchema } from './vehicle-representation.js';

const tags = ['Vehicle Maintenance'];

const IdOrCode = Type.Object({ id: Type.Optional(Id()), code: Type.Optional(Str(64, { minLength: 1 })) });

/** The vehicle named by exactly one of `id` and `code` in the query. */
const vehicleOfQuery = (ctx: RouteContext<unknown, { id?: number; code?: string }>) =>
  ctx.once('vehicle', async () => {
    const { id, code } = ctx.query;
    if ((id === undefined) === (code === undefined))
      throw new DomainError('0022', 'give exactly one of id and code');
    const vehicle =
      id !== undefined ? await ctx.em.findOne(Vehicle, id) : await ctx.em.findOne(Vehicle, { code: code! });
    if (!vehicle) throw new DomainError('V404');
    return vehicle;
  });

const maintenanceBranch = async (ctx: RouteContext<unknown, { id?: number; code?: string }>) =>
  (await vehicleOfQuery(ctx)).branch.id;

/** One step of the legacy maintenance flow: its event and, for some, the service state it sets. */
function maintenanceRoute(
  step: 'approach' | 'deploy' | 'leave' | 'close',
  event: string,
  serviceStateV2: ServiceStateV2 | undefined,
  summary: string,
  deprecated: boolean,
) {
  return defineRoute({
    operationId: `vehicleMaintenance${step[0]!.toUpperCase()}${step.slice(1)}`,
    method: 'post',
    path: `/vehicles/maintenance/${step}`,
    interface: 'back',
    summary,
    tags,
    query: IdOrCode,
    access: {
      permission: 'VEHICLE_UPDATE',
      branchOf: 'the vehicle',
      branch: (ctx) => maintenanceBranch(ctx),
    },
    responses: { 200: { description: 'The vehicle afterwards', schema: VehicleSchema } },
    errors: ['V404', '0022'],
    ...(deprecated ? { deprecated: { replacement: 'POST /vehicles/execute-action/{actionId}' } } : {}),
    async handler(ctx) {
      const vehicle = await vehicleOfQuery(ctx);
      if (serviceStateV2 && serviceStateV2 !== vehicle.serviceStateV2) {
        ctx.recordEvent({
          type: `VEHICLE_SERVICE_STATE_V2_${serviceStateV2}`,
          branchId: vehicle.branch.id,
          vehicleId: vehicle.id,
          payload: { from: vehicle.serviceStateV2, to: serviceStateV2 },
        });
        vehicle.serviceStateV2 = serviceStateV2;
      }
      ctx.recordEvent({
        type: event,
        branchId: vehicle.branch.id,
        vehicleId: vehicle.id,
        description: step.toUpperCase(),
        position:
          vehicle.latitude != null && vehicle.longitude != null
            ? { lat: vehicle.latitude, lng: vehicle.longitude }
            : null,
      });
      await ctx.em.flush();
      return ok(await vehicleDto(ctx.em, vehicle));
    },
  });
}

export const maintenanceApproach = maintenanceRoute(
  'approach',
  'VEHICLE_MAINTENANCE_APPROACH',
  undefined,
  'A service agent is on the way to the vehicle (deprecated)',
  true,
);
export const maintenanceDeploy = maintenanceRoute(
  'deploy',
  'VEHICLE_MAINTENANCE_DEPLOY',
  'FUNCTIONAL',
  'The vehicle is deployed back into service (FUNCTIONAL) (deprecated)',
  true,
);
export const maintenanceLeave = maintenanceRoute(
  'leave',
  'VEHICLE_MAINTENANCE',
  undefined,
  'The service agent leaves the vehicle without closing the maintenance (deprecated)',
  true,
);
export const maintenanceClose = maintenanceRoute(
  'close',
  'VEHICLE_MAINTENANCE_CLOSE',
  undefined,
  'Close the maintenance of a vehicle',
  false,
);

export const maintenanceBySetting = defineRoute({
  operationId: 'vehicleMaintenance',
  method: 'post',
  path: '/vehicles/maintenance',
  interface: 'back',
  summary:
    'Run the maintenance a setting describes (its value may name the serviceStateV2 to set) (deprecated)',
  tags,
  query: Type.Object({
    settingKey: Str(200, { minLength: 1 }),
    id: Type.Optional(Id()),
    code: Type.Optional(Str(64, { minLength: 1 })),
  }),
  access: { permission: 'VEHICLE_UPDATE', branchOf: 'the vehicle', branch: (ctx) => maintenanceBranch(ctx) },
  responses: { 200: { description: 'The vehicle afterwards', schema: VehicleSchema } },
  errors: ['V404', 'ST404', '0022'],
  deprecated: { replacement: 'POST /vehicles/execute-action/{actionId}' },
  async handler(ctx) {
    const vehicle = await vehicleOfQuery(ctx);
    const setting = await effectiveSetting(ctx.em, ctx.tenant, ctx.query.settingKey, vehicle.branch.id);
    if (!setting) throw new DomainError('ST404', `setting ${ctx.query.settingKey} not found`);
    const value = setting.value as { serviceStateV2?: unknown };
    const target = serviceStatesV2.find((state) => state === value.serviceStateV2);
    if (target && target !== vehicle.serviceStateV2) {
      ctx.recordEvent({
        type: `VEHICLE_SERVICE_STATE_V2_${target}`,
        branchId: vehicle.branch.id,
        vehicleId: vehicle.id,
        payload: { from: vehicle.serviceStateV2, to: target },
      });
      vehicle.serviceStateV2 = target;
    }
    ctx.recordEvent({
      type: 'VEHICLE_MAINTENANCE',
      branchId: vehicle.branch.id,
      vehicleId: vehicle.id,
      description: ctx.query.settingKey,
    });
    await ctx.em.flush();
    return ok(await vehicleDto(ctx.em, vehicle));
  },
});

export const calculateRoute = defineRoute({
  operationId: 'vehicleMaintenanceCalculateRoute',
  method: 'post',
  path: '/vehicles/maintenance/calculate-route',
  interface: 'back',
  summary: 'A visiting order for vehicles from a start point, from their stored positions',
  description:
    'Nearest-neighbour order over the vehicles the caller may update; answers a GeoJSON LineString Feature as text, with the vehicle ids in order and the straight-line length in km.',
  tags,
  body: Type.Object(
    { start: Position, vehicleIds: Type.Array(Id(), { minItems: 1, maxItems: 200, uniqueItems: true }) },
    { additionalProperties: false },
  ),
  access: {
    anyCaller:
      'only vehicles on whose branch the caller holds VEHICLE_UPDATE are routed; others are left out',
  },
  responses: { 200: { description: 'GeoJSON Feature (LineString) as text', schema: Type.String() } },
  errors: [],
  async handler(ctx) {
    const vehicles = await ctx.em.find(Vehicle, {
      id: { $in: ctx.body.vehicleIds },
      latitude: { $ne: null },
      longitude: { $ne: null },
    });
    const remaining: Vehicle[] = [];
    for (const vehicle of vehicles)
      if (await ctx.holds({ permission: 'VEHICLE_UPDATE', branchId: vehicle.branch.id }))
        remaining.push(vehicle);
    let here: [number, number] = [ctx.body.start.lng, ctx.body.start.lat];
    const coordinates: [number, number][] = [here];
    const order: number[] = [];
    while (remaining.length) {
      const from = here;
      let best = 0;
      remaining.forEach((vehicle, index) => {
        const candidate = distance(from, [vehicle.longitude!, vehicle.latitude!]);
        const current = distance(from, [remaining[best]!.longitude!, remaining[best]!.latitude!]);
        if (candidate < current) best = index;
      });
      const [next] = remaining.splice(best, 1);
      here = [next!.longitude!, next!.latitude!];
      coordinates.push(here);
      order.push(next!.id);
    }
    if (coordinates.length === 1) coordinates.push(here);
    let lengthKm = 0;
    for (let index = 1; index < coordinates.length; index += 1)
      lengthKm += distance(coordinates[index - 1]!, coordinates[index]!);
    return ok(
      JSON.stringify(
        lineString(coordinates, { vehicleIds: order, lengthKm: Math.round(lengthKm * 1000) / 1000 }),
      ),
    );
  },
});

/** A deprecated command shortcut: the command, SYNC, answering the vehicle afterwards. */
function shortcut(path: string, command: PredefinedVehicleCommand) {
  return defineRoute({
    operationId: `vehicleShortcut${path[0]!.toUpperCase()}${path.slice(1)}`,
    method: 'post',
    path: `/vehicles/{id}/${path}`,
    interface: 'back',
    summary: `Send ${command} and wait for the answer (deprecated)`,
    tags: ['Vehicle Commands'],
    params: Type.Object({ id: Id() }),
    access: onTheVehicle('VEHICLE_COMMAND'),
    responses: { 200: { description: 'The vehicle afterwards', schema: VehicleSchema } },
    errors: ['V404', 'V103', 'V409', 'V410', 'V502', 'V504', 'A100'],
    deprecated: { replacement: 'POST /vehicles/execute-command' },
    async handler(ctx) {
      const vehicle = await vehicleById(ctx);
      await assertCommandable(ctx.em, vehicle, command);
      assertOnline(
        vehicle,
        'send it with POST /vehicles/execute-command ASYNC and queueIfOffline to deliver it when the vehicle is back',
      );
      await runOperation(ctx, vehicle, `cmd:${ctx.tenant}:${vehicle.id}:${randomUUID()}`, command, [
        { type: 'COMMAND', command },
      ]);
      const fresh = ctx.em.fork();
      return ok(await vehicleDto(fresh, (await fresh.findOne(Vehicle, vehicle.id))!));
    },
  });
}

export const updateVehicleState = defineRoute({
  operationId: 'updateVehicleState',
  method: 'post',
  path: '/vehicles/{id}/updateState',
  interface: 'back',
  summary: "Refresh the vehicle's stored state from the device (LOCATE, waiting for the answer)",
  tags: ['Vehicles'],
  params: Type.Object({ id: Id() }),
  access: onTheVehicle('VEHICLE_READ'),
  responses: { 200: { description: 'The vehicle as the device reported it', schema: VehicleSchema } },
  errors: ['V404', 'V103', 'V409', 'V502', 'V504'],
  async handler(ctx) {
    const vehicle = await vehicleById(ctx);
    assertOnline(
      vehicle,
      'its stored state is the last it reported; refresh it when the vehicle is back online',
    );
    await runOperation(ctx, vehicle, `cmd:${ctx.tenant}:${vehicle.id}:${randomUUID()}`, 'LOCATE', [
      { type: 'COMMAND', command: 'LOCATE' },
    ]);
    const fresh = ctx.em.fork();
    return ok(await vehicleDto(fresh, (await fresh.findOne(Vehicle, vehicle.id))!));
  },
});

export const updateBranchVehicleStates = defineRoute({
  operationId: 'updateBranchVehicleStates',
  method: 'post',
  path: '/vehicles/updateState/branch/{id}',
  interface: 'back',
  summary: 'Ask every online vehicle of a branch to report its state (re-read the vehicles afterwards)',
  tags: ['Vehicles'],
  params: Type.Object({ id: Id({ description: 'The branch id.' }) }),
  access: { permission: 'VEHICLE_READ', branchOf: 'path parameter id', branch: (ctx) => ctx.params.id },
  responses: {
    200: {
      description: 'Which vehicles were asked and which were skipped (offline or busy)',
      schema: Type.Object(
        { requested: Type.Array(Id()), skipped: Type.Array(Id()) },
        { additionalProperties: false },
      ),
    },
  },
  errors: [],
  async handler(ctx) {
    const vehicles = await ctx.em.find(
      Vehicle,
      { branch: ctx.params.id },
      { orderBy: { id: 'asc' }, limit: 5000 },
    );
    const requested: number[] = [];
    const skipped: number[] = [];
    for (const vehicle of vehicles) {
      if (vehicle.offline) {
        skipped.push(vehicle.id);
        continue;
      }
      try {
        await startOperation(ctx, vehicle, `cmd:${ctx.tenant}:${vehicle.id}:${randomUUID()}`, 'LOCATE', [
          { type: 'COMMAND', command: 'LOCATE' },
        ]);
        requested.push(vehicle.id);
      } catch (error) {
        if (!(error instanceof DomainError && error.code === 'V409')) throw error;
        skipped.push(vehicle.id);
      }
    }
    return ok({ requested, skipped });
  },
});

/** Static maintenance paths come before /vehicles/{id}; the shortcuts have their own segment counts. */
export const vehicleMaintenanceRoutes = [
  maintenanceBySetting,
  maintenanceApproach,
  maintenanceDeploy,
  maintenanceLeave,
  maintenanceClose,
  calculateRoute,
  updateVehicleState,
  updateBranchVehicleStates,
  shortcut('locate', 'LOCATE'),
  shortcut('start', 'START'),
  shortcut('stop', 'STOP'),
  shortcut('openTailbox', 'OPEN_TAILBOX'),
];
