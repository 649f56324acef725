import { FieldRoute } from '../../db/entities/FieldRoute.js';
import { FieldRouteStop } from '../../db/entities/FieldRouteStop.js';
import { FieldRouteStopItem } from '../../db/entities/FieldRouteStopItem.js';
import { ServiceVehicle } from '../../db/entities/ServiceVehicle.js';
import { Migration20261125031533_maintenance } from '../../db/migrations/Migration20261125031533_maintenance.js';
import { fieldRouteRoutes } from '../../api/routes/maintenance/field-routes.js';
import { maintenanceLogRoutes } from '../../api/routes/maintenance/maintenance-logs.js';
import { serviceVehicleRoutes } from '../../api/routes/maintenance/service-vehicles.js';
import { maintenanceSeed } from '../../db/seed/maintenance.js';
import { maintenanceErrors } from '../../domain/maintenance.errors.js';
import { defineDomain } from './domain.js';

/**
 * The maintenance service (its own interface and document, /v1/{tenant}/maintenance/api/…): maintenance
 * logs read from the stored events, field routes with their stops and items (optimised on request), and
 * the crews' service vehicles. docs/maintenance.md.
 */
export const maintenanceDomain = defineDomain({
  name: 'maintenance',
  errors: maintenanceErrors,
  seed: maintenanceSeed,
  entities: [ServiceVehicle, FieldRoute, FieldRouteStop, FieldRouteStopItem],
  migrations: [Migration20261125031533_maintenance],
  permissions: { operational: ['MAINTENANCE_READ', 'MAINTENANCE_MANAGE'] },
  routes: [...maintenanceLogRoutes, ...fieldRouteRoutes, ...serviceVehicleRoutes],
});
