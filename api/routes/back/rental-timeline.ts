// The rental's event timeline (`GET /RENTALS/{id}/events`): its own events, and with
// `includeRelatedEvents` its vehicle's events during the trip.
import { Rental } from '../../../db/entities/Rental.js';
import { tripOf, type EntityTimeline } from './events.js';

/** RENTALS: the rental's events; RENTAL_EVENT_READ on the rental's branch. */
export const rentalTimeline: EntityTimeline = {
  entityType: 'RENTALS',
  notFound: 'R404',
  family: 'RENTAL',
  async scope(em, rentalId) {
    const rental = await em.findOne(Rental, rentalId, { fields: ['branch'] });
    return rental ? { branchId: rental.branch.id } : null;
  },
  async selection(em, rentalId, includeRelatedEvents) {
    if (!includeRelatedEvents) return { column: 'rental_id', id: rentalId };
    const rental = await em.findOneOrFail(Rental, rentalId, { fields: ['vehicle', 'reservedAt', 'endedAt'] });
    return { column: 'rental_id', id: rentalId, trips: [tripOf(rental)] };
  },
};
