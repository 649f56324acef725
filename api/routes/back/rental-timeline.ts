// The rental's event timeline (`GET /RENTALS/{id}/events`): its own events, and with
// `includeRelatedEvents` its vehicle's events during the trip.
import { Rental } from '../../../db/entities/Rental.js';
import type { EntityTimeline } from './events.js';

/** RENTALS: the rental's events, on the rental's branch. */
export const rentalTimeline: EntityTimeline = {
  entityType: 'RENTALS',
  notFound: 'R404',
  async scope(em, rentalId) {
    const rental = await em.findOne(Rental, rentalId, { fields: ['branch'] });
    return rental ? { branchId: rental.branch.id } : null;
  },
  async events(em, rentalId, includeRelatedEvents) {
    if (!includeRelatedEvents) return { rentalId };
    const rental = await em.findOneOrFail(Rental, rentalId, { fields: ['vehicle', 'reservedAt', 'endedAt'] });
    return {
      $or: [
        { rentalId },
        {
          vehicleId: rental.vehicle.id,
          createdAt: { $gte: rental.reservedAt, ...(rental.endedAt ? { $lte: rental.endedAt } : {}) },
        },
      ],
    };
  },
};
