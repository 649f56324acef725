// Reads everything one GBFS snapshot of a published system is built from (docs/feeds.md), in one
// REPEATABLE READ transaction so every file of the snapshot sees the same moment; first it re-draws the
// public id of every vehicle whose last trip changed since its id was drawn (the GBFS privacy rule: a
// vehicle id never survives a trip). Raw SQL over the read model, tenant taken explicitly.
import { IsolationLevel } from '@mikro-orm/core';
import type { EntityManager } from './orm.js';
import { preparedRows } from './prepared.js';
import type { FeedSystem } from './entities/FeedSystem.js';
import { applicableVersion } from '../domain/pricing-versions.js';
import { effectiveCategoryConfiguration, type VehicleCategoryConfiguration } from '../domain/vehicle.js';
import type {
  GbfsAreaRow,
  GbfsAssignmentRow,
  GbfsBranchRow,
  GbfsPhysicalStationRow,
  GbfsPricingRow,
  GbfsSource,
  GbfsStationRow,
  GbfsVehicleRow,
  GbfsVehicleTypeRow,
} from '../domain/gbfs-model.js';
import type {
  PricingBundleType,
  PricingRules,
  DistanceUnit,
  PricingVersionStatus,
} from '../domain/pricing.js';
import type { GbfsFormFactor, GbfsPropulsionType } from '../domain/gbfs-vocabulary.js';

/**
 * Draws a new random public id for every vehicle of the branches whose trip mark (its last rental's end,
 * or its start while the trip runs) differs from the one its id was drawn at, and a first id for new
 * vehicles. Only changed rows are written; a concurrent builder's identical rotation is a no-op.
 */
const rotateStatement = `
  with marks as (
    select v.id,
           (select max(coalesce(r.ended_at, r.started_at)) from rental r
             where r.tenant_id = $1 and r.vehicle_id = v.id and r.started_at is not null) as mark
    from vehicle v
    where v.tenant_id = $1 and v.branch_id = any($2::int[]) and not v.virtual
  )
  insert into feed_vehicle_id (tenant_id, vehicle_id, public_id, trip_mark, rotated_at)
  select $1, m.id, gen_random_uuid(), m.mark, now()
  from marks m left join feed_vehicle_id f on f.tenant_id = $1 and f.vehicle_id = m.id
  where f.id is null or f.trip_mark is distinct from m.mark
  on conflict (tenant_id, vehicle_id) do update
    set public_id = gen_random_uuid(), trip_mark = excluded.trip_mark, rotated_at = now()
    where feed_vehicle_id.trip_mark is distinct from excluded.trip_mark`;

const vehiclesStatement = `
  select f.public_id, v.branch_id, v.category_id, v.latitude, v.longitude, v.rental_state, v.service_state_v2,
         v.state_of_charge, v.iot_state_of_charge, v.iot_module_level, v.offline, v.charging, v.last_report_at,
         s.physical_station_id as docked_at
  from vehicle v
  join feed_vehicle_id f on f.tenant_id = $1 and f.vehicle_id = v.id
  left join physical_station_slot s on s.tenant_id = $1 and s.vehicle_id = v.id
  where v.tenant_id = $1 and v.branch_id = any($2::int[]) and not v.virtual and v.category_id = any($3::int[])
  order by f.public_id`;

interface Raw {
  [column: string]: unknown;
}

const num = (value: unknown): number | null => (value === null || value === undefined ? null : Number(value));
const date = (value: unknown): Date | null =>
  value === null || value === undefined ? null : value instanceof Date ? value : new Date(String(value));

