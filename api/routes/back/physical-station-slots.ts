// The slots of a physical station: list, create, update and delete them, and docking: connect or disconnect
// a vehicle (db/docking.ts, the same function the devices' slot reports go through).
import { Type, type Static } from '@sinclair/typebox';
import { PhysicalStationSlot } from '../../../db/entities/PhysicalStationSlot.js';
import { slotStates } from '../../../db/entities/PhysicalStationSlot.js';
import { connectVehicleToSlot, disconnectVehicleFromSlot } from '../../../db/docking.js';
import { DomainError } from '../../../domain/errors.js';
import { created, defineRoute, noContent, ok, type RouteContext } from '../../kernel/route.js';
import { component, DateTime, Id, Int, Nullable, StringEnum } from '../../kernel/schemas.js';
import { inRequestTransaction } from './branches.js';
import { onThePhysicalStation, physicalStationOf, StationParams } from './physical-stations.js';

const tags = ['Stations'];

const SlotState = component('SlotState', StringEnum(slotStates));

const SlotSchema = component(
  'PhysicalStationSlot',
  Type.Object(
    {
      id: Id(),
      physicalStationId: Id(),
      number: Type.Integer(),
      state: SlotState,
      vehicleId: Nullable(Id()),
      connectedAt: Nullable(DateTime()),
    },
    { additionalProperties: false },
  ),
);

const SlotParams = Type.Object({ stationId: Id(), slotId: Id() });

function toSlotDto(slot: PhysicalStationSlot): Static<typeof SlotSchema> {
  return {
    id: slot.id,
    physicalStationId: slot.physicalStation.id,
    number: slot.number,
    state: slot.state,
    vehicleId: slot.vehicle?.id ?? null,
    connectedAt: slot.connectedAt?.toISOString() ?? null,
  };
}

async function slotOf(
  ctx: RouteContext<{ stationId: number; slotId: number }>,
): Promise<PhysicalStationSlot> {
  const slot = await ctx.em.findOne(PhysicalStationSlot, {
    id: ctx.params.slotId,
    physicalStation: ctx.params.stationId,
  });
  if (!slot) throw new DomainError('PS405', `slot ${ctx.params.slotId} not found`);
  return slot;
}

export const listSlots = defineRoute({
  operationId: 'listPhysicalStationSlots',
  method: 'get',
  path: '/physical-stations/{stationId}/slots',
  interface: 'back',
  summary: 'Slots of a physical station, by number',
  tags,
  params: StationParams,
  access: onThePhysicalStation('STATION_READ'),
  responses: { 200: { description: 'Slots', schema: Type.Array(SlotSchema, { maxItems: 1000 }) } },
  errors: ['PS404'],
  async handler(ctx) {
    const station = await physicalStationOf(ctx);
    const slots = await ctx.em.find(
      PhysicalStationSlot,
      { physicalStation: station.id },
      { orderBy: { number: 'asc' } },
    );
    return ok(slots.map(toSlotDto));
  },
});

export const createSlot = defineRoute({
  operationId: 'createPhysicalStationSlot',
  method: 'post',
  path: '/physical-stations/{stationId}/slots',
  interface: 'back',
  summary: 'Add a slot to a physical station',
  tags,
  params: StationParams,
  body: Type.Object(
    {
      number: Int(1, 10000, { description: 'The number painted on the slot (what devices report).' }),
      state: Type.Optional(StringEnum(['VACANT', 'OUT_OF_ORDER'] as const)),
    },
    { additionalProperties: false },
  ),
  access: onThePhysicalStation('STATION_MANAGE'),
  responses: { 201: { description: 'Slot created', schema: SlotSchema } },
  errors: ['PS404', 'PS102'],
  async handler(ctx) {
    const station = await physicalStationOf(ctx);
    if (await ctx.em.count(PhysicalStationSlot, { physicalStation: station.id, number: ctx.body.number }))
      throw new DomainError('PS102', `slot ${ctx.body.number} exists`);
    const slot = ctx.em.create(PhysicalStationSlot, {
      physicalStation: station,
      number: ctx.body.number,
      state: ctx.body.state ?? 'VACANT',
    });
    await ctx.em.flush();
    return created(toSlotDto(slot));
  },
});

