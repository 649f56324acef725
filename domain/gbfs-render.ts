// Writes the GBFS files of both published versions from a system's model (docs/feeds.md), typed with
// MobilityData's own TypeScript bindings (gbfs-typescript-types). Each function answers a file's `data`;
// the snapshot (api/feeds/gbfs-snapshots.ts) adds `last_updated`, `ttl` and `version`. Pure.
import type { v3, v23 } from 'gbfs-typescript-types';
import { gbfsFiles, gbfsVersions, type GbfsVersionPath } from './gbfs-vocabulary.js';
import type { GbfsModel, ZoneRule } from './gbfs-model.js';

/** The `data` of each file of GBFS 3.0, by file name. */
export interface V3Data {
  gbfs: v3.Gbfs['data'];
  gbfs_versions: v3.GbfsVersions['data'];
  system_information: v3.SystemInformation['data'];
  vehicle_types: v3.VehicleTypes['data'];
  station_information: v3.StationInformation['data'];
  station_status: v3.StationStatus['data'];
  vehicle_status: v3.VehicleStatus['data'];
  system_regions: v3.SystemRegions['data'];
  system_pricing_plans: v3.SystemPricingPlans['data'];
  system_alerts: v3.SystemAlerts['data'];
  geofencing_zones: v3.GeofencingZones['data'];
}

/** The `data` of each file of GBFS 2.3, by file name. */
export interface V2Data {
  gbfs: v23.Gbfs['data'];
  gbfs_versions: v23.GbfsVersions['data'];
  system_information: v23.SystemInformation['data'];
  vehicle_types: v23.VehicleTypes['data'];
  station_information: v23.StationInformation['data'];
  station_status: v23.StationStatus['data'];
  free_bike_status: v23.FreeBikeStatus['data'];
  system_regions: v23.SystemRegions['data'];
  system_pricing_plans: v23.SystemPricingPlans['data'];
  system_alerts: v23.SystemAlerts['data'];
  geofencing_zones: v23.GeofencingZones['data'];
}

/** Where the files are published: `{base}/v3/{file}.json` and `{base}/v2/{file}.json`. */
export interface GbfsUrls {
  /** The system's base, e.g. `https://feeds.example/v1/demo/gbfs/berlin`. */
  base: string;
  /** The tenant's manifest (3.0 `manifest.json`). */
  manifest: string;
}

export const gbfsFileUrl = (urls: GbfsUrls, version: GbfsVersionPath, file: string) =>
  `${urls.base}/${version}/${file}.json`;

/** The globally unique system id of a published system: the tenant and the system's slug. */
export const gbfsSystemId = (tenant: string, systemId: string) => `${tenant}-${systemId}`;

/** GBFS 3.0 localised text: the system's one language. */
const t = (language: string, text: string) => [{ text, language }];
const posix = (at: Date) => Math.floor(at.getTime() / 1000);
const rfc3339 = (at: Date) => at.toISOString().replace(/\.\d{3}Z$/, 'Z');
const optional = <K extends string, V>(key: K, value: V | null | undefined) =>
  (value === null || value === undefined ? {} : { [key]: value }) as Partial<Record<K, V>>;

/** The language key of a 2.3 gbfs.json (`^[a-z]{2,3}(-[A-Z]{2})?$`). */
const v2LanguageKey = (language: string) =>
  /^[a-z]{2,3}(-[A-Z]{2})?$/.test(language) ? language : (language.split('-')[0] ?? 'en').toLowerCase();

function versionsData(urls: GbfsUrls) {
  return {
    versions: (Object.keys(gbfsVersions) as GbfsVersionPath[])
      .map((path) => ({ version: gbfsVersions[path], url: gbfsFileUrl(urls, path, 'gbfs') }))
      .sort((a, b) => a.version.localeCompare(b.version)),
  };
}

function rules3(rules: readonly ZoneRule[]) {
  return rules.map((rule) => ({
    ...optional('vehicle_type_ids', rule.vehicleTypeIds),
    ride_start_allowed: rule.rideStartAllowed,
    ride_end_allowed: rule.rideEndAllowed,
    ride_through_allowed: rule.rideThroughAllowed,
    ...optional('maximum_speed_kph', rule.maximumSpeedKph),
  }));
}

