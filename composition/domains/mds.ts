import { MdsAgency } from '../../db/entities/MdsAgency.js';
import { Migration20261201201000_mds } from '../../db/migrations/Migration20261201201000_mds.js';
import { mdsSeed } from '../../db/seed/mds.js';
import { mdsErrors } from '../../domain/mds.errors.js';
import { mdsAgencyRoutes } from '../../api/routes/back/mds-agencies.js';
import { mdsTokenRoutes } from '../../api/routes/mds/token.js';
import { mdsVehicleRoutes } from '../../api/routes/mds/vehicles.js';
import { mdsEventRoutes } from '../../api/routes/mds/events.js';
import { mdsTripRoutes } from '../../api/routes/mds/trips.js';
import { defineDomain } from './domain.js';

/**
 * The MDS 2.0 provider interface (docs/mds.md): agencies' credentials (operator endpoints) and their
 * tokens of scope `mds`, and the provider endpoints over the tenant's published systems (the feeds
 * domain's): vehicles and their status, events mapped onto the MDS state machine, trips, telemetry, reports.
 */
export const mdsDomain = defineDomain({
  name: 'mds',
  errors: mdsErrors,
  seed: mdsSeed,
  entities: [MdsAgency],
  migrations: [Migration20261201201000_mds],
  permissions: { operational: ['MDS_AGENCY_READ', 'MDS_AGENCY_MANAGE'] },
  routes: [...mdsAgencyRoutes, ...mdsTokenRoutes, ...mdsVehicleRoutes, ...mdsEventRoutes, ...mdsTripRoutes],
});
