// The customer's event timeline (`GET /CUSTOMERS/{id}/events`): sign-in and profile events, and the
// events of the customer's rentals and bookings. A customer belongs to the whole tenant, so the caller
// sees the events of the branches it holds EVENT_READ on, and those of no branch.
import { Customer } from '../../../db/entities/Customer.js';
import type { EntityTimeline } from './events.js';

/** CUSTOMERS: every event naming the customer, confined to the caller's readable branches. */
export const customerTimeline: EntityTimeline = {
  entityType: 'CUSTOMERS',
  notFound: 'U106',
  scope: async (em, customerId) => ((await em.count(Customer, { id: customerId })) > 0 ? 'readable' : null),
  events: async (_em, customerId) => ({ customerId }),
};
