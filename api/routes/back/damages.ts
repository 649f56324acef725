// Operator endpoints of damages: report a damage on a vehicle, triage, repair or ignore it, and the
// per-vehicle and per-branch views (GET /vehicles/{id}/damages, /vehicles/open-damages-overview).
import { LockMode } from '@mikro-orm/core';
import { Type, type Static } from '@sinclair/typebox';
import { Customer } from '../../../db/entities/Customer.js';
import { Damage } from '../../../db/entities/Damage.js';
import { Rental } from '../../../db/entities/Rental.js';
import { Vehicle } from '../../../db/entities/Vehicle.js';
import { branchWithDescendants } from '../../../db/branches.js';
import type { EntityManager } from '../../../db/orm.js';
import { recordEvent } from '../../../db/events.js';
import { filesLinkedTo, linkFiles, setLinkedFiles, type FileReference } from '../../../db/files.js';
import { FileReferenceSchema, FileUuid } from '../../shared/file-representation.js';
import { DomainError } from '../../../domain/errors.js';
import {
  damageEditable,
  damageLocations,
  damageSeverities,
  damageSeverityRefusal,
  damageStateEventType,
  damageStates,
  damageTransitionRefusal,
  isOpenDamage,
  openDamageStates,
} from '../../../domain/damage.js';
import { created, defineRoute, ok, type RouteContext } from '../../kernel/route.js';
import { component, DateTime, Id, Nullable, Position, Str, StringEnum } from '../../kernel/schemas.js';
import { onTheVehicle, vehicleById } from './vehicle-representation.js';

const tags = ['Damages'];

const DamageState = component('DamageState', StringEnum(damageStates));
const DamageSeverity = component('DamageSeverity', StringEnum(damageSeverities));
const DamageLocation = component('DamageLocation', StringEnum(damageLocations));

const DamageSchema = component(
  'Damage',
  Type.Object(
    {
      id: Id(),
      vehicleId: Id(),
      branchId: Id({ description: "The vehicle's branch when the damage was reported." }),
      part: Type.String(),
      location: Nullable(DamageLocation),
      severity: Nullable(DamageSeverity),
      critical: Type.Boolean({ description: 'severity is CRITICAL.' }),
      state: DamageState,
      open: Type.Boolean({ description: 'state is NEW, APPROVED or UNDER_REPAIR.' }),
      description: Nullable(Type.String()),
      vehiclePosition: Nullable(Position),
      userPosition: Nullable(Position),
      rentalId: Nullable(Id({ description: 'The rental the reporter attributes it to.' })),
      currentRentalId: Nullable(Id({ description: "The vehicle's open rental when it was reported." })),
      previousRentalId: Nullable(Id({ description: "The vehicle's last ended rental before the report." })),
      causedByCustomerId: Nullable(Id()),
      reportedBy: Type.String(),
      repairCode: Nullable(Type.String()),
      issueId: Nullable(
        Id({ description: 'The issue the damage is linked to (POST /issues/{issueId}/damages).' }),
      ),
      createdAt: DateTime(),
      updatedAt: DateTime(),
      resolvedAt: Nullable(DateTime({ description: 'When it became REPAIRED or IGNORED.' })),
      files: Type.Array(FileReferenceSchema, { description: 'Photos and documents linked to the damage.' }),
    },
    { additionalProperties: false },
  ),
);

type DamageDto = Static<typeof DamageSchema>;

/** The operator's damage representation (with its linked files). */
export function toDamageDto(damage: Damage, files: readonly FileReference[] = []): DamageDto {
  return {
    id: damage.id,
    vehicleId: damage.vehicleId,
    branchId: damage.branchId,
    part: damage.part,
    location: damage.location ?? null,
    severity: damage.severity ?? null,
    critical: damage.severity === 'CRITICAL',
    state: damage.state,
    open: isOpenDamage(damage.state),
    description: damage.description ?? null,
    vehiclePosition: damage.vehiclePosition ?? null,
    userPosition: damage.userPosition ?? null,
    rentalId: damage.rentalId ?? null,
    currentRentalId: damage.currentRentalId ?? null,
    previousRentalId: damage.previousRentalId ?? null,
    causedByCustomerId: damage.causedByCustomerId ?? null,
    reportedBy: damage.reportedBy,
    repairCode: damage.repairCode ?? null,
    issueId: damage.issueId ?? null,
    createdAt: damage.createdAt.toISOString(),
    updatedAt: damage.updatedAt.toISOString(),
    resolvedAt: damage.resolvedAt?.toISOString() ?? null,
    files: [...files],
  };
}

