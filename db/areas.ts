import type { EntityManager } from '@mikro-orm/postgresql';
import { prepareAreas, type PreparedAreas } from '../domain/geofence.js';
import { Area } from './entities/Area.js';
import { branchAncestry } from './branches.js';
import { readCacheOf } from './read-cache.js';

/**
 * The geofence of a branch, prepared for lookups (`areasAt`, `geofenceVerdict` of domain/geofence.ts):
 * the active areas of the branch and of its ancestors (a city's business area covers its districts).
 * Rentals call it for their end requirements, fleet KPIs for vehicles outside business areas.
 */
export async function loadBranchGeofence(
  em: EntityManager,
  tenant: string,
  branchId: number,
): Promise<PreparedAreas> {
  // Prepared once per read-cache lifetime (area and branch writes empty it): every rental END reads it, and
  // preparing indexes every polygon. Readers only look up; nobody changes a prepared geofence.
  return readCacheOf(em).get(em, `geofence:${tenant}:${branchId}`, async () => {
    const branches = await branchAncestry(em, tenant, branchId);
    const areas = await em.find(
      Area,
      { branch: { $in: branches }, status: 'ACTIVE' },
      { orderBy: { createdAt: 'asc', id: 'asc' } },
    );
    return prepareAreas(
      areas.map((area) => ({
        id: area.id,
        status: area.status,
        vehicleTypeIds: area.vehicleTypeIds,
        geofence: area.geofence,
        policies: area.policies,
      })),
    );
  });
}
