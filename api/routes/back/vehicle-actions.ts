// Configured vehicle operations: the actions, activities and composite activities of the tenant, and
// running one on a vehicle (configured for its category, allowed to one of the caller's roles).
import { randomUUID } from 'node:crypto';
import { Type, type Static } from '@sinclair/typebox';
import { IotModule } from '../../../db/entities/IotModule.js';
import { VehicleAction } from '../../../db/entities/VehicleAction.js';
import { Vehicle } from '../../../db/entities/Vehicle.js';
import { resolvedCategories } from '../../../db/categories.js';
import { DomainError } from '../../../domain/errors.js';
import { vehicleOperationRefusal, type VehicleActionKind } from '../../../domain/vehicle.js';
import { defineRoute, ok, type RouteContext } from '../../kernel/route.js';
import { component, Id, Nullable, Str, StringEnum } from '../../kernel/schemas.js';
import { vehicleByQuery, vehicleDto, VehicleSchema, type VehicleDto } from './vehicle-representation.js';
import { assertOnline, runOperation } from './vehicle-commands.js';

const ActionSchema = component(
  'VehicleAction',
  Type.Object(
    {
      id: Id(),
      kind: StringEnum(['ACTION', 'ACTIVITY', 'COMPOSITE_ACTIVITY'] as const),
      name: Type.String(),
      description: Nullable(Type.String()),
      steps: Type.Array(Type.Record(Type.String(), Type.Unknown())),
      roleNames: Type.Array(Type.String(), {
        description: 'Roles that may run it; empty: every holder of VEHICLE_COMMAND.',
      }),
    },
    { additionalProperties: false },
  ),
);

const toActionDto = (action: VehicleAction): Static<typeof ActionSchema> => ({
  id: action.id,
  kind: action.kind,
  name: action.name,
  description: action.description ?? null,
  steps: action.steps.map((step) => ({ ...step })),
  roleNames: action.roleNames,
});

export const listVehicleActions = defineRoute({
  operationId: 'listVehicleActions',
  method: 'get',
  path: '/vehicles-management/actions',
  interface: 'back',
  summary: 'The configured vehicle operations (actions, activities, composite activities)',
  tags: ['Vehicle Action Management'],
  access: {
    anyCaller:
      'operation definitions are tenant configuration; the handler requires VEHICLE_READ on some branch',
  },
  responses: { 200: { description: 'Operations', schema: Type.Array(ActionSchema) } },
  errors: ['AUTH002'],
  async handler(ctx) {
    if (!(await ctx.holds({ permission: 'VEHICLE_READ' })))
      throw new DomainError('AUTH002', 'VEHICLE_READ is needed on at least one branch');
    return ok((await ctx.em.find(VehicleAction, {}, { orderBy: { id: 'asc' } })).map(toActionDto));
  },
});

/**
 * Runs a configured operation of `kind` on the vehicle of the query: it must be configured for the
 * vehicle's category and allowed to one of the caller's roles on the vehicle's branch (A100 otherwise);
 * one with a command step needs the vehicle online (409 V103 otherwise: nothing runs).
 */
async function executeOperation(
  ctx: RouteContext<{ actionId: number }, { vehicleId?: number; vehicleCode?: string }>,
  kind: VehicleActionKind,
): Promise<VehicleDto> {
  const vehicle = await vehicleByQuery(ctx);
  const operation = await ctx.em.findOne(VehicleAction, { id: ctx.params.actionId, kind });
  if (!operation) throw new DomainError('VH404', `no ${kind.toLowerCase()} ${ctx.params.actionId}`);
  const configuration = (await resolvedCategories(ctx.em)).get(vehicle.category.id)?.configuration ?? {};
  const roles: string[] = [];
  for (const roleName of operation.roleNames)
    if (await ctx.holds({ roleName, branchId: vehicle.branch.id })) roles.push(roleName);
  const refusal = vehicleOperationRefusal(operation, configuration, roles);
  if (refusal) throw new DomainError('A100', refusal);
  if (operation.steps.some((step) => step.type === 'COMMAND')) {
    const module = await ctx.em.findOne(IotModule, { vehicleId: vehicle.id });
    if (module?.state === 'RETIRED') throw new DomainError('V410');
    assertOnline(vehicle, 'a configured operation cannot be queued: run it when the vehicle is back online');
  }
  await runOperation(
    ctx,
    vehicle,
    `op:${ctx.tenant}:${vehicle.id}:${randomUUID()}`,
    `${kind}:${operation.name}`,
    operation.steps,
  );
  return vehicleDto(ctx.em.fork(), (await ctx.em.fork().findOne(Vehicle, vehicle.id))!);
}

const operationQuery = Type.Object({
  vehicleId: Type.Optional(Id()),
  vehicleCode: Type.Optional(Str(64, { minLength: 1 })),
});
const operationErrors = ['V404', 'VH404', 'A100', 'V103', 'V409', 'V410', 'V502', 'V504', '0022'] as const;
const operationBranch = async (ctx: RouteContext<unknown, { vehicleId?: number; vehicleCode?: string }>) =>
  (await vehicleByQuery(ctx)).branch.id;

export const executeVehicleAction = defineRoute({
  operationId: 'executeVehicleAction',
  method: 'post',
  path: '/vehicles/execute-action/{actionId}',
  interface: 'back',
  summary: 'Run a configured action on a vehicle (give exactly one of vehicleId and vehicleCode)',
  tags: ['Vehicle Actions'],
  params: Type.Object({ actionId: Id() }),
  query: operationQuery,
  access: { permission: 'VEHICLE_COMMAND', branchOf: 'the vehicle', branch: (ctx) => operationBranch(ctx) },
  responses: { 200: { description: 'The vehicle afterwards', schema: VehicleSchema } },
  errors: operationErrors,
  async handler(ctx) {
    return ok(await executeOperation(ctx, 'ACTION'));
  },
});

export const executeVehicleActivity = defineRoute({
  operationId: 'executeVehicleActivity',
  method: 'post',
  path: '/vehicles/execute-activity/{actionId}',
  interface: 'back',
  summary: 'Run a configured activity (platform-side state change) on a vehicle',
  tags: ['Vehicle Actions'],
  params: Type.Object({ actionId: Id({ description: 'The activity id.' }) }),
  query: operationQuery,
  access: { permission: 'VEHICLE_COMMAND', branchOf: 'the vehicle', branch: (ctx) => operationBranch(ctx) },
  responses: { 200: { description: 'The vehicle afterwards', schema: VehicleSchema } },
  errors: operationErrors,
  async handler(ctx) {
    return ok(await executeOperation(ctx, 'ACTIVITY'));
  },
});

export const executeVehicleCompositeActivity = defineRoute({
  operationId: 'executeVehicleCompositeActivity',
  method: 'post',
  path: '/vehicles/execute-composite-activity/{actionId}',
  interface: 'back',
  summary: 'Run a configured sequence of activities and commands on a vehicle',
  tags: ['Vehicle Actions'],
  params: Type.Object({ actionId: Id({ description: 'The composite activity id.' }) }),
  query: operationQuery,
  access: { permission: 'VEHICLE_COMMAND', branchOf: 'the vehicle', branch: (ctx) => operationBranch(ctx) },
  responses: { 200: { description: 'The vehicle afterwards', schema: VehicleSchema } },
  errors: operationErrors,
  async handler(ctx) {
    return ok(await executeOperation(ctx, 'COMPOSITE_ACTIVITY'));
  },
});

export const vehicleActionRoutes = [
  listVehicleActions,
  executeVehicleAction,
  executeVehicleActivity,
  executeVehicleCompositeActivity,
];