export const patchSlot = defineRoute({
  operationId: 'patchPhysicalStationSlot',
  method: 'patch',
  path: '/physical-stations/{stationId}/slots/{slotId}',
  interface: 'back',
  summary: 'Renumber a slot or mark it VACANT / OUT_OF_ORDER',
  description:
    'OCCUPIED comes only from connect-vehicle; a slot holding a vehicle changes state only by disconnecting it (PS103).',
  tags,
  params: SlotParams,
  body: Type.Object(
    {
      number: Type.Optional(Int(1, 10000)),
      state: Type.Optional(StringEnum(['VACANT', 'OUT_OF_ORDER'] as const)),
    },
    { additionalProperties: false },
  ),
  access: onThePhysicalStation('STATION_MANAGE'),
  responses: { 200: { description: 'The slot', schema: SlotSchema } },
  errors: ['PS404', 'PS405', 'PS102', 'PS103'],
  async handler(ctx) {
    const slot = await slotOf(ctx);
    const { number, state } = ctx.body;
    if (number !== undefined && number !== slot.number) {
      if (await ctx.em.count(PhysicalStationSlot, { physicalStation: ctx.params.stationId, number }))
        throw new DomainError('PS102', `slot ${number} exists`);
      slot.number = number;
    }
    if (state !== undefined && state !== slot.state) {
      if (slot.vehicle) throw new DomainError('PS103');
      slot.state = state;
    }
    await ctx.em.flush();
    return ok(toSlotDto(slot));
  },
});

export const deleteSlot = defineRoute({
  operationId: 'deletePhysicalStationSlot',
  method: 'delete',
  path: '/physical-stations/{stationId}/slots/{slotId}',
  interface: 'back',
  summary: 'Remove an empty slot',
  tags,
  params: SlotParams,
  access: onThePhysicalStation('STATION_MANAGE'),
  responses: { 204: { description: 'Deleted' } },
  errors: ['PS404', 'PS405', 'PS103'],
  async handler(ctx) {
    const slot = await slotOf(ctx);
    if (slot.vehicle) throw new DomainError('PS103');
    ctx.em.remove(slot);
    await ctx.em.flush();
    return noContent();
  },
});

export const connectVehicle = defineRoute({
  operationId: 'connectVehicleToSlot',
  method: 'post',
  path: '/physical-stations/{stationId}/slots/{slotId}/connect-vehicle',
  interface: 'back',
  summary: 'Dock a vehicle in a vacant slot',
  description:
    'Records PHYSICAL_STATION_SLOT_VEHICLE_CONNECTED; a slot elsewhere still recording the vehicle is vacated with PHYSICAL_STATION_SLOT_VEHICLE_ORPHANED.',
  tags,
  params: SlotParams,
  body: Type.Object({ vehicleId: Id() }, { additionalProperties: false }),
  access: onThePhysicalStation('STATION_MANAGE'),
  responses: { 200: { description: 'The slot', schema: SlotSchema } },
  errors: ['PS404', 'PS405', 'PS100', 'PS105', 'V404'],
  async handler(ctx) {
    const result = await inRequestTransaction(ctx, (tx) =>
      connectVehicleToSlot(tx, {
        stationId: ctx.params.stationId,
        slot: { id: ctx.params.slotId },
        vehicleId: ctx.body.vehicleId,
        source: 'command',
        actor: ctx.actor,
      }),
    );
    if (result.outcome !== 'CONNECTED') throw new DomainError('PS405');
    return ok(toSlotDto(result.slot));
  },
});

export const disconnectVehicle = defineRoute({
  operationId: 'disconnectVehicleFromSlot',
  method: 'post',
  path: '/physical-stations/{stationId}/slots/{slotId}/disconnect-vehicle',
  interface: 'back',
  summary: 'Undock the vehicle of a slot',
  description:
    'Records PHYSICAL_STATION_SLOT_VEHICLE_DISCONNECTED. With vehicleId, only that vehicle is undocked.',
  tags,
  params: SlotParams,
  body: Type.Object({ vehicleId: Type.Optional(Id()) }, { additionalProperties: false }),
  bodyRequired: false,
  access: onThePhysicalStation('STATION_MANAGE'),
  responses: { 200: { description: 'The slot', schema: SlotSchema } },
  errors: ['PS404', 'PS405', 'PS107'],
  async handler(ctx) {
    const slot = await inRequestTransaction(ctx, (tx) =>
      disconnectVehicleFromSlot(tx, {
        stationId: ctx.params.stationId,
        slot: { id: ctx.params.slotId },
        ...(ctx.body?.vehicleId !== undefined ? { vehicleId: ctx.body.vehicleId } : {}),
        source: 'command',
        actor: ctx.actor,
      }),
    );
    return ok(toSlotDto(slot!));
  },
});

export const physicalStationSlotRoutes = [
  listSlots,
  createSlot,
  patchSlot,
  deleteSlot,
  connectVehicle,
  disconnectVehicle,
];
