// The maintenance service's vehicle maintenance logs (GET /api/vehicle-maintenance-log/…): metrics per
// bucket and lists of activities, by branch and by user, read from the stored maintenance events
// (VEHICLE_MAINTENANCE_*, operators' VEHICLE_COMMAND_*, VEHICLE_SERVICE_STATE_V2_*, BATTERY_SWAP).
import { Type, type Static, type TProperties } from '@sinclair/typebox';
import {
  approachedVehicles,
  batterySwapCounts,
  effectiveTimeZone,
  maintenanceActivities,
  maintenanceCounts,
  type ActivityRow,
  type LogScope,
  type TypeBucketRow,
} from '../../../db/maintenance-logs.js';
import { DomainError } from '../../../domain/errors.js';
import {
  batterySwapIntervals,
  defaultListWindowDays,
  maintenanceEventKinds,
  maintenanceKindOf,
  metricsIntervals,
  windowRefusal,
  type MaintenanceEventKind,
  type MetricsInterval,
} from '../../../domain/maintenance.js';
import { defineRoute, ok, type RouteContext } from '../../kernel/route.js';
import {
  clampedInstant,
  component,
  DateTime,
  Id,
  Nullable,
  Position,
  Str,
  StringEnum,
  UserAuthId,
} from '../../kernel/schemas.js';

const tags = ['Vehicle Maintenance Log'];

const UserTimezone = Str(64, {
  description:
    'IANA time zone the buckets are cut in (e.g. Europe/Berlin); UTC when omitted or not a zone the database knows.',
});
const IncludeChildBranches = Type.Optional(
  Type.Boolean({ default: false, description: "Count the branch's descendants too." }),
);

/** The window and buckets of a metrics read: both dates required. */
const metricsQuery = <I extends readonly string[], E extends TProperties>(intervals: I, extra: E) =>
  Type.Object({
    ...extra,
    startDate: DateTime({ description: 'Events at or after (inclusive).' }),
    endDate: DateTime({ description: 'Events before (exclusive); at most 366 days after startDate.' }),
    interval: Type.Optional(
      StringEnum(intervals, {
        default: 'DAY',
        description: 'Bucket size; HOUR buckets cover at most 31 days.',
      }),
    ),
    userTimezone: Type.Optional(UserTimezone),
    includeChildBranches: IncludeChildBranches,
  });

/** The window of a list: optional, the last 30 days by default. */
const listQuery = <E extends TProperties>(extra: E) =>
  Type.Object({
    ...extra,
    startDate: Type.Optional(
      DateTime({ description: 'Events at or after (inclusive); default endDate minus 30 days.' }),
    ),
    endDate: Type.Optional(DateTime({ description: 'Events before (exclusive); default now.' })),
    includeChildBranches: IncludeChildBranches,
  });

const KindCounts = component(
  'MaintenanceKindCounts',
  Type.Object(
    Object.fromEntries(maintenanceEventKinds.map((kind) => [kind, Type.Integer({ minimum: 0 })])) as Record<
      MaintenanceEventKind,
      ReturnType<typeof Type.Integer>
    >,
    { additionalProperties: false, description: 'Events per maintenance kind (the spec names).' },
  ),
);

const BucketStart = {
  start: Type.String({ format: 'date-time', description: "The bucket's first instant." }),
  localStart: Type.String({ description: "The bucket's first instant as wall time in userTimezone." }),
};

const MaintenanceMetrics = component(
  'MaintenanceMetrics',
  Type.Object(
    {
      branchId: Id(),
      userAuthId: Nullable(Type.String()),
      startDate: Type.String({ format: 'date-time' }),
      endDate: Type.String({ format: 'date-time' }),
      interval: StringEnum(metricsIntervals),
      userTimezone: Type.String({ description: 'The zone the buckets were cut in.' }),
      totals: KindCounts,
      buckets: Type.Array(
        Type.Object(
          { ...BucketStart, total: Type.Integer({ minimum: 0 }), counts: KindCounts },
          { additionalProperties: false },
        ),
      ),
    },
    { additionalProperties: false },
  ),
);

