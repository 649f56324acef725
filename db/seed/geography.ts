// Demo geography of a seeded tenant: Berlin Mitte's business area and a no-parking zone drawn along real
// streets, stations, a physical station with slots and a parking area, and a few points of interest.
import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { Area } from '../entities/Area.js';
import { AreaType } from '../entities/AreaType.js';
import { Branch } from '../entities/Branch.js';
import { CompatibleBranch } from '../entities/CompatibleBranch.js';
import { ParkingArea } from '../entities/ParkingArea.js';
import { PhysicalStation } from '../entities/PhysicalStation.js';
import { PhysicalStationSlot } from '../entities/PhysicalStationSlot.js';
import { Poi } from '../entities/Poi.js';
import { PoiCategory } from '../entities/PoiCategory.js';
import { Station } from '../entities/Station.js';
import { type Tenant } from '../entities/Tenant.js';
import { type VehicleCategory } from '../entities/VehicleCategory.js';
import type { GeofenceGeometry } from '../../domain/geofence.js';
import { fromBoard, type DomainSeed, type SeedBoard } from './board.js';

/** Berlin Mitte's business area, [lng, lat] along Ebertstr., Invalidenstr., Bernauer Str., Torstr.,
 * Karl-Marx-Allee, the Spree, Heinrich-Heine-Str., Oranienstr. and Kochstr. (Kreuzberg stays outside). */
const mitteBusinessArea: GeofenceGeometry = {
  type: 'MultiPolygon',
  coordinates: [
    [
      [
        [13.3755, 52.5094], // Potsdamer Platz
        [13.3777, 52.5163], // Brandenburger Tor, Ebertstr.
        [13.376, 52.519], // Reichstag, Spree
        [13.369, 52.525], // Hauptbahnhof, Invalidenstr.
        [13.3835, 52.53], // Invalidenstr. / Chausseestr.
        [13.3975, 52.538], // Bernauer Str. / Brunnenstr.
        [13.404, 52.5395], // Bernauer Str. / Schwedter Str.
        [13.4127, 52.5328], // Senefelderplatz
        [13.419, 52.529], // Prenzlauer Tor, Torstr.
        [13.4215, 52.523], // Otto-Braun-Str.
        [13.431, 52.5182], // Strausberger Platz
        [13.42, 52.514], // Jannowitzbrücke
        [13.416, 52.5085], // Heinrich-Heine-Str.
        [13.4105, 52.5035], // Moritzplatz
        [13.3905, 52.506], // Kochstr., Checkpoint Charlie
        [13.379, 52.5065], // Stresemannstr.
        [13.3755, 52.5094],
      ],
    ],
  ],
};

/** The pedestrian zone around the World Clock on Alexanderplatz. */
const alexanderplatzPedestrianZone: GeofenceGeometry = {
  type: 'MultiPolygon',
  coordinates: [
    [
      [
        [13.4115, 52.5212],
        [13.414, 52.5205],
        [13.415, 52.5222],
        [13.4125, 52.5228],
        [13.4115, 52.5212],
      ],
    ],
  ],
};

/** The kerb beside the Rosenthaler Platz dock. */
const rosenthalerPlatzParking: GeofenceGeometry = {
  type: 'MultiPolygon',
  coordinates: [
    [
      [
        [13.4008, 52.5295],
        [13.4016, 52.5295],
        [13.4016, 52.5298],
        [13.4008, 52.5298],
        [13.4008, 52.5295],
      ],
    ],
  ],
};

export interface GeographySeedRefs {
  tenant: Tenant;
  city: Branch;
  district: Branch;
  cars: VehicleCategory;
}

