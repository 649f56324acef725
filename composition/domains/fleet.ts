import { IotModule } from '../../db/entities/IotModule.js';
import { Task } from '../../db/entities/Task.js';
import { Vehicle } from '../../db/entities/Vehicle.js';
import { VehicleNote } from '../../db/entities/VehicleNote.js';
import { VehicleAction } from '../../db/entities/VehicleAction.js';
import { VehicleCategory } from '../../db/entities/VehicleCategory.js';
import { VehicleCommand } from '../../db/entities/VehicleCommand.js';
import { VehicleTelemetry } from '../../db/entities/VehicleTelemetry.js';
import { createFleetActivities } from '../../activities/fleet.js';
import { vehicleCategoryRoutes } from '../../api/routes/back/vehicle-categories.js';
import { vehicleByIdRoutes, vehicleRoutes } from '../../api/routes/back/vehicles.js';
import { vehicleCommandByIdRoutes, vehicleCommandRoutes } from '../../api/routes/back/vehicle-commands.js';
import { vehicleActionRoutes } from '../../api/routes/back/vehicle-actions.js';
import { vehicleHistoryRoutes } from '../../api/routes/back/vehicle-history.js';
import { iotModuleRoutes, vehicleIotModuleRoutes } from '../../api/routes/back/iot-modules.js';
import { vehicleBulkRoutes } from '../../api/routes/back/vehicle-bulk.js';
import { vehicleMaintenanceRoutes } from '../../api/routes/back/vehicle-maintenance.js';
import { appVehicleRoutes } from '../../api/routes/front/vehicles.js';
import { fleetErrors } from '../../domain/fleet.errors.js';
import { Migration20261122104722_fleet } from '../../db/migrations/Migration20261122104722_fleet.js';
import { fleetSeed } from '../../db/seed/fleet.js';
import { vehicleTimeline } from '../../api/routes/back/vehicle-timeline.js';
import { defineDomain } from './domain.js';

/** Vehicles, their categories, IoT modules, telemetry and all vehicle I/O (commands and what devices report). */
export const fleetDomain = defineDomain({
  name: 'fleet',
  errors: fleetErrors,
  seed: fleetSeed,
  entities: [
    VehicleCategory,
    Vehicle,
    VehicleCommand,
    VehicleTelemetry,
    IotModule,
    Task,
    VehicleNote,
    VehicleAction,
  ],
  migrations: [Migration20261122104722_fleet],
  permissions: {
    operational: [
      'VEHICLE_READ',
      'VEHICLE_COMMAND',
      'VEHICLE_DEBUG',
      'VEHICLE_CREATE',
      'VEHICLE_UPDATE',
      'VEHICLE_CATEGORY_MANAGE',
      'IOT_MODULE_MANAGE',
    ],
  },
  // Category paths (/vehicles/categories…) before /vehicles/{id}: express matches in mount order.
  timelines: [vehicleTimeline],
  routes: [
    ...vehicleCategoryRoutes,
    ...vehicleBulkRoutes,
    ...vehicleMaintenanceRoutes,
    ...vehicleRoutes,
    ...vehicleCommandRoutes,
    ...vehicleActionRoutes,
    ...iotModuleRoutes,
    ...vehicleCommandByIdRoutes,
    ...vehicleByIdRoutes,
    ...vehicleHistoryRoutes,
    ...vehicleIotModuleRoutes,
    ...appVehicleRoutes,
  ],
  activities: createFleetActivities,
  workflows: new URL('../../workflows/fleet.ts', import.meta.url),
  processes: [{ workflowIdPrefix: 'vehicle-command', notRunning: 'V504', noun: 'vehicle command' }],
});
