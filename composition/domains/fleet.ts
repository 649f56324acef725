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
import { vehicleRoutes } from '../../api/routes/back/vehicles.js';
import { vehicleBulkRoutes } from '../../api/routes/back/vehicle-bulk.js';
import { vehicleMaintenanceRoutes } from '../../api/routes/back/vehicle-maintenance.js';
import { appVehicleRoutes } from '../../api/routes/front/vehicles.js';
import { defineDomain } from './domain.js';

/** Vehicles, their categories, IoT modules, telemetry and all vehicle I/O (commands and what devices report). */
export const fleetDomain = defineDomain({
  name: 'fleet',
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
  routes: [
    ...vehicleCategoryRoutes,
    ...vehicleBulkRoutes,
    ...vehicleMaintenanceRoutes,
    ...vehicleRoutes,
    ...appVehicleRoutes,
  ],
  activities: createFleetActivities,
  workflows: new URL('../../workflows/fleet.ts', import.meta.url),
  processes: [{ workflowIdPrefix: 'vehicle-command', notRunning: 'V504', noun: 'vehicle command' }],
});
