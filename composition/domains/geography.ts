import { Area } from '../../db/entities/Area.js';
import { AreaType } from '../../db/entities/AreaType.js';
import { CompatibleBranch } from '../../db/entities/CompatibleBranch.js';
import { ParkingArea } from '../../db/entities/ParkingArea.js';
import { PhysicalStation } from '../../db/entities/PhysicalStation.js';
import { PhysicalStationSlot } from '../../db/entities/PhysicalStationSlot.js';
import { Poi } from '../../db/entities/Poi.js';
import { PoiCategory } from '../../db/entities/PoiCategory.js';
import { Station } from '../../db/entities/Station.js';
import { branchRoutes } from '../../api/routes/back/branches.js';
import { businessUnitRoutes } from '../../api/routes/back/business-units.js';
import { areaRoutes } from '../../api/routes/back/areas.js';
import { stationRoutes } from '../../api/routes/back/stations.js';
import { physicalStationRoutes } from '../../api/routes/back/physical-stations.js';
import { physicalStationSlotRoutes } from '../../api/routes/back/physical-station-slots.js';
import { parkingAreaRoutes } from '../../api/routes/back/parking-areas.js';
import { poiCategoryRoutes } from '../../api/routes/back/poi-categories.js';
import { poiRoutes } from '../../api/routes/back/pois.js';
import { appBranchRoutes } from '../../api/routes/front/branches.js';
import { appPoiRoutes } from '../../api/routes/front/pois.js';
import { appPhysicalStationRoutes } from '../../api/routes/front/physical-stations.js';
import { geographyErrors } from '../../domain/geography.errors.js';
import { Migration20261122103242_geography } from '../../db/migrations/Migration20261122103242_geography.js';
import { geographySeed } from '../../db/seed/geography.js';
import { defineDomain } from './domain.js';

/** Geography: branch administration, business units, areas with geofence policies, stations and POIs. */
export const geographyDomain = defineDomain({
  name: 'geography',
  errors: geographyErrors,
  seed: geographySeed,
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
  migrations: [Migration20261122103242_geography],
  permissions: {
    operational: [
      'BRANCH_READ',
      'BRANCH_MANAGE',
      'AREA_READ',
      'AREA_MANAGE',
      'AREA_TYPE_MANAGE',
      'STATION_READ',
      'STATION_MANAGE',
      'POI_READ',
      'POI_MANAGE',
      'POI_CATEGORY_MANAGE',
    ],
    finance: ['BUSINESS_UNIT_READ', 'BUSINESS_UNIT_MANAGE', 'BUSINESS_UNIT_CREATE'],
  },
  routes: [
    ...branchRoutes,
    ...businessUnitRoutes,
    ...areaRoutes,
    ...stationRoutes,
    ...physicalStationRoutes,
    ...physicalStationSlotRoutes,
    ...parkingAreaRoutes,
    ...poiCategoryRoutes,
    ...poiRoutes,
    ...appBranchRoutes,
    ...appPoiRoutes,
    ...appPhysicalStationRoutes,
  ],
});