/** Damage representations with their files (one query for the page). */
export async function toDamageDtos(em: EntityManager, damages: readonly Damage[]): Promise<DamageDto[]> {
  const files = await filesLinkedTo(
    em,
    'DAMAGE',
    damages.map((damage) => damage.id),
  );
  return damages.map((damage) => toDamageDto(damage, files.get(String(damage.id))));
}

/** Files on a damage: uploaded first (POST /files), linked by uuid. */
const DamageFiles = Type.Array(FileUuid, {
  maxItems: 20,
  description: 'Files uploaded before (POST /files); on update the full list (left-out ones are unlinked).',
});

/** The damage of the path's `damageId` and its vehicle, loaded once (access check and handler share it). */
const damageById = (ctx: RouteContext<{ damageId: number }>) =>
  ctx.once('damage', async () => {
    const damage = await ctx.em.findOne(Damage, ctx.params.damageId);
    if (!damage) throw new DomainError('DM404', `damage ${ctx.params.damageId} not found`);
    const vehicle = await ctx.em.findOne(Vehicle, damage.vehicleId);
    if (!vehicle) throw new DomainError('DM404', `the vehicle of damage ${damage.id} is gone`);
    return { damage, vehicle };
  });

/** Refuses a customer id that does not exist in the tenant (U106). */
async function assertCustomer(ctx: RouteContext, customerId: number | null | undefined): Promise<void> {
  if (customerId != null && !(await ctx.em.count(Customer, customerId)))
    throw new DomainError('U106', `customer ${customerId} not found`);
}

const DamagePage = Type.Array(DamageSchema);

const damageFilters = {
  state: Type.Optional(Type.Array(DamageState, { maxItems: damageStates.length, uniqueItems: true })),
  onlyOpen: Type.Optional(
    Type.Boolean({ default: false, description: 'Only NEW, APPROVED and UNDER_REPAIR damages.' }),
  ),
  severity: Type.Optional(
    Type.Array(DamageSeverity, { maxItems: damageSeverities.length, uniqueItems: true }),
  ),
};

/** The states the list filters ask for (onlyOpen narrows `state` to the open ones), or all. */
function listedStates(query: { state?: readonly string[]; onlyOpen?: boolean }): string[] | undefined {
  return query.onlyOpen
    ? openDamageStates.filter((state) => !query.state || query.state.includes(state))
    : query.state && [...query.state];
}

/** The where clause of the list filters. */
function filterWhere(query: {
  state?: readonly string[];
  onlyOpen?: boolean;
  severity?: readonly string[];
}): Record<string, unknown> {
  const where: Record<string, unknown> = {};
  const states = listedStates(query);
  if (states) where.state = { $in: states };
  if (query.severity) where.severity = { $in: [...query.severity] };
  return where;
}

/** The branch of the query, with its descendants when `includeChildBranches` asks for them. */
async function listedBranches(
  em: EntityManager,
  tenant: string,
  query: { branchId: number; includeChildBranches?: boolean },
): Promise<number[]> {
  return query.includeChildBranches ? branchWithDescendants(em, tenant, query.branchId) : [query.branchId];
}

export const vehicleDamages = defineRoute({
  operationId: 'vehicleDamages',
  method: 'get',
  path: '/vehicles/{id}/damages',
  interface: 'back',
  summary: "A vehicle's damages, newest first",
  tags,
  params: Type.Object({ id: Id() }),
  query: Type.Object(damageFilters),
  paged: { defaultSize: 50 },
  access: onTheVehicle('DAMAGE_READ'),
  responses: { 200: { description: 'One page of damages', schema: DamagePage } },
  errors: ['V404'],
  async handler(ctx) {
    const vehicle = await vehicleById(ctx);
    const [rows, total] = await ctx.em.findAndCount(
      Damage,
      { vehicleId: vehicle.id, ...filterWhere(ctx.query) },
      { orderBy: { id: 'desc' }, limit: ctx.page.size, offset: ctx.page.offset },
    );
    return ok(await toDamageDtos(ctx.em, rows), { total });
  },
});

