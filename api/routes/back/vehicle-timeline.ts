// The vehicle's event timeline (`GET /VEHICLES/{id}/events`): commands, device reports, service changes,
// and with `includeRelatedEvents` the events of its rentals that do not name the vehicle.
import { Rental } from '../../../db/entities/Rental.js';
import { Vehicle } from '../../../db/entities/Vehicle.js';
import type { EntityTimeline } from './events.js';

/** VEHICLES: the vehicle's events; VEHICLE_EVENT_READ on the vehicle's branch. */
export const vehicleTimeline: EntityTimeline = {
  entityType: 'VEHICLES',
  notFound: 'V404',
  family: 'VEHICLE',
  async scope(em, vehicleId) {
    const vehicle = await em.findOne(Vehicle, vehicleId, { fields: ['branch'] });
    return vehicle ? { branchId: vehicle.branch.id } : null;
  },
  async selection(em, vehicleId, includeRelatedEvents) {
    if (!includeRelatedEvents) return { column: 'vehicle_id', id: vehicleId };
    const rentals = await em.find(Rental, { vehicle: vehicleId }, { fields: ['id'] });
    return { column: 'vehicle_id', id: vehicleId, rentalIds: rentals.map((rental) => rental.id) };
  },
};
