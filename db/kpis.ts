// The KPIs of the operator interface (GET /kpis) as one SQL statement over the read model: a fragment per
// requested KPI type, joined with UNION ALL, sharing the branch scope, the resolved vehicle categories and
// the fleet of the scope (one materialized CTE). Positions are tested against geofences with PostgreSQL's
// built-in geometric types (no PostGIS): an area's GeoJSON MultiPolygon becomes polygons (outer ring and
// holes) inside the statement, a station radius is a haversine distance. Definitions: docs/insight.md.
import type { EntityManager } from '@mikro-orm/postgresql';
import {
  decommissionedServiceStates,
  INSIGHT_KPI_SETTING_KEY,
  kpiEntity,
  kpiSettingsFrom,
  rentableServiceStates,
  returnStationTypes,
  serviceWorkStates,
  type KpiEntity,
  type KpiType,
} from '../domain/insight.js';
import { defaultIoTBatteryLevels, defaultSocLevels } from '../domain/vehicle.js';
import { openDamageStates } from '../domain/damage.js';
import { branchAncestry, branchWithDescendants } from './branches.js';
import { categoryReadiness } from './categories.js';
import { effectiveSetting } from './settings.js';
import { preparedRows } from './prepared.js';
import { haversineMetres, polygonContains, polygonsOf } from './insight-geometry.js';

/** What a KPI statement is computed from, besides the tables: the branch scope and the categories' rules. */
export interface KpiInputs {
  tenant: string;
  /** The instant the KPIs are for ("today", idle thresholds, stations' validity, bookings started). */
  now: Date;
  /** The branches of the scope with their effective `insight.kpis` values. */
  branches: readonly { id: number; idleAfterHours: number; chargingTargetPercent: number }[];
  /** Each branch of the scope with each of its ancestors (itself included): whose areas apply to its vehicles. */
  lineage: readonly { branchId: number; ancestorId: number }[];
  /** Every category of the tenant with what the ready-to-rent and battery rules need of its configuration. */
  categories: readonly KpiCategory[];
}

/** A vehicle category's effective (inherited) configuration, as the KPI statement reads it. */
export interface KpiCategory {
  id: number;
  bookable: boolean;
  ignoreSoc: boolean;
  useIotSoc: boolean;
  useIotBattery: boolean;
  /** The lower bound of MEDIUM: below it the battery level is LOW or CRITICAL. */
  socMedium: number;
  iotMedium: number;
  /** A charging vehicle below this stays on its charger (MUST_REMAIN_ON_CHARGER); null: no such rule. */
  mustChargeLimit: number | null;
  /** The category's `chargingLimit` (the charging target when set). */
  chargingLimit: number | null;
}

/** One KPI as computed: its population (`total`), its figure and the entities behind the figure. */
export interface KpiRow {
  type: KpiType;
  total: number;
  value: number | null;
  entity: KpiEntity;
  entityIds: number[];
}

/** A statement ready to run: its text (no client values in it) and its parameters. */
export interface KpiStatement {
  text: string;
  values: unknown[];
  types: readonly KpiType[];
}

/**
 * What the KPI statement needs for a branch (and its descendants with `includeChildBranches`): the scope's
 * settings and lineage and the resolved categories, from the read cache. The branch must exist (the
 * route's access check answers B404 before).
 */
export async function kpiInputs(
  em: EntityManager,
  tenant: string,
  branchId: number,
  includeChildBranches: boolean,
  now: Date = new Date(),
): Promise<KpiInputs> {
  const ids = includeChildBranches ? await branchWithDescendants(em, tenant, branchId) : [branchId];
  const [branches, lineage, readiness] = await Promise.all([
    Promise.all(
      ids.map(async (id) => {
        const row = await effectiveSetting(em, tenant, INSIGHT_KPI_SETTING_KEY, id);
        return { id, ...kpiSettingsFrom(row?.value) };
      }),
    ),
    Promise.all(
      ids.map(async (id) =>
        (await branchAncestry(em, tenant, id)).map((ancestorId) => ({ branchId: id, ancestorId })),
      ),
    ),
    categoryReadiness(em),
  ]);
  const categories = [...readiness].map(([id, { bookable, configuration }]): KpiCategory => {
    const chargingLimit = configuration.chargingLimit ?? null;
    return {
      id,
      bookable,
      ignoreSoc: configuration.ignoreSoC === true,
      useIotSoc: configuration.useIoTSoCLevel === true,
      useIotBattery: configuration.useIoTBatteryLevel === true,
      socMedium: (configuration.socLevels ?? defaultSocLevels).medium,
      iotMedium: (configuration.ioTBatteryLevels ?? defaultIoTBatteryLevels).medium,
      mustChargeLimit: configuration.stationChargingToggle === false ? null : chargingLimit,
      chargingLimit,
    };
  });
  return { tenant, now, branches, lineage: lineage.flat(), categories };
}

