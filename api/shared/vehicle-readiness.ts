// The ready-to-rent verdict of a vehicle, which both interfaces use: the operator's vehicle representation
// (api/routes/back/vehicle-representation.ts) and the app's (api/routes/front/vehicles.ts) show availability
// and its reasons from it.
import type { CategoryReadiness } from '../../db/categories.js';
import type { VehicleRecord } from '../../db/fleet.js';
import { vehicleReadiness } from '../../domain/vehicle.js';

/** The ready-to-rent rules applied to a vehicle row and its resolved category. */
export function readinessOf(vehicle: VehicleRecord, category: CategoryReadiness | undefined) {
  return vehicleReadiness({
    rentalState: vehicle.rentalState,
    serviceStateV2: vehicle.serviceStateV2,
    stateOfCharge: vehicle.stateOfCharge,
    iotStateOfCharge: vehicle.iotStateOfCharge,
    iotModuleLevel: vehicle.iotModuleLevel,
    offline: vehicle.offline,
    charging: vehicle.charging,
    categoryBookable: category?.bookable ?? false,
    configuration: category?.configuration ?? {},
  });
}