const BatterySwapMetrics = component(
  'BatterySwapMetrics',
  Type.Object(
    {
      branchId: Id(),
      userAuthId: Nullable(Type.String()),
      startDate: Type.String({ format: 'date-time' }),
      endDate: Type.String({ format: 'date-time' }),
      interval: StringEnum(batterySwapIntervals),
      userTimezone: Type.String(),
      totalSwaps: Type.Integer({ minimum: 0 }),
      buckets: Type.Array(
        Type.Object(
          {
            ...BucketStart,
            swaps: Type.Integer({ minimum: 0 }),
            vehicles: Type.Integer({ minimum: 0, description: 'Distinct vehicles swapped.' }),
          },
          { additionalProperties: false },
        ),
      ),
    },
    { additionalProperties: false },
  ),
);

const MaintenanceActivity = component(
  'MaintenanceActivity',
  Type.Object(
    {
      id: Type.String({ description: 'The event id.' }),
      kind: StringEnum(maintenanceEventKinds),
      eventType: Type.String({ description: 'The stored event type.' }),
      createdAt: Type.String({ format: 'date-time' }),
      branchId: Nullable(Type.Integer()),
      vehicleId: Nullable(Type.Integer()),
      userAuthId: Nullable(Type.String({ description: 'Who acted (the event’s acting subject).' })),
      description: Nullable(Type.String()),
      position: Nullable(Position),
    },
    { additionalProperties: false },
  ),
);

const ApproachedVehicle = component(
  'ApproachedVehicle',
  Type.Object(
    {
      vehicleId: Type.Integer(),
      vehicleCode: Nullable(Type.String({ description: 'Null when the vehicle no longer exists.' })),
      approaches: Type.Integer({ minimum: 1 }),
      lastApproachedAt: Type.String({ format: 'date-time' }),
      branchId: Nullable(Type.Integer()),
      position: Nullable(Position),
    },
    { additionalProperties: false },
  ),
);

const dayMs = 24 * 3600 * 1000;

/** The window of a read (MT100 when empty, reversed or too long for its buckets). */
function windowOf(
  query: { startDate?: string; endDate?: string },
  interval?: MetricsInterval,
): { from: Date; to: Date } {
  const to = query.endDate === undefined ? new Date() : clampedInstant(query.endDate);
  const from =
    query.startDate === undefined
      ? new Date(to.getTime() - defaultListWindowDays * dayMs)
      : clampedInstant(query.startDate);
  const refusal = windowRefusal(from, to, interval);
  if (refusal) throw new DomainError('MT100', refusal);
  return { from, to };
}

type ScopeQuery = { startDate?: string; endDate?: string; includeChildBranches?: boolean };

function scopeOf(
  ctx: RouteContext,
  branchId: number,
  query: ScopeQuery,
  userAuthId: string | undefined,
  interval?: MetricsInterval,
): LogScope {
  return {
    tenant: ctx.tenant,
    branchId,
    includeChildBranches: query.includeChildBranches ?? false,
    userAuthId,
    ...windowOf(query, interval),
  };
}

const emptyCounts = (): Record<MaintenanceEventKind, number> =>
  Object.fromEntries(maintenanceEventKinds.map((kind) => [kind, 0])) as Record<MaintenanceEventKind, number>;

/** Folds per-type rows into per-kind buckets. */
function metricsOf(rows: readonly TypeBucketRow[]) {
  const totals = emptyCounts();
  const buckets: { start: string; localStart: string; total: number; counts: typeof totals }[] = [];
  for (const row of rows) {
    const start = new Date(row.start).toISOString();
    let bucket = buckets.at(-1);
    if (bucket?.start !== start) {
      bucket = { start, localStart: row.local_start, total: 0, counts: emptyCounts() };
      buckets.push(bucket);
    }
    const kind = maintenanceKindOf(row.type);
    if (!kind) continue;
    const events = Number(row.events);
    bucket.counts[kind] += events;
    bucket.total += events;
    totals[kind] += events;
  }
  return { totals, buckets };
}

async function maintenanceMetrics(
  ctx: RouteContext,
  branchId: number,
  query: ScopeQuery & { interval?: MetricsInterval; userTimezone?: string },
  userAuthId: string | undefined,
): Promise<Static<typeof MaintenanceMetrics>> {
  const interval = query.interval ?? 'DAY';
  const scope = scopeOf(ctx, branchId, query, userAuthId, interval);
  const timeZone = await effectiveTimeZone(ctx.em, query.userTimezone);
  const rows = await maintenanceCounts(ctx.em, scope, interval, timeZone);
  return {
    branchId,
    userAuthId: userAuthId ?? null,
    startDate: scope.from.toISOString(),
    endDate: scope.to.toISOString(),
    interval,
    userTimezone: timeZone,
    ...metricsOf(rows),
  };
}

