// The customer's event timeline (`GET /CUSTOMERS/{id}/events`): sign-in and profile events, and the
// events of the customer's rentals and bookings; with `includeRelatedEvents` also the vehicles' events
// during the customer's trips. A customer belongs to the whole tenant, so the timeline needs
// USER_EVENT_READ on some branch and shows the events the caller's family permissions cover.
import { Customer } from '../../../db/entities/Customer.js';
import { Rental } from '../../../db/entities/Rental.js';
import { tripOf, type EntityTimeline } from './events.js';

/** CUSTOMERS: every event naming the customer, confined to what the caller reads. */
export const customerTimeline: EntityTimeline = {
  entityType: 'CUSTOMERS',
  notFound: 'U106',
  family: 'USER',
  scope: async (em, customerId) => ((await em.count(Customer, { id: customerId })) > 0 ? 'readable' : null),
  async selection(em, customerId, includeRelatedEvents) {
    if (!includeRelatedEvents) return { column: 'customer_id', id: customerId };
    const rentals = await em.find(
      Rental,
      { customer: customerId },
      { fields: ['vehicle', 'reservedAt', 'endedAt'], orderBy: { id: 'asc' } },
    );
    return {
      column: 'customer_id',
      id: customerId,
      trips: rentals.map((rental) => tripOf(rental)),
    };
  },
};