/** Constant identifiers of the code as an SQL list; never client values (checked). */
const sqlList = (values: readonly string[]) =>
  values
    .map((value) => {
      if (!/^[A-Z_]+$/.test(value)) throw new Error(`not a constant: ${value}`);
      return `'${value}'`;
    })
    .join(', ');

/**
 * Parameters bound by name on first use, so the text of a statement depends only on the KPI types it
 * computes (each set of types is one prepared statement) and every `$n` it binds is referenced.
 */
class Parameters {
  readonly values: unknown[] = [];
  private readonly bound = new Map<string, string>();

  /** `source` undefined: a dry run that binds nothing real (to read which CTEs a fragment needs). */
  constructor(private readonly source?: Readonly<Record<string, unknown>>) {}

  ref(name: string, cast: string): string {
    let placeholder = this.bound.get(name);
    if (placeholder === undefined) {
      if (this.source && !(name in this.source)) throw new Error(`no KPI parameter ${name}`);
      placeholder = `$${this.values.push(this.source?.[name])}::${cast}`;
      this.bound.set(name, placeholder);
    }
    return placeholder;
  }
}

/**
 * Grid cells (degrees) vehicles and station catchments are bucketed in, so a vehicle is tested only
 * against the stations whose catchment's bounding box reaches its cell: a hash join instead of every
 * vehicle against every station.
 */
const cellDegrees = 0.01;

/**
 * Whether a station (`s`) holds a fleet vehicle (`f`) in its catchment: the drawn area when it has one,
 * else the radius around its position (metres), as `stationContains` (domain/rental-requirements.ts).
 */
const inCatchment = (s: string, f: string) => `(case when ${s}.has_area
    then exists (select 1 from station_polygons sp where sp.station_id = ${s}.id and ${polygonContains('sp', `${f}.pt`)})
    else ${s}.radius is not null
      and ${haversineMetres(`${s}.latitude`, `${s}.longitude`, `${f}.latitude`, `${f}.longitude`)} <= ${s}.radius
  end)`;

type Cte =
  | 'scope'
  | 'categories'
  | 'fleet'
  | 'lineage'
  | 'allow_polygons'
  | 'stations'
  | 'station_polygons'
  | 'station_cells'
  | 'station_vehicles';

/** One KPI's fragment: the CTEs it reads and its select (columns type, total, value, ids). */
interface Fragment {
  needs: readonly Cte[];
  select: string;
}

/**
 * A KPI over the fleet of the scope: `population` restricts the vehicles looked at (its count is the
 * total), `hit` says which of them the KPI counts (computed once per vehicle, then counted and listed).
 */
const vehicleKpi = (
  type: KpiType,
  hit: string,
  population = 'true',
  needs: readonly Cte[] = [],
): Fragment => ({
  needs: ['fleet', ...needs],
  select: `select '${type}'::text as type, count(*)::int as total, count(*) filter (where x.hit)::float8 as value,
      coalesce(array_agg(x.id order by x.id) filter (where x.hit), '{}')::int[] as ids
    from (select f.id, coalesce(${hit}, false) as hit from fleet f where ${population} offset 0) as x`,
});

/**
 * The fragment of one KPI type (docs/insight.md has the definitions as a table). Only the requested types'
 * fragments are built, after the CTEs, so every parameter bound is referenced and numbered in text order.
 */