/** Seeds the demo geography into the caller's transaction (the categories are flushed first: policies name their ids). */
export async function seedGeography(
  tx: EntityManager,
  { tenant, city, district, cars }: GeographySeedRefs,
): Promise<void> {
  await tx.flush();
  city.type = 'CITY';
  city.isBillable = true;
  city.contactInfo = {
    email: 'berlin@example.com',
    phoneNumber: '+49 30 1234567',
    website: 'https://example.com',
  };
  district.type = 'DISTRICT';
  district.contactInfo = { email: 'mitte@example.com', address: 'Rosenthaler Str. 40, 10178 Berlin' };
  tx.create(CompatibleBranch, {
    tenant,
    branch: district,
    compatible: city,
    isIncoming: true,
    isOutgoing: true,
  });

  const businessType = tx.create(AreaType, {
    tenant,
    id: randomUUID(),
    name: 'Business area',
    description: 'Where rentals may end; speed limits inside.',
    style: { color: '#1e88e5', lineThickness: 2, opacity: 0.25 },
    policyTypes: ['ALLOW_END_RENTAL_POLICY', 'SPEED_LIMIT_POLICY', 'END_RENTAL_CAPACITY_POLICY'],
  });
  const restrictedType = tx.create(AreaType, {
    tenant,
    id: randomUUID(),
    name: 'No-parking zone',
    description: 'Pedestrian zones: no parking, no ending.',
    style: { color: '#e53935', lineThickness: 2, opacity: 0.4 },
    policyTypes: ['NO_PARKING_POLICY', 'NO_END_RENTAL_POLICY', 'NOTICE_AREA_POLICY'],
  });
  tx.create(Area, {
    tenant,
    id: randomUUID(),
    name: 'Berlin Mitte business area',
    branch: district,
    areaType: businessType,
    geofence: mitteBusinessArea,
    policies: [
      { type: 'ALLOW_END_RENTAL_POLICY' },
      {
        type: 'SPEED_LIMIT_POLICY',
        speedLimit: 20,
        speedLimitOverrides: [{ vehicleCategoryId: cars.id, speedLimit: 30 }],
      },
    ],
    tags: ['demo'],
  });
  tx.create(Area, {
    tenant,
    id: randomUUID(),
    name: 'Alexanderplatz pedestrian zone',
    branch: district,
    areaType: restrictedType,
    geofence: alexanderplatzPedestrianZone,
    policies: [{ type: 'NO_PARKING_POLICY' }, { type: 'NO_END_RENTAL_POLICY' }],
    tags: ['demo'],
  });

  tx.create(Station, {
    tenant,
    branch: district,
    name: 'Hackescher Markt',
    type: 'VIRTUAL',
    capacity: 10,
    latitude: 52.52249,
    longitude: 13.40228,
    radius: 60,
  });
  tx.create(Station, {
    tenant,
    branch: district,
    name: 'Museumsinsel',
    type: 'RECOMMENDED',
    latitude: 52.52088,
    longitude: 13.39686,
    radius: 80,
  });
  tx.create(Station, {
    tenant,
    branch: district,
    name: 'Moritzplatz',
    type: 'PROMOTION',
    capacity: 6,
    latitude: 52.50374,
    longitude: 13.41064,
    radius: 50,
    validUntil: new Date('2027-12-31T23:00:00Z'),
    reward: { description: '5 free minutes for ending here', freeMinutes: 5 },
  });
  const dock = tx.create(PhysicalStation, {
    tenant,
    branch: district,
    name: 'Rosenthaler Platz dock',
    state: 'OPERATIONAL',
    latitude: 52.52967,
    longitude: 13.40126,
    address: 'Rosenthaler Platz, 10119 Berlin',
    description: {
      en: 'Six docks on the north side of the square.',
      de: 'Sechs Docks an der Nordseite des Platzes.',
    },
    images: [{ key: 'mainImage', url: 'https://example.com/images/rosenthaler-platz.jpg' }],
    appIcons: { vehicle: 'https://example.com/icons/dock-scooter.png' },
  });
  tx.create(Station, {
    tenant,
    branch: district,
    name: 'Rosenthaler Platz dock',
    type: 'DOCKING',
    capacity: 6,
    latitude: 52.52967,
    longitude: 13.40126,
    radius: 25,
  });
  for (let number = 1; number <= 6; number++)
    tx.create(PhysicalStationSlot, {
      tenant,
      physicalStation: dock,
      number,
      state: number === 6 ? 'OUT_OF_ORDER' : 'VACANT',
    });
  tx.create(ParkingArea, { tenant, physicalStation: dock, capacity: 8, geometry: rosenthalerPlatzParking });

  const sights = tx.create(PoiCategory, {
    tenant,
    type: 'TOURISTIC_SPOT',
    name: 'Sights',
    displayOnRental: true,
    defaultTranslationKeys: { name: 'poi.category.sights' },
  });
  const charging = tx.create(PoiCategory, {
    tenant,
    type: 'CHARGING_STATION',
    name: 'Charging',
    mapZoomLevel: 15,
  });
  const pois: Array<[PoiCategory, string, string, number, number]> = [
    [sights, 'Brandenburger Tor', 'Pariser Platz', 52.516275, 13.377704],
    [sights, 'Fernsehturm', 'Panoramastr. 1A', 52.520817, 13.409419],
    [charging, 'Ladepunkt Holzmarktstraße', 'Holzmarktstr. 4', 52.5135, 13.4202],
  ];
  for (const [category, name, address, latitude, longitude] of pois)
    tx.create(Poi, {
      tenant,
      category,
      branch: district,
      name,
      address,
      city: 'Berlin',
      latitude,
      longitude,
    });
}

/** The demo geography of the city and its district. */
export const geographySeed: DomainSeed = {
  rows: (tx: EntityManager, board: SeedBoard) =>
    seedGeography(tx, {
      tenant: fromBoard(board, 'tenant'),
      city: fromBoard(board, 'city'),
      district: fromBoard(board, 'district'),
      cars: fromBoard(board, 'cars'),
    }),
};