export const listDamages = defineRoute({
  operationId: 'listDamages',
  method: 'get',
  path: '/damages',
  interface: 'back',
  summary: "The damages of a branch's vehicles, newest first",
  tags,
  query: Type.Object({
    branchId: Id(),
    includeChildBranches: Type.Optional(Type.Boolean({ default: false })),
    vehicleId: Type.Optional(Id()),
    ...damageFilters,
  }),
  paged: { defaultSize: 50 },
  access: {
    permission: 'DAMAGE_READ',
    branchOf: 'query parameter branchId',
    branch: (ctx) => ctx.query.branchId,
  },
  responses: { 200: { description: 'One page of damages', schema: DamagePage } },
  errors: [],
  async handler({ em, tenant, query, page }) {
    const branches = await listedBranches(em, tenant, query);
    // The vehicle's current branch decides, like every vehicle list (the damage keeps the one it had).
    const states = listedStates(query);
    const rows = await em.execute<{ id: number; total: string }[]>(
      `select d.id, count(*) over () as total
       from damage d join vehicle v on v.id = d.vehicle_id and v.tenant_id = d.tenant_id
       where d.tenant_id = ? and v.branch_id in (select jsonb_array_elements_text(?::jsonb)::int)
         and (?::int is null or d.vehicle_id = ?::int)
         and (?::jsonb is null or d.state in (select jsonb_array_elements_text(?::jsonb)))
         and (?::jsonb is null or d.severity in (select jsonb_array_elements_text(?::jsonb)))
       order by d.id desc limit ? offset ?`,
      [
        tenant,
        JSON.stringify(branches),
        query.vehicleId ?? null,
        query.vehicleId ?? null,
        states ? JSON.stringify(states) : null,
        states ? JSON.stringify(states) : null,
        query.severity ? JSON.stringify(query.severity) : null,
        query.severity ? JSON.stringify(query.severity) : null,
        page.size,
        page.offset,
      ],
    );
    const damages = await em.find(
      Damage,
      { id: { $in: rows.map((row) => Number(row.id)) } },
      { orderBy: { id: 'desc' } },
    );
    return ok(await toDamageDtos(em, damages), { total: Number(rows[0]?.total ?? 0) });
  },
});

/** The damaged part: 1–100 characters, not blank, no NUL (the visible character may not be a NUL either). */
const PartName = Str(100, { minLength: 1, pattern: '^[^\\u0000]*[^\\s\\u0000][^\\u0000]*$' });

const CreateDamage = component(
  'DamageCreate',
  Type.Object(
    {
      vehicleId: Id(),
      part: PartName,
      location: Type.Optional(DamageLocation),
      severity: Type.Optional(DamageSeverity),
      description: Type.Optional(Str(4000)),
      vehiclePosition: Type.Optional(Position),
      userPosition: Type.Optional(Position),
      rentalId: Type.Optional(Id()),
      causedByCustomerId: Type.Optional(Id()),
      files: Type.Optional(DamageFiles),
    },
    { additionalProperties: false },
  ),
);