/** Every file of GBFS 3.0 of the model. */
export function renderV3(model: GbfsModel, urls: GbfsUrls, tenant: string): V3Data {
  const s = model.system;
  const lang = s.language;
  const app = (a: { storeUri: string; discoveryUri: string } | null | undefined) =>
    a ? { store_uri: a.storeUri, discovery_uri: a.discoveryUri } : null;
  return {
    gbfs: { feeds: gbfsFiles.v3.map((name) => ({ name, url: gbfsFileUrl(urls, 'v3', name) })) },
    gbfs_versions: versionsData(urls) as v3.GbfsVersions['data'],
    system_information: {
      system_id: gbfsSystemId(tenant, s.systemId),
      languages: [lang],
      name: t(lang, s.name),
      opening_hours: s.openingHours,
      feed_contact_email: s.feedContactEmail,
      timezone: s.timezone as v3.SystemInformation['data']['timezone'],
      manifest_url: urls.manifest,
      ...optional('short_name', s.shortName ? t(lang, s.shortName) : null),
      ...optional('operator', s.operatorName ? t(lang, s.operatorName) : null),
      ...optional('url', s.url),
      ...optional('purchase_url', s.purchaseUrl),
      ...optional('start_date', s.startDate),
      ...optional('phone_number', s.phoneNumber),
      ...optional('email', s.email),
      ...optional('license_url', s.licenseUrl),
      ...optional(
        'attribution_organization_name',
        s.attributionOrganizationName ? t(lang, s.attributionOrganizationName) : null,
      ),
      ...optional('attribution_url', s.attributionUrl),
      ...optional('terms_url', s.termsUrl ? t(lang, s.termsUrl) : null),
      ...optional('privacy_url', s.privacyUrl ? t(lang, s.privacyUrl) : null),
      ...optional(
        'rental_apps',
        s.rentalApps && (s.rentalApps.android || s.rentalApps.ios)
          ? { ...optional('android', app(s.rentalApps.android)), ...optional('ios', app(s.rentalApps.ios)) }
          : null,
      ),
    },
    vehicle_types: {
      vehicle_types: model.vehicleTypes.map((type) => ({
        vehicle_type_id: type.id,
        form_factor: type.formFactor,
        propulsion_type: type.propulsionType,
        name: t(lang, type.name),
        ...optional('max_range_meters', type.maxRangeMeters),
        ...optional('rider_capacity', type.riderCapacity),
        ...optional('make', type.make ? t(lang, type.make) : null),
        ...optional('model', type.model ? t(lang, type.model) : null),
        ...optional('wheel_count', type.wheelCount),
        ...optional('max_permitted_speed', type.maxPermittedSpeedKmh),
        ...optional('default_pricing_plan_id', type.defaultPricingPlanId),
        ...optional('pricing_plan_ids', type.pricingPlanIds.length ? type.pricingPlanIds : null),
      })),
    },
    station_information: {
      stations: model.stations.map((station) => ({
        station_id: station.id,
        name: t(lang, station.name),
        lat: station.lat,
        lon: station.lon,
        region_id: station.regionId,
        is_virtual_station: station.isVirtual,
        ...optional('address', station.address),
        ...optional('capacity', station.capacity),
        ...optional('station_area', station.area),
      })),
    },
    station_status: {
      stations: model.stations.map((station) => ({
        station_id: station.id,
        num_vehicles_available: station.vehiclesAvailable,
        vehicle_types_available: [...station.availableByType].map(([vehicle_type_id, count]) => ({
          vehicle_type_id,
          count,
        })),
        num_vehicles_disabled: station.vehiclesDisabled,
        ...optional('num_docks_available', station.docksAvailable),
        ...optional('num_docks_disabled', station.docksDisabled),
        is_installed: station.isInstalled,
        is_renting: station.isRenting,
        is_returning: station.isReturning,
        last_reported: rfc3339(station.lastReported),
      })),
    },
    vehicle_status: {
      vehicles: model.vehicles.map((vehicle) => ({
        vehicle_id: vehicle.id,
        ...optional('lat', vehicle.lat),
        ...optional('lon', vehicle.lon),
        is_reserved: vehicle.isReserved,
        is_disabled: vehicle.isDisabled,
        vehicle_type_id: vehicle.vehicleTypeId,
        ...optional('last_reported', vehicle.lastReported ? rfc3339(vehicle.lastReported) : null),
        ...optional('current_range_meters', vehicle.currentRangeMeters),
        ...optional('current_fuel_percent', vehicle.currentFuelPercent),
        ...optional('station_id', vehicle.stationId),
        ...optional('pricing_plan_id', vehicle.pricingPlanId),
      })),
    },
    system_regions: { regions: model.regions.map((r) => ({ region_id: r.id, name: t(lang, r.name) })) },
    system_pricing_plans: {
      plans: model.plans.map((plan) => ({
        plan_id: plan.id,
        name: t(lang, plan.name),
        currency: plan.currency,
        price: plan.price,
        is_taxable: plan.isTaxable,
        description: t(lang, plan.description),
        ...optional('per_min_pricing', plan.perMin.length ? plan.perMin : null),
        ...optional('per_km_pricing', plan.perKm.length ? plan.perKm : null),
      })),
    },
    system_alerts: {
      alerts: model.alerts.map((alert) => ({
        alert_id: alert.id,
        type: alert.type.toLowerCase() as v3.SystemAlerts['data']['alerts'][number]['type'],
        summary: t(lang, alert.summary),
        description: t(lang, alert.description),
        ...optional('station_ids', alert.stationIds.length ? alert.stationIds : null),
        ...optional('region_ids', alert.regionIds.length ? alert.regionIds : null),
      })),
    },
    geofencing_zones: {
      geofencing_zones: {
        type: 'FeatureCollection',
        features: model.zones.map((zone) => ({
          type: 'Feature',
          geometry: { type: 'MultiPolygon', coordinates: zone.geometry.coordinates },
          properties: { name: t(lang, zone.name), rules: rules3(zone.rules) },
        })),
      },
      global_rules: rules3(model.globalRules),
    },
  };
}

