// The booking's event timeline (`GET /BOOKINGS/{id}/events`): its own events and its rental's.
import { Booking } from '../../../db/entities/Booking.js';
import type { EntityTimeline } from './events.js';

/** BOOKINGS: the booking's events, on the booking's branch. */
export const bookingTimeline: EntityTimeline = {
  entityType: 'BOOKINGS',
  notFound: 'B300',
  async scope(em, bookingId) {
    const booking = await em.findOne(Booking, bookingId, { fields: ['branch'] });
    return booking ? { branchId: booking.branch.id } : null;
  },
  events: async (_em, bookingId) => ({ bookingId }),
};
