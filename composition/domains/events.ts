import { Event } from '../../db/entities/Event.js';
import { entityEventRoutes } from '../../api/routes/back/events.js';
import { userEventRoutes } from '../../api/routes/front/userevents.js';
import { defineDomain } from './domain.js';

/** The event timeline of every entity, and the app's interaction events. */
export const eventDomain = defineDomain({
  name: 'events',
  entities: [Event],
  permissions: { operational: ['EVENT_READ', 'POSITION_LOG_READ'] },
  routes: ({ timelines }) => [...entityEventRoutes(timelines), ...userEventRoutes],
});