function fragment(type: KpiType, p: Parameters): Fragment {
  const tenant = () => p.ref('tenant', 'text');
  const now = () => p.ref('now', 'timestamptz');
  const idleSince = () => `${now()} - make_interval(hours => f.idle_hours)`;
  const stateIn = (column: string, states: readonly string[]) => `${column} in (${sqlList(states)})`;
  const vehicleHas = (table: string, condition: string) =>
    `exists (select 1 from ${table} where ${table.split(' ')[1]}.tenant_id = ${tenant()} and ${table.split(' ')[1]}.vehicle_id = f.id and ${condition})`;
  const appliesToCategory = (alias: string) =>
    `(${alias}.vehicle_type_ids = '[]'::jsonb or ${alias}.vehicle_type_ids @> to_jsonb(f.category_id))`;
  const allowingAreas = (extra: string) => `exists (select 1 from allow_polygons o
      join lineage l on l.ancestor_id = o.branch_id and l.branch_id = f.branch_id
     where ${appliesToCategory('o')}${extra})`;
  const fragments: Record<KpiType, () => Fragment> = {
    AVAILABLE_VEHICLES: () =>
      vehicleKpi(
        'AVAILABLE_VEHICLES',
        `f.rental_state = 'AVAILABLE' and f.bookable and ${stateIn('f.service_state_v2', rentableServiceStates)}
        and (f.ignore_soc or f.battery_ok) and not f.offline
        and not (f.charging and f.must_charge_limit is not null and coalesce(f.soc, 0) < f.must_charge_limit)`,
      ),
    LOW_BATTERY_VEHICLES: () => vehicleKpi('LOW_BATTERY_VEHICLES', 'f.battery_low'),
    OFFLINE_VEHICLES: () => vehicleKpi('OFFLINE_VEHICLES', 'f.offline'),
    AVERAGE_STATE_OF_CHARGE: () => ({
      needs: ['fleet'],
      select: `select 'AVERAGE_STATE_OF_CHARGE'::text as type, count(*)::int as total,
          round(avg(f.soc) filter (where f.soc_known)::numeric, 1)::float8 as value,
          coalesce(array_agg(f.id order by f.id) filter (where f.soc_known), '{}')::int[] as ids
        from fleet f`,
    }),
    VEHICLES_IN_SERVICE: () =>
      vehicleKpi('VEHICLES_IN_SERVICE', stateIn('f.service_state_v2', serviceWorkStates)),
    VEHICLES_TO_RELOCATE: () => vehicleKpi('VEHICLES_TO_RELOCATE', `f.service_state_v2 = 'RELOCATE'`),
    IDLE_VEHICLES: () =>
      vehicleKpi(
        'IDLE_VEHICLES',
        `f.created_at < ${idleSince()} and not exists (select 1 from rental r
         where r.tenant_id = ${tenant()} and r.vehicle_id = f.id and r.started_at is not null
           and coalesce(r.ended_at, r.started_at) >= ${idleSince()})`,
        `f.rental_state = 'AVAILABLE' and ${stateIn('f.service_state_v2', rentableServiceStates)}`,
      ),
    VEHICLES_CHARGING_OVER_TARGET_LEVEL: () =>
      vehicleKpi(
        'VEHICLES_CHARGING_OVER_TARGET_LEVEL',
        'f.soc_known and f.soc >= f.charging_target',
        'f.charging',
      ),
    VEHICLES_OUTSIDE_BUSINESS_AREAS: () =>
      vehicleKpi(
        'VEHICLES_OUTSIDE_BUSINESS_AREAS',
        `not ${allowingAreas(` and ${polygonContains('o', 'f.pt')}`)}`,
        `f.pt is not null and f.rental_state <> 'DRIVING' and ${allowingAreas('')}`,
        ['lineage', 'allow_polygons'],
      ),
    VEHICLES_OUTSIDE_ON_DEMAND_STATION: () =>
      vehicleKpi(
        'VEHICLES_OUTSIDE_ON_DEMAND_STATION',
        `f.id not in (select sv.vehicle_id from station_vehicles sv where sv.returns)`,
        `f.pt is not null and f.rental_state = 'AVAILABLE'
          and f.branch_id in (select s.branch_id from stations s where s.returns)`,
        ['stations', 'station_vehicles'],
      ),
    ON_DEMAND_STATIONS_AT_FULL_CAPACITY: () => ({
      needs: ['stations', 'station_vehicles'],
      select: `select 'ON_DEMAND_STATIONS_AT_FULL_CAPACITY'::text as type, count(*)::int as total,
          count(*) filter (where x.hit)::float8 as value,
          coalesce(array_agg(x.id order by x.id) filter (where x.hit), '{}')::int[] as ids
        from (select s.id, coalesce(held.vehicles, 0) >= s.capacity as hit
                from stations s
                left join (select sv.station_id, count(*) as vehicles from station_vehicles sv group by sv.station_id) as held
                  on held.station_id = s.id
               where s.capacity is not null) as x`,
    }),
    VEHICLES_IN_ACTIVE_BOOKINGS: () =>
      vehicleKpi(
        'VEHICLES_IN_ACTIVE_BOOKINGS',
        vehicleHas('booking b', `b.state = 'DELIVERED' and b.start_time <= ${now()}`),
      ),
    VEHICLES_IN_ACTIVE_ON_DEMAND_RENTALS: () =>
      vehicleKpi(
        'VEHICLES_IN_ACTIVE_ON_DEMAND_RENTALS',
        vehicleHas(
          'rental r',
          `r.state = 'ACTIVE' and not exists (select 1 from booking b where b.rental_id = r.id)`,
        ),
      ),
    VEHICLES_IN_OVERDUE_BOOKINGS: () =>
      vehicleKpi(
        'VEHICLES_IN_OVERDUE_BOOKINGS',
        vehicleHas('booking b', `b.state = 'DELIVERED' and b.overdue_since is not null`),
      ),
    SUCCESSFULLY_ENDED_RENTALS_TODAY: () => ({
      needs: ['scope'],
      select: `select 'SUCCESSFULLY_ENDED_RENTALS_TODAY'::text as type, count(*)::int as total,
          count(*) filter (where r.state = 'ENDED')::float8 as value,
          coalesce(array_agg(r.id order by r.id) filter (where r.state = 'ENDED'), '{}')::int[] as ids
        from scope s
        join branch b on b.tenant_id = ${tenant()} and b.id = s.branch_id
        join rental r on r.tenant_id = ${tenant()} and r.branch_id = s.branch_id and r.ended_at <= ${now()}
          and r.ended_at >= (date_trunc('day', ${now()} at time zone b.time_zone_id) at time zone b.time_zone_id)`,
    }),
    VEHICLES_WITH_OPEN_DAMAGE: () =>
      vehicleKpi('VEHICLES_WITH_OPEN_DAMAGE', vehicleHas('damage d', stateIn('d.state', openDamageStates))),
    VEHICLES_WITH_CRITICAL_NEW_DAMAGE: () =>
      vehicleKpi(
        'VEHICLES_WITH_CRITICAL_NEW_DAMAGE',
        vehicleHas('damage d', `d.state = 'NEW' and d.severity = 'CRITICAL'`),
      ),
    VEHICLES_WITH_OPEN_TASK: () =>
      vehicleKpi(
        'VEHICLES_WITH_OPEN_TASK',
        vehicleHas('task t', stateIn('t.task_state', ['NEW', 'IN_PROGRESS'])),
      ),
  };
  return fragments[type]();
}