/** Every file of GBFS 2.3 of the model. */
export function renderV2(model: GbfsModel, urls: GbfsUrls, tenant: string): V2Data {
  const s = model.system;
  const app = (a: { storeUri: string; discoveryUri: string } | null | undefined) =>
    a ? { store_uri: a.storeUri, discovery_uri: a.discoveryUri } : null;
  return {
    gbfs: {
      [v2LanguageKey(s.language)]: {
        feeds: gbfsFiles.v2.map((name) => ({ name, url: gbfsFileUrl(urls, 'v2', name) })),
      },
    },
    gbfs_versions: versionsData(urls) as v23.GbfsVersions['data'],
    system_information: {
      system_id: gbfsSystemId(tenant, s.systemId),
      language: s.language,
      name: s.name,
      timezone: s.timezone as v23.SystemInformation['data']['timezone'],
      feed_contact_email: s.feedContactEmail,
      ...optional('short_name', s.shortName),
      ...optional('operator', s.operatorName),
      ...optional('url', s.url),
      ...optional('purchase_url', s.purchaseUrl),
      ...optional('start_date', s.startDate),
      ...optional('phone_number', s.phoneNumber),
      ...optional('email', s.email),
      ...optional('license_url', s.licenseUrl),
      ...optional('terms_url', s.termsUrl),
      ...optional('privacy_url', s.privacyUrl),
      ...optional(
        'rental_apps',
        s.rentalApps && (s.rentalApps.android || s.rentalApps.ios)
          ? { ...optional('android', app(s.rentalApps.android)), ...optional('ios', app(s.rentalApps.ios)) }
          : null,
      ),
    },
    vehicle_types: {
      vehicle_types: model.vehicleTypes.map((type) => ({
        vehicle_type_id: type.id,
        form_factor: type.formFactor,
        propulsion_type: type.propulsionType,
        name: type.name,
        ...optional('max_range_meters', type.maxRangeMeters),
        ...optional('rider_capacity', type.riderCapacity),
        ...optional('make', type.make),
        ...optional('model', type.model),
        ...optional('wheel_count', type.wheelCount),
        ...optional('max_permitted_speed', type.maxPermittedSpeedKmh),
        ...optional('default_pricing_plan_id', type.defaultPricingPlanId),
        ...optional('pricing_plan_ids', type.pricingPlanIds.length ? type.pricingPlanIds : null),
      })),
    },
    station_information: {
      stations: model.stations.map((station) => ({
        station_id: station.id,
        name: station.name,
        lat: station.lat,
        lon: station.lon,
        region_id: station.regionId,
        is_virtual_station: station.isVirtual,
        ...optional('address', station.address),
        ...optional('capacity', station.capacity),
        ...optional('station_area', station.area),
      })),
    },
    station_status: {
      stations: model.stations.map((station) => ({
        station_id: station.id,
        num_bikes_available: station.vehiclesAvailable,
        vehicle_types_available: [...station.availableByType].map(([vehicle_type_id, count]) => ({
          vehicle_type_id,
          count,
        })),
        num_bikes_disabled: station.vehiclesDisabled,
        ...optional('num_docks_available', station.docksAvailable),
        ...optional('num_docks_disabled', station.docksDisabled),
        is_installed: station.isInstalled,
        is_renting: station.isRenting,
        is_returning: station.isReturning,
        last_reported: posix(station.lastReported),
      })),
    },
    free_bike_status: {
      bikes: model.vehicles.map((vehicle) => ({
        bike_id: vehicle.id,
        ...optional('lat', vehicle.lat),
        ...optional('lon', vehicle.lon),
        is_reserved: vehicle.isReserved,
        is_disabled: vehicle.isDisabled,
        vehicle_type_id: vehicle.vehicleTypeId,
        ...optional('last_reported', vehicle.lastReported ? posix(vehicle.lastReported) : null),
        ...optional('current_range_meters', vehicle.currentRangeMeters),
        ...optional('current_fuel_percent', vehicle.currentFuelPercent),
        ...optional('station_id', vehicle.stationId),
        ...optional('pricing_plan_id', vehicle.pricingPlanId),
      })),
    },
    system_regions: { regions: model.regions.map((r) => ({ region_id: r.id, name: r.name })) },
    system_pricing_plans: {
      plans: model.plans.map((plan) => ({
        plan_id: plan.id,
        name: plan.name,
        currency: plan.currency,
        price: plan.price,
        is_taxable: plan.isTaxable,
        description: plan.description,
        ...optional('per_min_pricing', plan.perMin.length ? plan.perMin : null),
        ...optional('per_km_pricing', plan.perKm.length ? plan.perKm : null),
      })),
    },
    system_alerts: {
      alerts: model.alerts.map((alert) => ({
        alert_id: alert.id,
        type: alert.type.toLowerCase() as v23.SystemAlerts['data']['alerts'][number]['type'],
        summary: alert.summary,
        description: alert.description,
        ...optional('station_ids', alert.stationIds.length ? alert.stationIds : null),
        ...optional('region_ids', alert.regionIds.length ? alert.regionIds : null),
      })),
    },
    geofencing_zones: {
      geofencing_zones: {
        type: 'FeatureCollection',
        features: model.zones.map((zone) => ({
          type: 'Feature',
          geometry: { type: 'MultiPolygon', coordinates: zone.geometry.coordinates },
          properties: {
            name: zone.name,
            rules: zone.rules.map((rule) => ({
              ...optional('vehicle_type_id', rule.vehicleTypeIds),
              ride_allowed: rule.rideStartAllowed && rule.rideEndAllowed,
              ride_through_allowed: rule.rideThroughAllowed,
              ...optional('maximum_speed_kph', rule.maximumSpeedKph),
            })),
          },
        })),
      },
    },
  };
}

/** The tenant's GBFS 3.0 manifest: every published system and where its versions are. */
export function renderManifest(
  systems: readonly { systemId: string; urls: GbfsUrls }[],
  tenant: string,
): v3.Manifest['data'] {
  return {
    datasets: systems.map((system) => ({
      system_id: gbfsSystemId(tenant, system.systemId),
      versions: versionsData(system.urls).versions,
    })),
  } as v3.Manifest['data'];
}
