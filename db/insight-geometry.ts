// Geometry in SQL for the insight domain, with PostgreSQL's built-in geometric types (no PostGIS is
// available to the embedded PostgreSQL): GeoJSON MultiPolygons (areas, station catchments) become
// polygons inside a statement, so a KPI tests every vehicle of a branch against them in one query. The
// rules are those of domain/geofence.ts (edges and hole edges inside) and stationContains (turf's sphere).

/**
 * The polygons of a GeoJSON MultiPolygon column (`[lng, lat]` positions) as a lateral join: one row per
 * polygon with its outer ring (`shape`, and `bbox`, its bounding box) and its holes. PostgreSQL's point
 * is (x, y) = (lng, lat).
 */
export const polygonsOf = (
  json: string,
) => `cross join lateral jsonb_array_elements(${json}) as polygon_json(rings)
  cross join lateral (
    select shapes[1] as shape, box(shapes[1]) as bbox, shapes[2:] as holes
      from (select array_agg(
              (select ('(' || string_agg('(' || (q.pt ->> 0) || ',' || (q.pt ->> 1) || ')', ',' order by q.k) || ')')::polygon
                 from jsonb_array_elements(r.ring) with ordinality as q(pt, k))
              order by r.n) as shapes
              from jsonb_array_elements(polygon_json.rings) with ordinality as r(ring, n)) as rings
  ) as polygon`;

/**
 * Whether a polygon row (`alias`: shape, bbox, holes) contains a point: inside or on the outer ring and
 * not strictly inside a hole (a hole's edge is inside, as domain/geofence.ts says). PostgreSQL compares
 * geometry with a tolerance of 1e-6 (≈ 0.1 m in degrees), so a position that close to an edge is on it.
 */
export const polygonContains = (alias: string, point: string) =>
  `(${alias}.bbox @> ${point} and ${alias}.shape @> ${point} and not exists (
     select 1 from unnest(${alias}.holes) as hole(shape) where hole.shape @> ${point} and (${point} <-> path(hole.shape)) > 0))`;

/** Metres between two WGS84 positions on turf's sphere (radius 6,371,008.8 m), as `stationContains` measures. */
export const haversineMetres = (lat1: string, lng1: string, lat2: string, lng2: string) =>
  `(2 * 6371008.8 * asin(least(1, sqrt(power(sin(radians(${lat2} - ${lat1}) / 2), 2) +
     cos(radians(${lat1})) * cos(radians(${lat2})) * power(sin(radians(${lng2} - ${lng1}) / 2), 2)))))`;