export const createDamage = defineRoute({
  operationId: 'createDamage',
  method: 'post',
  path: '/damages',
  interface: 'back',
  summary: 'Report a damage on a vehicle (state NEW)',
  description:
    "The vehicle's position, its open rental and its last ended rental are recorded with it; rentalId must be one of the vehicle's rentals (DM102).",
  tags,
  body: CreateDamage,
  access: {
    permission: 'DAMAGE_WRITE',
    branchOf: 'the vehicle of the body',
    branch: async (ctx) => (await vehicleOfBody(ctx)).branch.id,
  },
  responses: {
    201: {
      description: 'The damage',
      schema: DamageSchema,
      links: { GetDamage: { operationId: 'getDamage', parameters: { damageId: '$response.body#/id' } } },
    },
  },
  errors: ['V404', 'R404', 'DM102', 'U106', 'L404', 'L407'],
  async handler(ctx) {
    const { body, em } = ctx;
    const vehicle = await vehicleOfBody(ctx);
    if (body.rentalId !== undefined) {
      const rental = await em.findOne(Rental, body.rentalId);
      if (!rental) throw new DomainError('R404', `rental ${body.rentalId} not found`);
      if (rental.vehicle.id !== vehicle.id)
        throw new DomainError('DM102', `rental ${rental.id} is not a rental of vehicle ${vehicle.id}`);
    }
    await assertCustomer(ctx, body.causedByCustomerId);
    const [current, previous] = await Promise.all([
      em.findOne(Rental, { vehicle: vehicle.id, state: { $in: ['RESERVATION', 'ACTIVE'] } }),
      em.findOne(
        Rental,
        { vehicle: vehicle.id, endedAt: { $ne: null } },
        { orderBy: { endedAt: 'desc', id: 'desc' } },
      ),
    ]);
    // The damage and its event commit together (the event names the damage's id).
    const damage = await em.transactional(async (tx) => {
      const row = tx.create(Damage, {
        vehicleId: vehicle.id,
        branchId: vehicle.branch.id,
        part: body.part.trim(),
        location: body.location ?? null,
        severity: body.severity ?? null,
        description: body.description ?? null,
        vehiclePosition:
          body.vehiclePosition ??
          (vehicle.latitude != null && vehicle.longitude != null
            ? { lat: vehicle.latitude, lng: vehicle.longitude }
            : null),
        userPosition: body.userPosition ?? null,
        rentalId: body.rentalId ?? null,
        currentRentalId: current?.id ?? null,
        previousRentalId: previous?.id ?? null,
        causedByCustomerId: body.causedByCustomerId ?? null,
        reportedBy: ctx.actor,
      });
      await tx.flush();
      recordEvent(tx, {
        adminSubject: ctx.actor,
        type: 'DAMAGE_CREATED',
        branchId: vehicle.branch.id,
        vehicleId: vehicle.id,
        rentalId: body.rentalId ?? current?.id ?? null,
        customerId: body.causedByCustomerId ?? null,
        position: row.vehiclePosition ?? null,
        description: `${row.part}${row.severity ? ` (${row.severity})` : ''}`,
        payload: { damageId: row.id, severity: row.severity ?? null, part: row.part },
      });
      await linkFiles(tx, {
        entityType: 'DAMAGE',
        entityId: row.id,
        fileUuids: body.files ?? [],
        linkedBy: ctx.actor,
        scope: { branchId: row.branchId },
      });
      return row;
    });
    return created((await toDamageDtos(em, [damage]))[0]!, {
      Location: `${ctx.baseUrl}/damages/${damage.id}`,
    });
  },
});

/** The vehicle named by the create body (V404 when it is not in the tenant). */
const vehicleOfBody = (ctx: RouteContext<unknown, unknown, { vehicleId: number }>) =>
  ctx.once('vehicle', async () => {
    const vehicle = await ctx.em.findOne(Vehicle, ctx.body.vehicleId);
    if (!vehicle) throw new DomainError('V404', `vehicle ${ctx.body.vehicleId} not found`);
    return vehicle;
  });

const DamageIdParams = Type.Object({ damageId: Id() });

export const getDamage = defineRoute({
  operationId: 'getDamage',
  method: 'get',
  path: '/damages/{damageId}',
  interface: 'back',
  summary: 'One damage',
  tags,
  params: DamageIdParams,
  access: {
    permission: 'DAMAGE_READ',
    branchOf: "the damage's vehicle",
    branch: async (ctx) => (await damageById(ctx)).vehicle.branch.id,
  },
  responses: { 200: { description: 'The damage', schema: DamageSchema } },
  errors: ['DM404'],
  async handler(ctx) {
    return ok((await toDamageDtos(ctx.em, [(await damageById(ctx)).damage]))[0]!);
  },
});

