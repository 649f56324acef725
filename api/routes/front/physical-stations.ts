// The app's view of physical stations: where to dock, with their descriptions, images and icons.
import { Type } from '@sinclair/typebox';
import { PhysicalStation } from '../../../db/entities/PhysicalStation.js';
import { defineRoute, ok } from '../../kernel/route.js';
import { Id } from '../../kernel/schemas.js';
import { PhysicalStationSchema, toPhysicalStationDto } from '../../shared/physical-station-representation.js';
import { appVisibleBranch, loadAppBranch } from './branches.js';

export const listAppPhysicalStations = defineRoute({
  operationId: 'listAppPhysicalStations',
  method: 'get',
  path: '/physical-stations',
  interface: 'front',
  summary: 'Physical stations open to customers (OPERATIONAL or TEMPORARY_CLOSED)',
  tags: ['Stations'],
  query: Type.Object({ branchId: Type.Optional(Id()) }),
  paged: { defaultSize: 100, maxSize: 500 },
  access: { anyCaller: 'only stations of public branches in service, which every app shows, are listed.' },
  responses: {
    200: { description: 'One page of physical stations', schema: Type.Array(PhysicalStationSchema) },
  },
  errors: ['B404'],
  async handler({ em, query, page }) {
    if (query.branchId !== undefined) await loadAppBranch(em, query.branchId);
    const where: Record<string, unknown> = {
      state: { $in: ['OPERATIONAL', 'TEMPORARY_CLOSED'] },
      branch: query.branchId ?? appVisibleBranch,
    };
    const [rows, total] = await em.findAndCount(PhysicalStation, where, {
      orderBy: { name: 'asc', id: 'asc' },
      limit: page.size,
      offset: page.offset,
    });
    return ok(await Promise.all(rows.map((row) => toPhysicalStationDto(em, row))), { total });
  },
});

export const appPhysicalStationRoutes = [listAppPhysicalStations];
