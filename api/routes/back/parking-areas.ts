// The parking area of a physical station: its geometry, capacity and reserved places, and which vehicles of
// the station's branch are parked inside it.
import { Type, type Static } from '@sinclair/typebox';
import { ParkingArea } from '../../../db/entities/ParkingArea.js';
import { PhysicalStation } from '../../../db/entities/PhysicalStation.js';
import { Vehicle } from '../../../db/entities/Vehicle.js';
import type { EntityManager } from '../../../db/orm.js';
import { DomainError } from '../../../domain/errors.js';
import { geofenceContains, type GeofenceGeometry } from '../../../domain/geofence.js';
import { created, defineRoute, noContent, ok, type RouteContext } from '../../kernel/route.js';
import { component, Id, Int } from '../../kernel/schemas.js';
import { Geofence } from './areas.js';
import { onThePhysicalStation, physicalStationOf, StationParams } from './physical-stations.js';
import { checkGeofence } from './stations.js';

const tags = ['Stations'];

const ParkingAreaSchema = component(
  'ParkingArea',
  Type.Object(
    {
      physicalStationId: Id(),
      capacity: Type.Integer(),
      geometry: Geofence,
      reservedCount: Type.Integer(),
      parkedVehicleIds: Type.Array(Id(), {
        description: "Vehicles of the station's branch inside the geometry.",
      }),
      freeCount: Type.Integer({ description: 'capacity − parked − reserved, at least 0.' }),
    },
    { additionalProperties: false },
  ),
);

const parkingAreaFields = {
  capacity: Int(0, 100000),
  geometry: Geofence,
  reservedCount: Int(0, 100000),
};

async function toParkingAreaDto(
  em: EntityManager,
  station: PhysicalStation,
  area: ParkingArea,
): Promise<Static<typeof ParkingAreaSchema>> {
  const vehicles = await em.find(
    Vehicle,
    { branch: station.branch.id, latitude: { $ne: null }, longitude: { $ne: null } },
    { fields: ['id', 'latitude', 'longitude'] },
  );
  const parked = vehicles
    .filter((vehicle) => geofenceContains(area.geometry, { lat: vehicle.latitude!, lng: vehicle.longitude! }))
    .map((vehicle) => vehicle.id);
  return {
    physicalStationId: station.id,
    capacity: area.capacity,
    geometry: area.geometry,
    reservedCount: area.reservedCount,
    parkedVehicleIds: parked,
    freeCount: Math.max(0, area.capacity - parked.length - area.reservedCount),
  };
}

async function parkingAreaOf(ctx: RouteContext<{ stationId: number }>): Promise<ParkingArea> {
  const area = await ctx.em.findOne(ParkingArea, { physicalStation: ctx.params.stationId });
  if (!area) throw new DomainError('PS406');
  return area;
}

function checkParkingArea(capacity: number, reservedCount: number, geometry: unknown): void {
  checkGeofence(geometry);
  if (reservedCount > capacity)
    throw new DomainError('PS106', `${reservedCount} reserved of ${capacity} places`);
}

export const getParkingArea = defineRoute({
  operationId: 'getParkingArea',
  method: 'get',
  path: '/physical-stations/{stationId}/parking-area',
  interface: 'back',
  summary: 'The parking area of a physical station, with the vehicles parked in it',
  tags,
  params: StationParams,
  access: onThePhysicalStation('STATION_READ'),
  responses: { 200: { description: 'The parking area', schema: ParkingAreaSchema } },
  errors: ['PS404', 'PS406'],
  async handler(ctx) {
    return ok(await toParkingAreaDto(ctx.em, await physicalStationOf(ctx), await parkingAreaOf(ctx)));
  },
});

export const createParkingArea = defineRoute({
  operationId: 'createParkingArea',
  method: 'post',
  path: '/physical-stations/{stationId}/parking-area',
  interface: 'back',
  summary: 'Give a physical station its parking area',
  tags,
  params: StationParams,
  body: Type.Object(
    {
      capacity: parkingAreaFields.capacity,
      geometry: parkingAreaFields.geometry,
      reservedCount: Type.Optional(parkingAreaFields.reservedCount),
    },
    { additionalProperties: false },
  ),
  access: onThePhysicalStation('STATION_MANAGE'),
  responses: { 201: { description: 'Parking area created', schema: ParkingAreaSchema } },
  errors: ['PS404', 'PS104', 'PS106', 'GF100'],
  async handler(ctx) {
    const station = await physicalStationOf(ctx);
    const { capacity, geometry, reservedCount = 0 } = ctx.body;
    checkParkingArea(capacity, reservedCount, geometry);
    if (await ctx.em.count(ParkingArea, { physicalStation: station.id })) throw new DomainError('PS104');
    const area = ctx.em.create(ParkingArea, {
      physicalStation: station,
      capacity,
      geometry: geometry as GeofenceGeometry,
      reservedCount,
    });
    await ctx.em.flush();
    return created(await toParkingAreaDto(ctx.em, station, area));
  },
});

export const patchParkingArea = defineRoute({
  operationId: 'patchParkingArea',
  method: 'patch',
  path: '/physical-stations/{stationId}/parking-area',
  interface: 'back',
  summary: 'Change the parking area of a physical station',
  tags,
  params: StationParams,
  body: Type.Partial(Type.Object(parkingAreaFields), { additionalProperties: false }),
  access: onThePhysicalStation('STATION_MANAGE'),
  responses: { 200: { description: 'The parking area', schema: ParkingAreaSchema } },
  errors: ['PS404', 'PS406', 'PS106', 'GF100'],
  async handler(ctx) {
    const station = await physicalStationOf(ctx);
    const area = await parkingAreaOf(ctx);
    const capacity = ctx.body.capacity ?? area.capacity;
    const reservedCount = ctx.body.reservedCount ?? area.reservedCount;
    const geometry = (ctx.body.geometry as GeofenceGeometry | undefined) ?? area.geometry;
    checkParkingArea(capacity, reservedCount, geometry);
    Object.assign(area, { capacity, reservedCount, geometry });
    await ctx.em.flush();
    return ok(await toParkingAreaDto(ctx.em, station, area));
  },
});

export const deleteParkingArea = defineRoute({
  operationId: 'deleteParkingArea',
  method: 'delete',
  path: '/physical-stations/{stationId}/parking-area',
  interface: 'back',
  summary: 'Remove the parking area of a physical station',
  tags,
  params: StationParams,
  access: onThePhysicalStation('STATION_MANAGE'),
  description: 'Idempotent: a station without a parking area answers 204 as well.',
  responses: { 204: { description: 'Deleted, or there was none' } },
  errors: ['PS404'],
  async handler(ctx) {
    const station = await physicalStationOf(ctx);
    const area = await ctx.em.findOne(ParkingArea, { physicalStation: station.id });
    if (area) await ctx.em.remove(area).flush();
    return noContent();
  },
});

export const parkingAreaRoutes = [getParkingArea, createParkingArea, patchParkingArea, deleteParkingArea];