const UpdateDamage = component(
  'DamageUpdate',
  Type.Object(
    {
      state: Type.Optional(DamageState),
      part: Type.Optional(PartName),
      location: Type.Optional(Nullable(DamageLocation)),
      severity: Type.Optional(Nullable(DamageSeverity)),
      description: Type.Optional(Nullable(Str(4000))),
      causedByCustomerId: Type.Optional(Nullable(Id())),
      repairCode: Type.Optional(Nullable(Str(64))),
      files: Type.Optional(DamageFiles),
    },
    { additionalProperties: false, minProperties: 1 },
  ),
);

type UpdateFields = Omit<Static<typeof UpdateDamage>, 'state' | 'files'>;
const editableFields = [
  'part',
  'location',
  'severity',
  'description',
  'causedByCustomerId',
  'repairCode',
] as const satisfies readonly (keyof UpdateFields)[];

export const updateDamage = defineRoute({
  operationId: 'updateDamage',
  method: 'patch',
  path: '/damages/{damageId}',
  interface: 'back',
  summary: 'Triage, repair, ignore or edit a damage',
  description:
    'Fields and a state move in one request; the fields apply first, so severity and APPROVED may come together. Moves: NEW → APPROVED | IGNORED; APPROVED → UNDER_REPAIR | REPAIRED | IGNORED; UNDER_REPAIR → REPAIRED | APPROVED; IGNORED → NEW (reopen). A REPAIRED or IGNORED damage keeps its fields (DM100).',
  tags,
  params: DamageIdParams,
  body: UpdateDamage,
  access: {
    permission: 'DAMAGE_WRITE',
    branchOf: "the damage's vehicle",
    branch: async (ctx) => (await damageById(ctx)).vehicle.branch.id,
  },
  responses: { 200: { description: 'The damage after the change', schema: DamageSchema } },
  errors: ['DM404', 'DM100', 'DM101', 'U106', 'L404', 'L407'],
  async handler(ctx) {
    const { body } = ctx;
    const { vehicle } = await damageById(ctx);
    await assertCustomer(ctx, body.causedByCustomerId);
    const updated = await ctx.em.fork().transactional(async (tx) => {
      // The row lock serialises concurrent changes: each sees the state the previous one committed.
      const damage = await tx.findOneOrFail(Damage, ctx.params.damageId, {
        lockMode: LockMode.PESSIMISTIC_WRITE,
      });
      const from = damage.state;
      const to = body.state ?? from;
      const sent = { ...body, part: body.part?.trim() };
      const changed = editableFields.filter(
        (field) => sent[field] !== undefined && sent[field] !== (damage[field] ?? null),
      );
      if (changed.length && !damageEditable(from))
        throw new DomainError('DM100', `a ${from} damage cannot be edited; reopen it first`);
      const transitionRefusal = damageTransitionRefusal(from, to);
      if (transitionRefusal) throw new DomainError('DM100', transitionRefusal);
      if (sent.part !== undefined) damage.part = sent.part;
      if (body.location !== undefined) damage.location = body.location;
      if (body.severity !== undefined) damage.severity = body.severity;
      if (body.description !== undefined) damage.description = body.description;
      if (body.causedByCustomerId !== undefined) damage.causedByCustomerId = body.causedByCustomerId;
      if (body.repairCode !== undefined) damage.repairCode = body.repairCode;
      const severityRefusal = damageSeverityRefusal(to, damage.severity);
      if (severityRefusal) throw new DomainError('DM101', severityRefusal);
      if (body.files !== undefined)
        await setLinkedFiles(tx, {
          entityType: 'DAMAGE',
          entityId: damage.id,
          fileUuids: body.files,
          linkedBy: ctx.actor,
          scope: { branchId: damage.branchId },
        });
      const event = {
        branchId: vehicle.branch.id,
        vehicleId: damage.vehicleId,
        adminSubject: ctx.actor,
        customerId: damage.causedByCustomerId ?? null,
      };
      if (changed.length)
        recordEvent(tx, {
          ...event,
          type: 'DAMAGE_UPDATED',
          payload: { damageId: damage.id, changed: [...changed] },
        });
      if (to !== from) {
        damage.state = to;
        damage.resolvedAt = isOpenDamage(to) ? null : new Date();
        recordEvent(tx, {
          ...event,
          type: damageStateEventType(to),
          description: `${from} → ${to}`,
          payload: { damageId: damage.id, from, to, severity: damage.severity ?? null },
        });
      }
      return damage;
    });
    return ok((await toDamageDtos(ctx.em, [updated]))[0]!);
  },
});

