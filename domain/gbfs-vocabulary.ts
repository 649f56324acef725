// The GBFS vocabulary fleetflow's feeds speak (docs/feeds.md): the versions it publishes, the files of
// each, form factors and propulsion types. Pure data.

/** GBFS 3.0 form factors (2.3 knows them all, and also the deprecated `scooter`). */
export const gbfsFormFactors = [
  'bicycle',
  'cargo_bicycle',
  'car',
  'moped',
  'scooter_standing',
  'scooter_seated',
  'other',
] as const;
export type GbfsFormFactor = (typeof gbfsFormFactors)[number];

export const gbfsPropulsionTypes = [
  'human',
  'electric_assist',
  'electric',
  'combustion',
  'combustion_diesel',
  'hybrid',
  'plug_in_hybrid',
  'hydrogen_fuel_cell',
] as const;
export type GbfsPropulsionType = (typeof gbfsPropulsionTypes)[number];

/** Whether GBFS requires max_range_meters for a propulsion type (every one but human). */
export const isMotorised = (propulsion: GbfsPropulsionType): boolean => propulsion !== 'human';

/** The versions published, by their path segment. */
export const gbfsVersions = { v3: '3.0', v2: '2.3' } as const;
export type GbfsVersionPath = keyof typeof gbfsVersions;

/** The files of each version (without `.json`), in gbfs.json order. */
export const gbfsFiles = {
  v3: [
    'gbfs',
    'gbfs_versions',
    'system_information',
    'vehicle_types',
    'station_information',
    'station_status',
    'vehicle_status',
    'system_regions',
    'system_pricing_plans',
    'system_alerts',
    'geofencing_zones',
  ],
  v2: [
    'gbfs',
    'gbfs_versions',
    'system_information',
    'vehicle_types',
    'station_information',
    'station_status',
    'free_bike_status',
    'system_regions',
    'system_pricing_plans',
    'system_alerts',
    'geofencing_zones',
  ],
} as const satisfies Record<GbfsVersionPath, readonly string[]>;
export type GbfsFileName = (typeof gbfsFiles)[GbfsVersionPath][number];

/** Files whose data changes with every rental and report; the others change with configuration. */
export const realtimeGbfsFiles: readonly GbfsFileName[] = [
  'vehicle_status',
  'free_bike_status',
  'station_status',
];
