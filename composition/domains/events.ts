import { Event } from '../../db/entities/Event.js';
import { EventKey } from '../../db/entities/EventKey.js';
import { entityEventRoutes } from '../../api/routes/back/events.js';
import { eventSearchRoutes } from '../../api/routes/back/event-search.js';
import { createEventPartitionActivities } from '../../activities/event-partitions.js';
import { userEventRoutes } from '../../api/routes/front/userevents.js';
import { eventFamilyPermissions } from '../../domain/events.js';
import { Migration20261125064648_events_partitioning } from '../../db/migrations/Migration20261125064648_events_partitioning.js';
import { defineDomain } from './domain.js';

/**
 * Events (docs/events.md): the search over every stored event and the types a caller may read, the event
 * timeline of every entity, the app's interaction events; the event table is partitioned by month, the
 * partitions created ahead by the daily `event-partitions` schedule (workers/event-partition-starter.ts).
 */
export const eventDomain = defineDomain({
  name: 'events',
  entities: [Event, EventKey],
  migrations: [Migration20261125064648_events_partitioning],
  // EVENT_READ (search, events of no entity family), the four family permissions, and positions.
  permissions: {
    operational: [...new Set(Object.values(eventFamilyPermissions)), 'POSITION_LOG_READ'],
  },
  routes: ({ timelines }) => [...eventSearchRoutes, ...entityEventRoutes(timelines), ...userEventRoutes],
  activities: (deps) => createEventPartitionActivities(deps),
  workflows: new URL('../../workflows/event-partitions.ts', import.meta.url),
});
