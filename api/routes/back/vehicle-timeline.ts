// The vehicle's event timeline (`GET /VEHICLES/{id}/events`): commands, device reports, service changes.
import { Vehicle } from '../../../db/entities/Vehicle.js';
import type { EntityTimeline } from './events.js';

/** VEHICLES: the vehicle's events, on the vehicle's branch. */
export const vehicleTimeline: EntityTimeline = {
  entityType: 'VEHICLES',
  notFound: 'V404',
  async scope(em, vehicleId) {
    const vehicle = await em.findOne(Vehicle, vehicleId, { fields: ['branch'] });
    return vehicle ? { branchId: vehicle.branch.id } : null;
  },
  events: async (_em, vehicleId) => ({ vehicleId }),
};
