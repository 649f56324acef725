import type { EntityManager } from '@mikro-orm/postgresql';
import { Vehicle } from './entities/index.js';
import { categoryConfiguration } from './categories.js';

/** A vehicle as the simulator needs it (the shape of devices/simulator.ts's vehicle spec). */
export interface SimulatedVehicleSpec {
  vehicleId: string;
  code: string;
  position: { lat: number; lng: number };
  stateOfCharge: number;
  hasTailbox: boolean;
  charging: boolean;
}

/** The tenant's vehicles as a simulator fleet, so simulated devices match the database ids. */
export async function simulatorFleet(em: EntityManager): Promise<SimulatedVehicleSpec[]> {
  const vehicles = await em.find(Vehicle, {}, { orderBy: { id: 'asc' } });
  const fleet: SimulatedVehicleSpec[] = [];
  const configurations = new Map<number, Awaited<ReturnType<typeof categoryConfiguration>>>();
  for (const vehicle of vehicles) {
    const configuration =
      configurations.get(vehicle.category.id) ?? (await categoryConfiguration(em, vehicle.category.id));
    configurations.set(vehicle.category.id, configuration);
    fleet.push({
      vehicleId: String(vehicle.id),
      code: vehicle.code,
      position: { lat: vehicle.latitude ?? 0, lng: vehicle.longitude ?? 0 },
      stateOfCharge: vehicle.stateOfCharge ?? 100,
      hasTailbox: configuration.hasTailbox ?? false,
      charging: vehicle.charging,
    });
  }
  return fleet;
}