/** The branch rows of the tenant, the system's subtree (public, not out of business) and the root's ancestors. */
function branchScope(rows: GbfsBranchRow[], rootId: number, visibility: Map<number, string>) {
  const children = new Map<number | null, number[]>();
  for (const row of rows) children.set(row.parentId, [...(children.get(row.parentId) ?? []), row.id]);
  const subtree: number[] = [];
  const visit = (id: number, depth: number) => {
    const row = rows.find((r) => r.id === id);
    if (!row || depth > 32 || visibility.get(id) !== 'public' || row.state === 'OUT_OF_BUSINESS') return;
    subtree.push(id);
    for (const child of children.get(id) ?? []) visit(child, depth + 1);
  };
  visit(rootId, 0);
  const ancestors: number[] = [];
  let at = rows.find((r) => r.id === rootId)?.parentId ?? null;
  for (let depth = 0; at !== null && depth < 32; depth += 1) {
    ancestors.push(at);
    at = rows.find((r) => r.id === at)?.parentId ?? null;
  }
  return { subtree, ancestors };
}

async function readSource(tx: EntityManager, tenant: string, system: FeedSystem): Promise<GbfsSource> {
  const branchRaw = await preparedRows<Raw>(
    tx,
    'select id, name, parent_id, state, visibility from branch where tenant_id = $1 order by id',
    [tenant],
  );
  const branches: GbfsBranchRow[] = branchRaw.map((r) => ({
    id: Number(r.id),
    name: String(r.name),
    parentId: num(r.parent_id),
    state: String(r.state),
  }));
  const visibility = new Map(branchRaw.map((r) => [Number(r.id), String(r.visibility)] as const));
  const { subtree, ancestors } = branchScope(branches, system.rootBranch.id, visibility);
  const withAncestors = [...subtree, ...ancestors];

  if (subtree.length) await preparedRows(tx, rotateStatement, [tenant, subtree]);

  const categoryRaw = await preparedRows<Raw>(
    tx,
    'select id, parent_id, name, bookable, configuration from vehicle_category where tenant_id = $1',
    [tenant],
  );
  const categories = new Map(categoryRaw.map((r) => [Number(r.id), r] as const));
  const configurationOf = (id: number): VehicleCategoryConfiguration => {
    const chain: VehicleCategoryConfiguration[] = [];
    let at: number | null = id;
    for (let depth = 0; at !== null && depth < 16; depth += 1) {
      const row = categories.get(at);
      if (!row) break;
      chain.push((row.configuration ?? {}) as VehicleCategoryConfiguration);
      at = num(row.parent_id);
    }
    return effectiveCategoryConfiguration(chain);
  };
  const typeRaw = await preparedRows<Raw>(
    tx,
    'select * from feed_vehicle_type where tenant_id = $1 order by category_id',
    [tenant],
  );
  const vehicleTypes: GbfsVehicleTypeRow[] = typeRaw
    .filter((r) => categories.has(Number(r.category_id)))
    .map((r) => {
      const category = categories.get(Number(r.category_id))!;
      return {
        categoryId: Number(r.category_id),
        categoryName: String(category.name),
        categoryBookable: Boolean(category.bookable),
        configuration: configurationOf(Number(r.category_id)),
        formFactor: String(r.form_factor) as GbfsFormFactor,
        propulsionType: String(r.propulsion_type) as GbfsPropulsionType,
        maxRangeMeters: num(r.max_range_meters),
        riderCapacity: num(r.rider_capacity),
        make: (r.make as string | null) ?? null,
        model: (r.model as string | null) ?? null,
        wheelCount: num(r.wheel_count),
        maxPermittedSpeedKmh: num(r.max_permitted_speed_kmh),
      };
    });

  const vehicleRaw = subtree.length
    ? await preparedRows<Raw>(tx, vehiclesStatement, [tenant, subtree, vehicleTypes.map((t) => t.categoryId)])
    : [];
  const heldRaw = await preparedRows<Raw>(
    tx,
    `select distinct vehicle_id from booking
      where tenant_id = $1 and vehicle_id is not null and state in ('BOOKED', 'APPROVED', 'DELIVERED')
        and held_from <= now() and held_until > now()`,
    [tenant],
  );
  const held = new Set(heldRaw.map((r) => Number(r.vehicle_id)));
  // Bookings hold by internal vehicle id; map them through the public id table (same transaction).
  const heldPublic = held.size
    ? new Set(
        (
          await preparedRows<Raw>(
            tx,
            'select public_id from feed_vehicle_id where tenant_id = $1 and vehicle_id = any($2::int[])',
            [tenant, [...held]],
          )
        ).map((r) => String(r.public_id)),
      )
    : new Set<string>();
  const vehicles: GbfsVehicleRow[] = vehicleRaw.map((r) => ({
    publicId: String(r.public_id),
    branchId: Number(r.branch_id),
    categoryId: Number(r.category_id),
    latitude: num(r.latitude),
    longitude: num(r.longitude),
    rentalState: r.rental_state as GbfsVehicleRow['rentalState'],
    serviceStateV2: r.service_state_v2 as GbfsVehicleRow['serviceStateV2'],
    stateOfCharge: num(r.state_of_charge),
    iotStateOfCharge: num(r.iot_state_of_charge),
    iotModuleLevel: num(r.iot_module_level),
    offline: Boolean(r.offline),
    charging: Boolean(r.charging),
    lastReportAt: date(r.last_report_at),
    heldByBooking: heldPublic.has(String(r.public_id)),
    dockedAt: num(r.docked_at),
  }));

  const stations: GbfsStationRow[] = (
    await preparedRows<Raw>(
      tx,
      `select id, branch_id, name, type, capacity, latitude, longitude, radius, area from station
        where tenant_id = $1 and branch_id = any($2::int[]) and state = 'ACTIVE' and visibility = 'public'
          and (valid_until is null or valid_until > now()) order by id`,
      [tenant, subtree],
    )
  ).map((r) => ({
    id: Number(r.id),
    branchId: Number(r.branch_id),
    name: String(r.name),
    type: String(r.type),
    capacity: num(r.capacity),
    latitude: Number(r.latitude),
    longitude: Number(r.longitude),
    radius: num(r.radius),
    area: (r.area as GbfsStationRow['area']) ?? null,
  }));

  const physicalRaw = await preparedRows<Raw>(
    tx,
    `select p.id, p.branch_id, p.name, p.state, p.latitude, p.longitude, p.address,
            coalesce(json_agg(json_build_object('state', s.state, 'occupied', s.vehicle_id is not null))
              filter (where s.id is not null), '[]') as slots,
            max(s.connected_at) as last_change
       from physical_station p left join physical_station_slot s on s.tenant_id = $1 and s.physical_station_id = p.id
      where p.tenant_id = $1 and p.branch_id = any($2::int[]) and p.state in ('OPERATIONAL', 'TEMPORARY_CLOSED')
      group by p.id order by p.id`,
    [tenant, subtree],
  );
  const physicalStations: GbfsPhysicalStationRow[] = physicalRaw.map((r) => ({
    id: Number(r.id),
    branchId: Number(r.branch_id),
    name: String(r.name),
    state: String(r.state),
    latitude: Number(r.latitude),
    longitude: Number(r.longitude),
    address: (r.address as string | null) ?? null,
    slots: r.slots as GbfsPhysicalStationRow['slots'],
    lastChangeAt: date(r.last_change),
  }));

  const areas: GbfsAreaRow[] = (
    await preparedRows<Raw>(
      tx,
      `select id, name, vehicle_type_ids, geofence, policies from area
        where tenant_id = $1 and branch_id = any($2::int[]) and status = 'ACTIVE' order by name, id`,
      [tenant, withAncestors],
    )
  ).map((r) => ({
    id: String(r.id),
    name: String(r.name),
    vehicleTypeIds: (r.vehicle_type_ids as number[]) ?? [],
    geofence: r.geofence as GbfsAreaRow['geofence'],
    policies: (r.policies as GbfsAreaRow['policies']) ?? [],
  }));

  const assignments: GbfsAssignmentRow[] = (
    await preparedRows<Raw>(
      tx,
      `select a.branch_id, a.vehicle_category_id, a.bundle_id, a.bundle_type from pricing_assignment a
         join pricing_bundle b on b.tenant_id = $1 and b.id = a.bundle_id and b.archived_at is null
        where a.tenant_id = $1 and a.branch_id = any($2::int[])`,
      [tenant, withAncestors],
    )
  ).map((r) => ({
    branchId: Number(r.branch_id),
    categoryId: Number(r.vehicle_category_id),
    bundleId: Number(r.bundle_id),
    bundleType: r.bundle_type as PricingBundleType,
  }));
  const bundleIds = [...new Set(assignments.map((a) => a.bundleId))];
  const versionRaw = bundleIds.length
    ? await preparedRows<Raw>(
        tx,
        `select v.id, v.bundle_id, v.version, v.status, v.rules, v.effective_from, v.valid_until,
                b.name, b.description, b.type, b.currency, b.distance_unit
           from pricing_bundle_version v join pricing_bundle b on b.tenant_id = $1 and b.id = v.bundle_id
          where v.tenant_id = $1 and v.bundle_id = any($2::int[]) and v.status not in ('DRAFT', 'ARCHIVED')`,
        [tenant, bundleIds],
      )
    : [];
  const nowMs = Date.now();
  const pricing: GbfsPricingRow[] = [];
  for (const bundleId of bundleIds.sort((a, b) => a - b)) {
    const versions = versionRaw
      .filter((r) => Number(r.bundle_id) === bundleId)
      .map((r) => ({
        raw: r,
        id: Number(r.id),
        status: r.status as PricingVersionStatus,
        effectiveFrom: date(r.effective_from)?.getTime() ?? null,
        validUntil: date(r.valid_until)?.getTime() ?? null,
      }));
    const applicable = applicableVersion(versions, nowMs);
    if (!applicable) continue;
    const r = applicable.raw;
    pricing.push({
      bundleId,
      name: String(r.name),
      description: (r.description as string | null) ?? null,
      type: r.type as PricingBundleType,
      currency: String(r.currency),
      distanceUnit: r.distance_unit as DistanceUnit,
      version: Number(r.version),
      rules: r.rules as PricingRules,
    });
  }

  return {
    tenant,
    system: {
      systemId: system.systemId,
      name: system.name,
      shortName: system.shortName ?? null,
      operatorName: system.operatorName ?? null,
      url: system.url ?? null,
      purchaseUrl: system.purchaseUrl ?? null,
      phoneNumber: system.phoneNumber ?? null,
      email: system.email ?? null,
      feedContactEmail: system.feedContactEmail,
      startDate: system.startDate ?? null,
      licenseUrl: system.licenseUrl ?? null,
      attributionOrganizationName: system.attributionOrganizationName ?? null,
      attributionUrl: system.attributionUrl ?? null,
      privacyUrl: system.privacyUrl ?? null,
      termsUrl: system.termsUrl ?? null,
      rentalApps: system.rentalApps ?? null,
      language: system.language,
      timezone: system.timezone,
      openingHours: system.openingHours,
    },
    rootBranchId: system.rootBranch.id,
    branches,
    systemBranchIds: subtree,
    vehicleTypes,
    vehicles,
    stations,
    physicalStations,
    areas,
    pricing,
    assignments,
  };
}

/**
 * Everything a snapshot of `system` is built from, read at one moment (REPEATABLE READ; a serialization
 * failure against a concurrent builder's rotation is retried).
 */
export async function loadGbfsSource(
  em: EntityManager,
  tenant: string,
  system: FeedSystem,
): Promise<GbfsSource> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await em.fork().transactional((tx) => readSource(tx, tenant, system), {
        isolationLevel: IsolationLevel.REPEATABLE_READ,
      });
    } catch (error) {
      const code = (error as { code?: string }).code;
      if (attempt >= 3 || (code !== '40001' && code !== '23505')) throw error;
    }
  }
}