async function swapMetrics(
  ctx: RouteContext,
  branchId: number,
  query: ScopeQuery & { interval?: (typeof batterySwapIntervals)[number]; userTimezone?: string },
  userAuthId: string | undefined,
): Promise<Static<typeof BatterySwapMetrics>> {
  const interval = query.interval ?? 'DAY';
  const scope = scopeOf(ctx, branchId, query, userAuthId, interval);
  const timeZone = await effectiveTimeZone(ctx.em, query.userTimezone);
  const rows = await batterySwapCounts(ctx.em, scope, interval, timeZone);
  const buckets = rows.map((row) => ({
    start: new Date(row.start).toISOString(),
    localStart: row.local_start,
    swaps: Number(row.events),
    vehicles: Number(row.vehicles),
  }));
  return {
    branchId,
    userAuthId: userAuthId ?? null,
    startDate: scope.from.toISOString(),
    endDate: scope.to.toISOString(),
    interval,
    userTimezone: timeZone,
    totalSwaps: buckets.reduce((sum, bucket) => sum + bucket.swaps, 0),
    buckets,
  };
}

function activityDto(row: ActivityRow): Static<typeof MaintenanceActivity> {
  return {
    id: String(row.id),
    kind: maintenanceKindOf(row.type!) ?? 'VEHICLE_COMMAND',
    eventType: row.type!,
    createdAt: new Date(row.created_at!).toISOString(),
    branchId: row.branch_id,
    vehicleId: row.vehicle_id,
    userAuthId: row.admin_subject,
    description: row.description,
    position: row.position ?? null,
  };
}

const BranchParams = Type.Object({ branchId: Id() });
const UserParams = Type.Object({
  userAuthId: UserAuthId({
    description: "The user's auth id: the acting subject events record (e.g. client:demo-operator).",
  }),
});
const UserBranch = { branchId: Id({ description: 'The branch whose events are read (permission scope).' }) };

const onThePathBranch = {
  permission: 'MAINTENANCE_READ',
  branchOf: 'path parameter branchId',
  branch: (ctx: RouteContext<{ branchId: number }>) => ctx.params.branchId,
};
const onTheQueryBranch = {
  permission: 'MAINTENANCE_READ',
  branchOf: 'query parameter branchId',
  branch: (ctx: RouteContext<unknown, { branchId: number }>) => ctx.query.branchId,
};

const BranchMetricsQuery = metricsQuery(metricsIntervals, {});
const BranchSwapQuery = metricsQuery(batterySwapIntervals, {});
const UserMetricsQuery = metricsQuery(metricsIntervals, UserBranch);
const UserSwapQuery = metricsQuery(batterySwapIntervals, UserBranch);

export const branchMaintenanceLog = defineRoute({
  operationId: 'branchMaintenanceLog',
  method: 'get',
  path: '/api/vehicle-maintenance-log/branch/{branchId}',
  interface: 'maintenance',
  summary: "A branch's maintenance events per bucket and kind",
  description:
    'Counts of APPROACH, DEPLOY, CLOSE, VEHICLE_COMMAND (outside rentals), SERVICE_STATE_CHANGE and BATTERY_SWAP events per bucket (date_trunc in userTimezone); only buckets with events are listed.',
  tags,
  params: BranchParams,
  query: BranchMetricsQuery,
  access: onThePathBranch,
  responses: { 200: { description: 'The metrics', schema: MaintenanceMetrics } },
  errors: ['MT100'],
  handler: async (ctx) => ok(await maintenanceMetrics(ctx, ctx.params.branchId, ctx.query, undefined)),
});

export const branchBatterySwaps = defineRoute({
  operationId: 'branchBatterySwaps',
  method: 'get',
  path: '/api/vehicle-maintenance-log/branch/{branchId}/battery-swaps',
  interface: 'maintenance',
  summary: "A branch's battery swaps per bucket",
  tags,
  params: BranchParams,
  query: BranchSwapQuery,
  access: onThePathBranch,
  responses: { 200: { description: 'The swaps', schema: BatterySwapMetrics } },
  errors: ['MT100'],
  handler: async (ctx) => ok(await swapMetrics(ctx, ctx.params.branchId, ctx.query, undefined)),
});