/** The shared CTEs, in dependency order. */
function ctes(p: Parameters): Record<Cte, { needs: readonly Cte[]; sql: () => string }> {
  const tenant = () => p.ref('tenant', 'text');
  const now = () => p.ref('now', 'timestamptz');
  const branches = () => p.ref('branchIds', 'int[]');
  return {
    scope: {
      needs: [],
      sql: () => `scope as (
        select * from unnest(${branches()}, ${p.ref('idleHours', 'int[]')}, ${p.ref('chargingTargets', 'float8[]')})
          as s(branch_id, idle_hours, charging_target))`,
    },
    categories: {
      needs: [],
      sql: () => `categories as (
        select * from unnest(${p.ref('categoryIds', 'int[]')}, ${p.ref('bookable', 'bool[]')}, ${p.ref('ignoreSoc', 'bool[]')},
            ${p.ref('useIotSoc', 'bool[]')}, ${p.ref('useIotBattery', 'bool[]')}, ${p.ref('socMedium', 'float8[]')},
            ${p.ref('iotMedium', 'float8[]')}, ${p.ref('mustChargeLimit', 'float8[]')}, ${p.ref('chargingLimit', 'float8[]')})
          as c(id, bookable, ignore_soc, use_iot_soc, use_iot_battery, soc_medium, iot_medium, must_charge_limit,
               charging_limit))`,
    },
    // The vehicles of the scope the KPIs look at, with the category rules applied once: the effective state
    // of charge and battery thresholds (domain/vehicle.ts effectiveBatteryLevel), the charging target.
    fleet: {
      needs: ['scope', 'categories'],
      sql: () => `fleet as materialized (
        select v.id, v.branch_id, v.category_id, v.rental_state, v.service_state_v2, v.offline, v.charging,
            v.created_at, v.latitude, v.longitude,
            case when v.latitude is not null and v.longitude is not null then point(v.longitude, v.latitude) end as pt,
            floor(v.longitude / ${cellDegrees})::int as cell_x, floor(v.latitude / ${cellDegrees})::int as cell_y,
            coalesce(c.bookable, false) as bookable, coalesce(c.ignore_soc, false) as ignore_soc,
            e.soc, e.soc is not null and e.soc <> 'NaN'::float8 as soc_known,
            e.level_value >= e.level_medium and e.level_value <> 'NaN'::float8 as battery_ok,
            e.level_value < e.level_medium as battery_low,
            c.must_charge_limit, coalesce(c.charging_limit, s.charging_target) as charging_target, s.idle_hours
          from vehicle v
          join scope s on s.branch_id = v.branch_id
          left join categories c on c.id = v.category_id
          cross join lateral (select
              case when c.use_iot_soc then v.iot_state_of_charge else v.state_of_charge end as soc,
              case when c.use_iot_battery then v.iot_module_level
                   when c.use_iot_soc then v.iot_state_of_charge else v.state_of_charge end as level_value,
              case when c.use_iot_battery then c.iot_medium else coalesce(c.soc_medium, ${defaultSocLevels.medium}) end
                as level_medium) as e
         where v.tenant_id = ${tenant()} and v.branch_id = any(${branches()}) and not v.virtual
           and v.service_state_v2 not in (${sqlList(decommissionedServiceStates)}))`,
    },
    lineage: {
      needs: [],
      sql: () => `lineage as (
        select * from unnest(${p.ref('lineageBranchIds', 'int[]')}, ${p.ref('lineageAncestorIds', 'int[]')})
          as l(branch_id, ancestor_id))`,
    },
    // Business areas: the active areas of the scope's branches and their ancestors allowing rentals to end.
    allow_polygons: {
      needs: [],
      sql: () => `allow_polygons as materialized (
        select a.branch_id, a.vehicle_type_ids, polygon.shape, polygon.bbox, polygon.holes
          from area a ${polygonsOf(`a.geofence -> 'coordinates'`)}
         where a.tenant_id = ${tenant()} and a.status = 'ACTIVE' and a.branch_id = any(${p.ref('ancestorIds', 'int[]')})
           and a.policies @> '[{"type": "ALLOW_END_RENTAL_POLICY"}]'::jsonb)`,
    },
    stations: {
      needs: [],
      sql: () => `stations as materialized (
        select s.id, s.branch_id, s.capacity, s.latitude, s.longitude, s.radius, s.area is not null as has_area,
            s.type in (${sqlList(returnStationTypes)}) as returns, bounds.*
          from station s
          left join lateral (
            select min((pt ->> 0)::float8) as west, min((pt ->> 1)::float8) as south,
                max((pt ->> 0)::float8) as east, max((pt ->> 1)::float8) as north
              from jsonb_array_elements(s.area -> 'coordinates') as polygon_json(rings),
                   jsonb_array_elements(polygon_json.rings -> 0) as pt
             where s.area is not null
            having count(*) > 0
            union all
            -- A radius in degrees: 111,195 m per degree of latitude, fewer per degree of longitude.
            select s.longitude - d.lng, s.latitude - d.lat, s.longitude + d.lng, s.latitude + d.lat
              from (select s.radius / 111194.9 * 1.01 as lat,
                      least(180, s.radius / (111194.9 * greatest(cos(radians(least(abs(s.latitude) + s.radius / 111194.9, 90))), 0.001)) * 1.01) as lng) as d
             where s.area is null and s.radius is not null
          ) as bounds on true
         where s.tenant_id = ${tenant()} and s.branch_id = any(${branches()}) and s.state = 'ACTIVE'
           and (s.valid_until is null or s.valid_until > ${now()}))`,
    },
    // Each station's catchment box as the grid cells it reaches.
    station_cells: {
      needs: ['stations'],
      sql: () => `station_cells as materialized (
        select s.id as station_id, s.branch_id, cell_x, cell_y
          from stations s
          cross join generate_series(floor(s.west / ${cellDegrees})::int, floor(s.east / ${cellDegrees})::int) as cell_x
          cross join generate_series(floor(s.south / ${cellDegrees})::int, floor(s.north / ${cellDegrees})::int) as cell_y)`,
    },
    // The standing (not driving) vehicles of the scope in each station's catchment (a station holds the
    // vehicles of its own branch): candidates by grid cell, then the exact test.
    station_vehicles: {
      needs: ['fleet', 'stations', 'station_cells', 'station_polygons'],
      sql: () => `station_vehicles as materialized (
        select s.id as station_id, s.returns, f.id as vehicle_id
          from station_cells sc
          join fleet f on f.branch_id = sc.branch_id and f.cell_x = sc.cell_x and f.cell_y = sc.cell_y
          join stations s on s.id = sc.station_id
         where f.pt is not null and f.rental_state <> 'DRIVING' and ${inCatchment('s', 'f')})`,
    },
    station_polygons: {
      needs: ['stations'],
      sql: () => `station_polygons as materialized (
        select st.id as station_id, polygon.shape, polygon.bbox, polygon.holes
          from stations st join station s on s.tenant_id = ${tenant()} and s.id = st.id
          ${polygonsOf(`s.area -> 'coordinates'`)}
         where st.has_area)`,
    },
  };
}

