import { FeedSystem } from '../../db/entities/FeedSystem.js';
import { Migration20261201193000_feeds } from '../../db/migrations/Migration20261201193000_feeds.js';
import { feedErrors } from '../../domain/feeds.errors.js';
import { feedSystemRoutes } from '../../api/routes/back/feed-systems.js';
import { defineDomain } from './domain.js';

/**
 * Open mobility feeds (docs/feeds.md): published systems (a branch subtree each), their public GBFS 3.0
 * and 2.3 feeds served from snapshots refreshed on change, and the foundation the MDS provider builds on.
 */
export const feedsDomain = defineDomain({
  name: 'feeds',
  errors: feedErrors,
  entities: [FeedSystem],
  migrations: [Migration20261201193000_feeds],
  permissions: { operational: ['FEED_READ', 'FEED_MANAGE'] },
  routes: [...feedSystemRoutes],
});
