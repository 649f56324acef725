import { FeedSystem } from '../../db/entities/FeedSystem.js';
import { Migration20261201193000_feeds } from '../../db/migrations/Migration20261201193000_feeds.js';
import { feedErrors } from '../../domain/feeds.errors.js';
import { feedSystemRoutes } from '../../api/routes/back/feed-systems.js';
import { feedVehicleTypeRoutes } from '../../api/routes/back/feed-vehicle-types.js';
import { gbfsPublicHandler } from '../../api/feeds/gbfs-handler.js';
import { FeedVehicleType } from '../../db/entities/FeedVehicleType.js';
import { FeedVehicleId } from '../../db/entities/FeedVehicleId.js';
import { Migration20261201194500_feeds_gbfs } from '../../db/migrations/Migration20261201194500_feeds_gbfs.js';
import { feedsSeed } from '../../db/seed/feeds.js';
import { defineDomain } from './domain.js';

/**
 * Open mobility feeds (docs/feeds.md): published systems (a branch subtree each), their public GBFS 3.0
 * and 2.3 feeds served from snapshots refreshed on change, and the foundation the MDS provider builds on.
 */
export const feedsDomain = defineDomain({
  name: 'feeds',
  errors: feedErrors,
  seed: feedsSeed,
  entities: [FeedSystem, FeedVehicleType, FeedVehicleId],
  migrations: [Migration20261201193000_feeds, Migration20261201194500_feeds_gbfs],
  permissions: { operational: ['FEED_READ', 'FEED_MANAGE'] },
  routes: [...feedSystemRoutes, ...feedVehicleTypeRoutes],
  publicHandlers: [gbfsPublicHandler],
});
