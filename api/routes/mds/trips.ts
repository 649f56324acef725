// MDS 2.0 provider: /trips (rentals that ended in a past UTC hour, their distance along the route the
// telemetry history recorded), /telemetry (one past hour of it) and /reports/{YYYY-MM}.csv (docs/mds.md).
import { Type, type Static } from '@sinclair/typebox';
import { costInMinorUnits, modeOfVehicleType, reportCount, routeLengthMeters } from '../../../domain/mds.js';
import { assertHourOver, parseMdsHour, reportMonth } from '../../../domain/mds-query.js';
import {
  endedTrips,
  monthlyTripCounts,
  telemetryPage,
  tripRoutes,
  type MdsTripRow,
} from '../../../db/mds.js';
import { mdsId } from '../../../db/mds-ids.js';
import { defineRoute, ok } from '../../kernel/route.js';
import { Str } from '../../kernel/schemas.js';
import {
  agencyAccess,
  beginMdsRead,
  linksOf,
  mdsHeaders,
  mdsReadErrors,
  mdsTelemetry,
  version,
} from './mds-representation.js';
import { HourText, mdsBody, MdsTelemetry, MdsTrip } from './mds-schemas.js';

const paged = { defaultSize: 1000, maxSize: 5000 };
const TripsBody = mdsBody('MdsTripsBody', 'trips', MdsTrip);
const TelemetryBody = mdsBody('MdsTelemetryBody', 'telemetry', MdsTelemetry);

/** An ended rental as an MDS trip; `route` is what the vehicle reported while it ran. */
function mdsTrip(
  tenant: string,
  row: MdsTripRow,
  route: ReadonlyArray<{ lat: number; lng: number }>,
): Static<typeof MdsTrip> {
  const trip = mdsId(tenant, 'trip', row.rentalId);
  const start = new Date(row.startedAt).getTime();
  const end = new Date(row.endedAt).getTime();
  const carShare = modeOfVehicleType(row.formFactor) === 'car-share';
  const cost =
    row.totalGross !== null && row.currency !== null
      ? costInMinorUnits(row.totalGross, row.currency)
      : undefined;
  return {
    provider_id: mdsId(tenant, 'provider'),
    device_id: mdsId(tenant, 'device', row.vehicleId),
    trip_id: trip,
    ...(carShare ? { journey_id: trip } : {}),
    trip_type: [carShare ? 'private' : 'rider'],
    start_time: Math.max(start, 1514764800000),
    end_time: Math.max(end, 1514764800000),
    start_location: { lat: row.startPosition.lat, lng: row.startPosition.lng },
    end_location: { lat: row.endPosition.lat, lng: row.endPosition.lng },
    duration: Math.max(0, Math.round((end - start) / 1000)),
    distance: routeLengthMeters([row.startPosition, ...route, row.endPosition]),
    // What the customer was billed for the rental (its invoice's gross total), when it was billed.
    ...(cost !== undefined ? { actual_cost: cost, currency: row.currency!.toUpperCase() } : {}),
  };
}

export const mdsTrips = defineRoute({
  operationId: 'mdsTrips',
  method: 'get',
  path: '/trips',
  interface: 'mds',
  summary: 'Trips that ended in one past UTC hour (MDS get-trips-end_time)',
  description:
    'Rentals of published vehicles that started and ended (their end in the hour), one page by rental; the distance follows the telemetry the vehicle reported during the rental, which /telemetry lists with the trip id.',
  tags: ['MDS trips'],
  paged,
  query: Type.Object({ end_time: HourText('The UTC hour the trips ended in, `YYYY-MM-DDTHH`.') }),
  access: agencyAccess,
  responses: { 200: { description: 'Trips', schema: TripsBody, mediaType: mdsHeaders['Content-Type'] } },
  errors: [...mdsReadErrors, 'MDS400', 'MDS405'],
  async handler(ctx) {
    await beginMdsRead(ctx);
    const window = assertHourOver(parseMdsHour(ctx.query.end_time, 'end_time'), new Date());
    const { rows, total } = await endedTrips(ctx.em, ctx.tenant, window, ctx.page);
    const routes = await tripRoutes(
      ctx.em,
      ctx.tenant,
      rows.map((row) => row.rentalId),
    );
    return ok(
      {
        version,
        links: linksOf(ctx, '/trips', total),
        trips: rows.map((row) => mdsTrip(ctx.tenant, row, routes.get(row.rentalId) ?? [])),
      },
      { total, headers: mdsHeaders },
    );
  },
});

export const mdsTelemetryHour = defineRoute({
  operationId: 'mdsTelemetry',
  method: 'get',
  path: '/telemetry',
  interface: 'mds',
  summary: 'Telemetry of one past UTC hour (MDS get-telemetry-telemetry_time)',
  description:
    'Every position a published vehicle reported in the hour, one page by message; during a rental with its trip id (and journey id).',
  tags: ['MDS telemetry'],
  paged,
  query: Type.Object({ telemetry_time: HourText('The UTC hour, `YYYY-MM-DDTHH`.') }),
  access: agencyAccess,
  responses: {
    200: { description: 'Telemetry', schema: TelemetryBody, mediaType: mdsHeaders['Content-Type'] },
  },
  errors: [...mdsReadErrors, 'MDS400', 'MDS405'],
  async handler(ctx) {
    await beginMdsRead(ctx);
    const window = assertHourOver(parseMdsHour(ctx.query.telemetry_time, 'telemetry_time'), new Date());
    const { rows, total } = await telemetryPage(ctx.em, ctx.tenant, window, ctx.page);
    return ok(
      {
        version,
        links: linksOf(ctx, '/telemetry', total),
        telemetry: rows.map((row) => mdsTelemetry(ctx.tenant, row)),
      },
      { total, headers: mdsHeaders },
    );
  },
});

/** The columns of a report, in the order MDS requires (models/report.yaml). */
export const REPORT_HEADER =
  'provider_id,start_date,duration,special_group_type,geography_id,vehicle_type,trip_count,rider_count';

export const mdsReport = defineRoute({
  operationId: 'mdsReport',
  method: 'get',
  path: '/reports/{filename}',
  interface: 'mds',
  summary: 'Monthly report (MDS get-reports-filename)',
  description:
    'Trips started in the month and their distinct riders per vehicle type, for all riders (fleetflow knows no special groups) over the whole published area (empty geography_id); counts from 1 to 10 are -1. Only months that are over.',
  tags: ['MDS reports'],
  params: Type.Object({ filename: Str(40, { description: 'The month, `YYYY-MM.csv`.' }) }),
  access: agencyAccess,
  responses: { 200: { description: 'The report (CSV)', files: ['text/csv'] } },
  errors: [...mdsReadErrors, 'MDS407'],
  async handler(ctx) {
    await beginMdsRead(ctx, ['text/csv']);
    const month = reportMonth(ctx.params.filename, new Date());
    const counts = await monthlyTripCounts(ctx.em, ctx.tenant, month);
    const provider = mdsId(ctx.tenant, 'provider');
    const lines = counts.map(
      (row) =>
        `${provider},${month.label},P1M,all_riders,,${row.vehicleType},${reportCount(row.trips)},${reportCount(row.riders)}`,
    );
    const text = `${[REPORT_HEADER, ...lines].join('\n')}\n`;
    return ok({
      contentType: 'text/csv; charset=utf-8',
      fileName: ctx.params.filename,
      data: new TextEncoder().encode(text),
    });
  },
});

export const mdsTripRoutes = [mdsTrips, mdsTelemetryHour, mdsReport];
