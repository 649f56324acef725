// MDS 2.0 provider: /vehicles and /vehicles/status, all or one by device_id (docs/mds.md). Real-time:
// read from the vehicle rows, their open rental, newest state-changing event and newest telemetry.
import { publishedVehicleIds, publishedVehiclePage, statusExtras } from '../../../db/mds.js';
import { defineRoute, ok, type RouteContext } from '../../kernel/route.js';
import {
  agencyAccess,
  beginMdsRead,
  linksOf,
  mdsHeaders,
  mdsReadErrors,
  mdsVehicle,
  mdsVehicleStatus,
  vehicleOfDevice,
  version,
} from './mds-representation.js';
import { DeviceIdParams, mdsBody, MdsVehicle, MdsVehicleStatus } from './mds-schemas.js';

const tags = ['MDS vehicles'];
/** Real-time answers may be cached this long (ms): the read model is as fresh as the last report. */
const TTL_MS = 0;
const paged = { defaultSize: 1000, maxSize: 5000 };

const VehiclesBody = mdsBody('MdsVehiclesBody', 'vehicles', MdsVehicle, { realtime: true });
const VehicleBody = mdsBody('MdsVehicleBody', 'vehicles', MdsVehicle, { realtime: true, single: true });
const StatusBody = mdsBody('MdsVehiclesStatusBody', 'vehicles_status', MdsVehicleStatus, { realtime: true });
const OneStatusBody = mdsBody('MdsVehicleStatusBody', 'vehicles_status', MdsVehicleStatus, {
  realtime: true,
  single: true,
});

const realtime = () => ({ version, last_updated: Date.now(), ttl: TTL_MS });

/** The published vehicle of the path's device_id (MDS404). */
async function vehicleOfPath(ctx: RouteContext<{ device_id: string }>) {
  const id = vehicleOfDevice(ctx.tenant, ctx.params.device_id, await publishedVehicleIds(ctx.em, ctx.tenant));
  const { rows } = await publishedVehiclePage(ctx.em, ctx.tenant, { ids: [id] });
  return rows[0]!;
}

export const mdsVehicles = defineRoute({
  operationId: 'mdsVehicles',
  method: 'get',
  path: '/vehicles',
  interface: 'mds',
  summary: 'Vehicles of the published systems (MDS get-vehicles)',
  description: 'Properties that do not change often, one page of vehicles by id.',
  tags,
  paged,
  access: agencyAccess,
  responses: {
    200: { description: 'Vehicles', schema: VehiclesBody, mediaType: mdsHeaders['Content-Type'] },
  },
  errors: [...mdsReadErrors],
  async handler(ctx) {
    await beginMdsRead(ctx);
    const { rows, total } = await publishedVehiclePage(ctx.em, ctx.tenant, ctx.page);
    return ok(
      {
        ...realtime(),
        links: linksOf(ctx, '/vehicles', total),
        vehicles: rows.map((row) => mdsVehicle(ctx.tenant, row)),
      },
      { total, headers: mdsHeaders },
    );
  },
});

export const mdsVehicleByDevice = defineRoute({
  operationId: 'mdsVehicleByDevice',
  method: 'get',
  path: '/vehicles/{device_id}',
  interface: 'mds',
  summary: 'One vehicle of the published systems (MDS get-vehicles-device_id)',
  tags,
  params: DeviceIdParams,
  access: agencyAccess,
  responses: {
    200: { description: 'The vehicle', schema: VehicleBody, mediaType: mdsHeaders['Content-Type'] },
  },
  errors: [...mdsReadErrors, 'MDS404'],
  async handler(ctx) {
    await beginMdsRead(ctx);
    const row = await vehicleOfPath(ctx);
    return ok({ ...realtime(), vehicles: [mdsVehicle(ctx.tenant, row)] }, { headers: mdsHeaders });
  },
});

export const mdsVehiclesStatus = defineRoute({
  operationId: 'mdsVehiclesStatus',
  method: 'get',
  path: '/vehicles/status',
  interface: 'mds',
  summary: 'Current state of the published vehicles (MDS get-vehicles-status)',
  description:
    'Each vehicle with its MDS state now (docs/mds.md, "Vehicle states"), the event that led there and its last telemetry; one page by id.',
  tags,
  paged,
  access: agencyAccess,
  responses: {
    200: { description: 'Vehicle states', schema: StatusBody, mediaType: mdsHeaders['Content-Type'] },
  },
  errors: [...mdsReadErrors],
  async handler(ctx) {
    await beginMdsRead(ctx);
    const { rows, total } = await publishedVehiclePage(ctx.em, ctx.tenant, ctx.page);
    const extras = await statusExtras(
      ctx.em,
      ctx.tenant,
      rows.map((row) => row.id),
    );
    return ok(
      {
        ...realtime(),
        links: linksOf(ctx, '/vehicles/status', total),
        vehicles_status: rows.map((row) => mdsVehicleStatus(ctx.tenant, row, extras.get(row.id))),
      },
      { total, headers: mdsHeaders },
    );
  },
});

export const mdsVehicleStatusByDevice = defineRoute({
  operationId: 'mdsVehicleStatusByDevice',
  method: 'get',
  path: '/vehicles/status/{device_id}',
  interface: 'mds',
  summary: 'Current state of one published vehicle (MDS get-vehicles-status-device_id)',
  tags,
  params: DeviceIdParams,
  access: agencyAccess,
  responses: {
    200: { description: 'The vehicle state', schema: OneStatusBody, mediaType: mdsHeaders['Content-Type'] },
  },
  errors: [...mdsReadErrors, 'MDS404'],
  async handler(ctx) {
    await beginMdsRead(ctx);
    const row = await vehicleOfPath(ctx);
    const extras = await statusExtras(ctx.em, ctx.tenant, [row.id]);
    return ok(
      { ...realtime(), vehicles_status: [mdsVehicleStatus(ctx.tenant, row, extras.get(row.id))] },
      { headers: mdsHeaders },
    );
  },
});

/** `/vehicles/status` before `/vehicles/{device_id}` is the kernel's business (fixed segments first). */
export const mdsVehicleRoutes = [
  mdsVehicles,
  mdsVehiclesStatus,
  mdsVehicleByDevice,
  mdsVehicleStatusByDevice,
];
