import {
  Area,
  AreaType,
  CompatibleBranch,
  ParkingArea,
  PhysicalStation,
  PhysicalStationSlot,
  Poi,
  PoiCategory,
  Station,
} from '../../db/entities/index.js';
import { defineDomain } from './domain.js';

/** Geography: branch administration, business units, areas with geofence policies, stations and POIs. */
export const geographyDomain = defineDomain({
  name: 'geography',
  entities: [
    CompatibleBranch,
    AreaType,
    Area,
    Station,
    PhysicalStation,
    PhysicalStationSlot,
    ParkingArea,
    PoiCategory,
    Poi,
  ],
});
