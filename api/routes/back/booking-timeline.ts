// The booking's event timeline (`GET /BOOKINGS/{id}/events`): its own events and its rental's (they carry
// the booking's id), and with `includeRelatedEvents` the vehicle's events during the rental's trip.
import { Booking } from '../../../db/entities/Booking.js';
import { Rental } from '../../../db/entities/Rental.js';
import { tripOf, type EntityTimeline } from './events.js';

/** BOOKINGS: the booking's events; BOOKING_EVENT_READ on the booking's branch. */
export const bookingTimeline: EntityTimeline = {
  entityType: 'BOOKINGS',
  notFound: 'B300',
  family: 'BOOKING',
  async scope(em, bookingId) {
    const booking = await em.findOne(Booking, bookingId, { fields: ['branch'] });
    return booking ? { branchId: booking.branch.id } : null;
  },
  async selection(em, bookingId, includeRelatedEvents) {
    if (!includeRelatedEvents) return { column: 'booking_id', id: bookingId };
    const booking = await em.findOneOrFail(Booking, bookingId, { fields: ['rental'] });
    const rental = booking.rental
      ? await em.findOne(Rental, booking.rental.id, { fields: ['vehicle', 'reservedAt', 'endedAt'] })
      : null;
    return {
      column: 'booking_id',
      id: bookingId,
      trips: rental ? [tripOf(rental)] : [],
    };
  },
};
