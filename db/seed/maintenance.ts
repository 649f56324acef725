// Demo and test data of the maintenance service: route optimisation enabled for the city (and so its
// district), a crew van, a field route for the demo operator over the first demo vehicles (optimised from
// the van's position, a battery swap, an inspection and, when the work seed left one, an open task), and a
// few maintenance events of yesterday when the tenant has none yet.
import type { EntityManager } from '@mikro-orm/postgresql';
import { Event } from '../entities/Event.js';
import { FieldRoute } from '../entities/FieldRoute.js';
import { FieldRouteStop } from '../entities/FieldRouteStop.js';
import { FieldRouteStopItem } from '../entities/FieldRouteStopItem.js';
import { ServiceVehicle } from '../entities/ServiceVehicle.js';
import { Setting } from '../entities/Setting.js';
import { Task } from '../entities/Task.js';
import { Vehicle } from '../entities/Vehicle.js';
import {
  allMaintenanceEventTypes,
  batterySwapEventType,
  optimiseOrder,
  routingSettingKey,
  type RoutingSetting,
} from '../../domain/maintenance.js';
import { demoOperatorClient } from './access.js';
import { fromBoard, type DomainSeed, type SeedBoard } from './board.js';

/** The demo operator as events and routes name it (its acting subject). */
export const demoOperatorSubject = `client:${demoOperatorClient.clientId}`;

/** The demo crew van's licence plate. */
export const demoServiceVehiclePlate = 'B-FF 1001';

export const maintenanceSeed: DomainSeed = {
  rows(tx: EntityManager, board: SeedBoard) {
    const tenant = fromBoard(board, 'tenant');
    const city = fromBoard(board, 'city');
    const routing: RoutingSetting = { enabled: true, maxStops: 50 };
    tx.create(Setting, {
      tenant,
      key: routingSettingKey,
      name: 'Field route optimisation',
      area: 'CORE',
      valueType: 'JSON',
      branchIds: [city.id],
      value: { ...routing },
      publicVisible: false,
    });
  },
  async afterFlush(tx: EntityManager, board: SeedBoard) {
    const tenant = fromBoard(board, 'tenant');
    const city = fromBoard(board, 'city');
    const district = fromBoard(board, 'district');
    const van = tx.create(ServiceVehicle, {
      tenant,
      branchId: city.id,
      name: 'Crew van 1',
      licencePlate: demoServiceVehiclePlate,
      plateKey: demoServiceVehiclePlate.replace(/[\s-]/g, '').toUpperCase(),
      capacity: 12,
      latitude: 52.5251,
      longitude: 13.3694,
    });
    const vehicles = (
      await tx.find(
        Vehicle,
        { tenant, branch: district.id },
        { filters: false, orderBy: { id: 'asc' }, limit: 3 },
      )
    ).filter((vehicle) => vehicle.latitude != null && vehicle.longitude != null);
    if (vehicles.length === 0) return;
    const task = await tx.findOne(
      Task,
      { tenant, branchId: district.id, taskState: 'NEW', vehicleId: null },
      { filters: false, orderBy: { id: 'asc' } },
    );
    await tx.flush();
    const start = { lat: van.latitude!, lng: van.longitude! };
    const order = optimiseOrder(
      vehicles.map((vehicle) => ({ lat: vehicle.latitude!, lng: vehicle.longitude! })),
      start,
    );
    const route = tx.create(FieldRoute, {
      tenant,
      branchId: district.id,
      name: 'Mitte morning round',
      assignee: demoOperatorSubject,
      assigneeName: 'Demo Operator',
      serviceVehicleId: van.id,
      optimized: true,
      startLatitude: start.lat,
      startLongitude: start.lng,
      createdBy: 'seed',
    });
    await tx.flush();
    const stops = order.map((index, sequence) =>
      tx.create(FieldRouteStop, {
        tenant,
        routeId: route.id,
        sequence,
        vehicleId: vehicles[index]!.id,
        latitude: vehicles[index]!.latitude,
        longitude: vehicles[index]!.longitude,
      }),
    );
    await tx.flush();
    const items: { stop: FieldRouteStop; action?: 'BATTERY_SWAP' | 'INSPECT'; taskId?: number }[] = [
      { stop: stops[0]!, action: 'BATTERY_SWAP' },
      { stop: stops[1 % stops.length]!, action: 'INSPECT' },
      ...(task ? [{ stop: stops[stops.length - 1]!, taskId: task.id }] : []),
    ];
    items.forEach((item, sequence) =>
      tx.create(FieldRouteStopItem, {
        tenant,
        routeId: route.id,
        stopId: item.stop.id,
        sequence,
        action: item.action ?? null,
        taskId: item.taskId ?? null,
        description: item.action === 'BATTERY_SWAP' ? 'Swap in a charged pack' : null,
      }),
    );
    // A few maintenance events of yesterday, unless the tenant already has some.
    const existing = await tx.count(
      Event,
      { tenant, type: { $in: [...allMaintenanceEventTypes] } },
      { filters: false },
    );
    if (existing === 0) {
      const vehicle = vehicles[0]!;
      const yesterday = new Date(Date.now() - 24 * 3600 * 1000);
      const at = (minutes: number) => new Date(yesterday.getTime() + minutes * 60_000);
      const base = {
        tenant,
        branchId: district.id,
        vehicleId: vehicle.id,
        adminSubject: demoOperatorSubject,
        position: { lat: vehicle.latitude!, lng: vehicle.longitude! },
        description: 'seed',
      };
      tx.create(Event, { ...base, type: 'VEHICLE_MAINTENANCE_APPROACH', createdAt: at(0) });
      tx.create(Event, { ...base, type: batterySwapEventType, createdAt: at(5) });
      tx.create(Event, { ...base, type: 'VEHICLE_MAINTENANCE_CLOSE', createdAt: at(8) });
    }
  },
};