/** Builds the statement computing `types` (at least one, in the spec's order) for the inputs. */
export function kpiStatement(types: readonly KpiType[], inputs: KpiInputs): KpiStatement {
  if (types.length === 0) throw new Error('no KPI type requested');
  const { categories, branches, lineage } = inputs;
  const p = new Parameters({
    tenant: inputs.tenant,
    now: inputs.now,
    branchIds: branches.map((branch) => branch.id),
    idleHours: branches.map((branch) => branch.idleAfterHours),
    chargingTargets: branches.map((branch) => branch.chargingTargetPercent),
    lineageBranchIds: lineage.map((link) => link.branchId),
    lineageAncestorIds: lineage.map((link) => link.ancestorId),
    ancestorIds: [...new Set(lineage.map((link) => link.ancestorId))],
    categoryIds: categories.map((category) => category.id),
    bookable: categories.map((category) => category.bookable),
    ignoreSoc: categories.map((category) => category.ignoreSoc),
    useIotSoc: categories.map((category) => category.useIotSoc),
    useIotBattery: categories.map((category) => category.useIotBattery),
    socMedium: categories.map((category) => category.socMedium),
    iotMedium: categories.map((category) => category.iotMedium),
    mustChargeLimit: categories.map((category) => category.mustChargeLimit),
    chargingLimit: categories.map((category) => category.chargingLimit),
  });
  // The CTE texts bind their parameters first, so the numbering follows the text's order of CTEs.
  const definitions = ctes(p);
  const needed = new Set<Cte>();
  const need = (cte: Cte) => {
    for (const dependency of definitions[cte].needs) need(dependency);
    needed.add(cte);
  };
  for (const type of types) for (const cte of fragment(type, new Parameters()).needs) need(cte);
  // Dependencies first (a CTE reads only the ones before it); the types come in the spec's order, so each
  // set of types gives one text.
  const withClause = [...needed].map((cte) => definitions[cte].sql());
  const body = types.map((type) => `(${fragment(type, p).select})`).join('\n  union all\n');
  const text = `${withClause.length ? `with ${withClause.join(',\n')}\n` : ''}${body}`;
  return { text, values: p.values, types };
}

/** Runs a KPI statement (prepared per text) and answers its KPIs in the order of its types. */
export async function runKpiStatement(em: EntityManager, statement: KpiStatement): Promise<KpiRow[]> {
  const rows = await preparedRows<{ type: KpiType; total: number; value: number | null; ids: number[] }>(
    em,
    statement.text,
    statement.values,
  );
  const byType = new Map(rows.map((row) => [row.type, row]));
  return statement.types.map((type) => {
    const row = byType.get(type);
    if (!row) throw new Error(`the KPI statement answered no row for ${type}`);
    return {
      type,
      total: Number(row.total),
      value: row.value === null ? null : Number(row.value),
      entity: kpiEntity(type),
      entityIds: row.ids.map(Number),
    };
  });
}
