// What every MDS route shares (docs/mds.md): the agency check and version negotiation before any read,
// the MDS ids of fleetflow rows, the objects of the answers built from the read model, and paging links.
import type { Static } from '@sinclair/typebox';
import { DomainError } from '../../../domain/errors.js';
import {
  asMdsPropulsionType,
  currentEventType,
  isBatteryLow,
  MDS_CONTENT_TYPE,
  MDS_VERSION,
  mdsStateOf,
  modeOfVehicleType,
  rentalComponentOf,
  type MdsComponents,
  type MdsMode,
  type MdsTransition,
} from '../../../domain/mds.js';
import { assertMdsVersionAccepted, pagingLinks } from '../../../domain/mds-query.js';
import { mdsId } from '../../../db/mds-ids.js';
import type { MdsSourceEvent, MdsStatusExtras, MdsTelemetryRow, MdsVehicleRow } from '../../../db/mds.js';
import { MdsAgency } from '../../../db/entities/MdsAgency.js';
import { loadConfig } from '../../../platform/config.js';
import type { RouteContext } from '../../kernel/route.js';
import type { MdsEvent, MdsTelemetry, MdsVehicle, MdsVehicleStatus } from './mds-schemas.js';

/** The access of every provider route: an agency token of the path's tenant, whose credential is active. */
export const agencyAccess = {
  anyCaller:
    "an agency's token (scope `mds`) of this tenant; the handler refuses a revoked credential (MDS411) and shows only vehicles of the tenant's published systems",
};

/** The catalogue codes every provider route may answer. */
export const mdsReadErrors = ['MDS406', 'MDS411'] as const;

/** Checks the caller's credential is still active and the Accept header asks for MDS 2.0. */
export async function beginMdsRead(ctx: RouteContext, answers?: string[]): Promise<void> {
  assertMdsVersionAccepted(ctx.header('accept'), answers);
  const principal = ctx.principal;
  if (principal?.subjectType !== 'AGENCY') throw new DomainError('0005', 'MDS answers agency tokens only');
  const agency = await ctx.em.findOne(MdsAgency, { clientId: principal.subjectId }, { fields: ['active'] });
  if (!agency?.active) throw new DomainError('MDS411');
}

/** The MDS answer's headers. */
export const mdsHeaders = { 'Content-Type': MDS_CONTENT_TYPE };

/** The paging links of a paged answer: absolute URLs below PUBLIC_BASE_URL, the request's query kept. */
export function linksOf(ctx: RouteContext, path: string, total: number) {
  const base = loadConfig().publicBaseUrl.replace(/\/+$/, '');
  const query = ctx.query as Record<string, unknown>;
  const urlOfPage = (page: number) => {
    const params = new URLSearchParams();
    for (const [name, value] of Object.entries(query))
      if (name !== 'page' && name !== 'size' && value !== undefined) params.set(name, String(value));
    params.set('page', String(page));
    params.set('size', String(ctx.page.size));
    return `${base}${ctx.baseUrl}${path}?${params.toString()}`;
  };
  return pagingLinks(urlOfPage, ctx.page.page, ctx.page.size, total);
}

/** The version field of every body. */
export const version = MDS_VERSION;

const propulsionsOf = (row: MdsVehicleRow) => {
  const propulsion = asMdsPropulsionType(row.propulsionType);
  return propulsion ? [propulsion] : ['electric' as const];
};

/** The vehicle's MDS mode (by its feed vehicle type's form factor). */
export const modeOf = (row: Pick<MdsVehicleRow, 'formFactor'>): MdsMode => modeOfVehicleType(row.formFactor);

/** A published vehicle as MDS describes it (models/vehicle.yaml). */
export function mdsVehicle(tenant: string, row: MdsVehicleRow): Static<typeof MdsVehicle> {
  const attributes = {
    ...(row.make ? { make: row.make.slice(0, 255) } : {}),
    ...(row.model ? { model: row.model.slice(0, 255) } : {}),
  };
  return {
    device_id: mdsId(tenant, 'device', row.id),
    provider_id: mdsId(tenant, 'provider'),
    vehicle_id: (row.licensePlate ?? row.code).slice(0, 255),
    vehicle_type: row.formFactor,
    propulsion_types: propulsionsOf(row),
    // Car share requires year, make, model, colour, VIN and plate together, which fleetflow does not keep.
    ...(modeOf(row) === 'micromobility' && Object.keys(attributes).length
      ? { vehicle_attributes: attributes }
      : {}),
    ...(row.maxSpeedKmh !== null && row.maxSpeedKmh >= 0
      ? { maximum_speed: Math.round(row.maxSpeedKmh) }
      : {}),
  };
}

/** The current components of a vehicle, from its row. */
export const currentComponents = (row: MdsVehicleRow): MdsComponents => ({
  rental: rentalComponentOf(row.rentalState),
  service: row.serviceStateV2,
  batteryLow: isBatteryLow(row.batteryLevel),
  offline: row.offline,
});

const percent = (value: number | null | undefined) =>
  value === null || value === undefined || !Number.isFinite(value)
    ? {}
    : { battery_percent: Math.min(100, Math.max(0, Math.round(value))) };