export const branchLatestActivities = defineRoute({
  operationId: 'branchLatestMaintenanceActivities',
  method: 'get',
  path: '/api/vehicle-maintenance-log/branch/{branchId}/latest-activities',
  interface: 'maintenance',
  summary: "A branch's maintenance events, newest first",
  tags,
  params: BranchParams,
  query: listQuery({}),
  paged: { defaultSize: 50 },
  access: onThePathBranch,
  responses: { 200: { description: 'One page of events', schema: Type.Array(MaintenanceActivity) } },
  errors: ['MT100'],
  async handler(ctx) {
    const scope = scopeOf(ctx, ctx.params.branchId, ctx.query, undefined);
    const { rows, total } = await maintenanceActivities(ctx.em, scope, ctx.page);
    return ok(rows.map(activityDto), { total });
  },
});

export const userMaintenanceLog = defineRoute({
  operationId: 'userMaintenanceLog',
  method: 'get',
  path: '/api/vehicle-maintenance-log/user/{userAuthId}',
  interface: 'maintenance',
  summary: "A user's maintenance events per bucket and kind, in a branch",
  description: 'branchId is required: maintenance reads are granted per branch.',
  tags,
  params: UserParams,
  query: UserMetricsQuery,
  access: onTheQueryBranch,
  responses: { 200: { description: 'The metrics', schema: MaintenanceMetrics } },
  errors: ['MT100'],
  handler: async (ctx) =>
    ok(await maintenanceMetrics(ctx, ctx.query.branchId, ctx.query, ctx.params.userAuthId)),
});

export const userMaintenanceDetails = defineRoute({
  operationId: 'userMaintenanceDetails',
  method: 'get',
  path: '/api/vehicle-maintenance-log/user/{userAuthId}/details',
  interface: 'maintenance',
  summary: "A user's maintenance events in a branch, newest first",
  tags,
  params: UserParams,
  query: listQuery(UserBranch),
  paged: { defaultSize: 50 },
  access: onTheQueryBranch,
  responses: { 200: { description: 'One page of events', schema: Type.Array(MaintenanceActivity) } },
  errors: ['MT100'],
  async handler(ctx) {
    const scope = scopeOf(ctx, ctx.query.branchId, ctx.query, ctx.params.userAuthId);
    const { rows, total } = await maintenanceActivities(ctx.em, scope, ctx.page);
    return ok(rows.map(activityDto), { total });
  },
});

export const userBatterySwaps = defineRoute({
  operationId: 'userBatterySwaps',
  method: 'get',
  path: '/api/vehicle-maintenance-log/user/{userAuthId}/battery-swaps',
  interface: 'maintenance',
  summary: "A user's battery swaps per bucket, in a branch",
  tags,
  params: UserParams,
  query: UserSwapQuery,
  access: onTheQueryBranch,
  responses: { 200: { description: 'The swaps', schema: BatterySwapMetrics } },
  errors: ['MT100'],
  handler: async (ctx) => ok(await swapMetrics(ctx, ctx.query.branchId, ctx.query, ctx.params.userAuthId)),
});

export const userApproachedVehicles = defineRoute({
  operationId: 'userApproachedVehicles',
  method: 'get',
  path: '/api/vehicle-maintenance-log/user/{userAuthId}/approached-vehicle',
  interface: 'maintenance',
  summary: 'The vehicles a user approached (VEHICLE_MAINTENANCE_APPROACH) in a branch',
  description: 'One entry per vehicle: how often and when last; most recently approached first.',
  tags,
  params: UserParams,
  query: listQuery(UserBranch),
  paged: { defaultSize: 50 },
  access: onTheQueryBranch,
  responses: { 200: { description: 'One page of vehicles', schema: Type.Array(ApproachedVehicle) } },
  errors: ['MT100'],
  async handler(ctx) {
    const scope = scopeOf(ctx, ctx.query.branchId, ctx.query, ctx.params.userAuthId);
    const { rows, total } = await approachedVehicles(ctx.em, scope, ctx.page);
    return ok(
      rows.map((row) => ({
        vehicleId: row.vehicle_id!,
        vehicleCode: row.code,
        approaches: Number(row.approaches),
        lastApproachedAt: new Date(row.last_approached_at!).toISOString(),
        branchId: row.branch_id,
        position: row.position ?? null,
      })),
      { total },
    );
  },
});

/** The log routes (fixed segments are ordered by the kernel). */
export const maintenanceLogRoutes = [
  branchMaintenanceLog,
  branchBatterySwaps,
  branchLatestActivities,
  userMaintenanceLog,
  userMaintenanceDetails,
  userBatterySwaps,
  userApproachedVehicles,
];