const OpenDamagesOverview = component(
  'VehicleOpenDamagesOverview',
  Type.Object(
    {
      vehicleId: Id(),
      code: Type.String(),
      openDamages: Type.Integer({ description: 'Damages in NEW, APPROVED or UNDER_REPAIR.' }),
      highestSeverity: Type.Union([DamageSeverity, Type.Null()], {
        description: 'Highest severity among them; null when none is rated yet.',
      }),
      criticalNewDamages: Type.Integer({ description: 'NEW damages rated CRITICAL (untriaged).' }),
      oldestOpenSince: DateTime(),
    },
    { additionalProperties: false },
  ),
);

export const openDamagesOverview = defineRoute({
  operationId: 'vehiclesOpenDamagesOverview',
  method: 'get',
  path: '/vehicles/open-damages-overview',
  interface: 'back',
  summary: "A branch's vehicles with open damages: how many, the highest severity, critical new ones",
  tags: ['Vehicles', ...tags],
  query: Type.Object({
    branchId: Id(),
    includeChildBranches: Type.Optional(Type.Boolean({ default: false })),
    onlyCriticalNew: Type.Optional(
      Type.Boolean({ default: false, description: 'Only vehicles with a NEW damage rated CRITICAL.' }),
    ),
  }),
  paged: { defaultSize: 50 },
  access: {
    permission: 'DAMAGE_READ',
    branchOf: 'query parameter branchId',
    branch: (ctx) => ctx.query.branchId,
  },
  responses: {
    200: {
      description: 'One page of vehicles with open damages, by vehicle id',
      schema: Type.Array(OpenDamagesOverview),
    },
  },
  errors: [],
  async handler({ em, tenant, query, page }) {
    const branches = await listedBranches(em, tenant, query);
    // The vehicle's current branch decides, like every vehicle list (the damage keeps the one it had).
    const rows = await em.execute<
      {
        vehicle_id: number;
        code: string;
        open: string;
        top: number | null;
        critical_new: string;
        oldest: Date;
        total: string;
      }[]
    >(
      `select d.vehicle_id, v.code, count(*) as open,
              max(case d.severity when 'CRITICAL' then 3 when 'HIGH' then 2 when 'MEDIUM' then 1 when 'MINOR' then 0 end) as top,
              count(*) filter (where d.state = 'NEW' and d.severity = 'CRITICAL') as critical_new,
              min(d.created_at) as oldest,
              count(*) over () as total
       from damage d join vehicle v on v.id = d.vehicle_id and v.tenant_id = d.tenant_id
       where d.tenant_id = ? and d.state in ('NEW', 'APPROVED', 'UNDER_REPAIR')
         and v.branch_id in (select jsonb_array_elements_text(?::jsonb)::int)
       group by d.vehicle_id, v.code
       having ? = false or count(*) filter (where d.state = 'NEW' and d.severity = 'CRITICAL') > 0
       order by d.vehicle_id limit ? offset ?`,
      [tenant, JSON.stringify(branches), query.onlyCriticalNew ?? false, page.size, page.offset],
    );
    return ok(
      rows.map((row) => ({
        vehicleId: Number(row.vehicle_id),
        code: row.code,
        openDamages: Number(row.open),
        highestSeverity: row.top === null ? null : (damageSeverities[Number(row.top)] ?? null),
        criticalNewDamages: Number(row.critical_new),
        oldestOpenSince: new Date(row.oldest).toISOString(),
      })),
      { total: Number(rows[0]?.total ?? 0) },
    );
  },
});

/** Static paths (/vehicles/open-damages-overview) come before /vehicles/{id} when mounted. */
export const damageRoutes = [
  openDamagesOverview,
  vehicleDamages,
  listDamages,
  createDamage,
  getDamage,
  updateDamage,
];