const gps = (lat: number, lng: number, speedKmh?: number | null) => ({
  lat,
  lng,
  ...(speedKmh !== null && speedKmh !== undefined && Number.isFinite(speedKmh)
    ? { speed: speedKmh / 3.6 }
    : {}),
});

const at = (date: Date | string) => Math.max(new Date(date).getTime(), 1514764800000);

/** `/vehicles/status` of a vehicle: its state now, the event that led there, and its last telemetry. */
export function mdsVehicleStatus(
  tenant: string,
  row: MdsVehicleRow,
  extras: MdsStatusExtras | undefined,
): Static<typeof MdsVehicleStatus> {
  const mode = modeOf(row);
  const components = currentComponents(row);
  const device = mdsId(tenant, 'device', row.id);
  const provider = mdsId(tenant, 'provider');
  const tripIds = extras?.openRentalId != null ? [mdsId(tenant, 'trip', extras.openRentalId)] : undefined;
  const position = extras?.lastEventPosition ?? { lat: row.latitude, lng: row.longitude };
  const lastEvent: Static<typeof MdsEvent> = {
    device_id: device,
    provider_id: provider,
    // The source event's step 0, as /events names it; a vehicle without any is named by its own row.
    event_id: extras?.lastEventId
      ? mdsId(tenant, 'event', `${extras.lastEventId}.0`)
      : mdsId(tenant, 'event', `vehicle-${row.id}`),
    vehicle_state: mdsStateOf(components, mode),
    event_types: [currentEventType(components, mode)],
    timestamp: at(extras?.lastEventAt ?? row.createdAt),
    location: gps(position.lat, position.lng),
    ...(tripIds ? { trip_ids: tripIds } : {}),
    ...percent(row.stateOfCharge),
  };
  const telemetry: Static<typeof MdsTelemetry> = extras?.telemetryId
    ? {
        device_id: device,
        provider_id: provider,
        telemetry_id: mdsId(tenant, 'telemetry', extras.telemetryId),
        timestamp: at(extras.telemetryAt!),
        trip_ids: tripIds ?? null,
        journey_id: tripIds?.[0] ?? null,
        location: gps(extras.telemetryLatitude!, extras.telemetryLongitude!, extras.telemetrySpeedKmh),
        ...percent(extras.telemetryStateOfCharge),
      }
    : {
        // Never reported: the position the vehicle was given, as of its last change.
        device_id: device,
        provider_id: provider,
        telemetry_id: mdsId(tenant, 'telemetry', `vehicle-${row.id}`),
        timestamp: at(row.updatedAt),
        trip_ids: tripIds ?? null,
        journey_id: tripIds?.[0] ?? null,
        location: gps(row.latitude, row.longitude),
        ...percent(row.stateOfCharge),
      };
  return { device_id: device, provider_id: provider, last_event: lastEvent, last_telemetry: telemetry };
}

/** One MDS event of the fold: the source event's id and step name it, its position or the vehicle's. */
export function mdsEvent(
  tenant: string,
  row: MdsVehicleRow,
  source: MdsSourceEvent,
  transition: MdsTransition,
): Static<typeof MdsEvent> {
  const position = source.vehiclePosition ?? source.position ?? { lat: row.latitude, lng: row.longitude };
  const stateOfCharge = source.payload?.stateOfCharge;
  return {
    device_id: mdsId(tenant, 'device', row.id),
    provider_id: mdsId(tenant, 'provider'),
    event_id: mdsId(tenant, 'event', `${source.id}.${transition.step}`),
    vehicle_state: transition.state,
    event_types: [transition.eventType],
    timestamp: at(source.createdAt),
    location: gps(position.lat, position.lng),
    ...(source.rentalId !== null ? { trip_ids: [mdsId(tenant, 'trip', source.rentalId)] } : {}),
    ...(typeof stateOfCharge === 'number' ? percent(stateOfCharge) : {}),
  };
}

/** One telemetry message (models/telemetry.yaml); during a rental it names the rental's trip and journey. */
export function mdsTelemetry(tenant: string, row: MdsTelemetryRow): Static<typeof MdsTelemetry> {
  const trip = row.rentalId !== null ? mdsId(tenant, 'trip', row.rentalId) : null;
  return {
    device_id: mdsId(tenant, 'device', row.vehicleId),
    provider_id: mdsId(tenant, 'provider'),
    telemetry_id: mdsId(tenant, 'telemetry', row.id),
    timestamp: at(row.reportedAt),
    trip_ids: trip ? [trip] : null,
    journey_id: trip,
    location: gps(row.latitude, row.longitude, row.speedKmh),
    ...percent(row.stateOfCharge),
  };
}

/** The id of a published vehicle named by its MDS device id (MDS404 when none is). */
export function vehicleOfDevice(tenant: string, deviceId: string, vehicleIds: readonly number[]): number {
  const wanted = deviceId.toLowerCase();
  const found = vehicleIds.find((id) => mdsId(tenant, 'device', id) === wanted);
  if (found === undefined) throw new DomainError('MDS404', `no published vehicle has device_id ${deviceId}`);
  return found;
}
