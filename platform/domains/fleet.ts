import { Vehicle, VehicleCategory, VehicleCommand } from '../../db/entities/index.js';
import { createFleetActivities } from '../../activities/fleet.js';
import { defineDomain } from './domain.js';

/** Vehicles, their categories and all vehicle I/O (commands and what devices report). */
export const fleetDomain = defineDomain({
  name: 'fleet',
  entities: [VehicleCategory, Vehicle, VehicleCommand],
  permissions: { operational: ['VEHICLE_READ', 'VEHICLE_COMMAND'] },
  activities: createFleetActivities,
});
