// Measures "which areas contain this point" for one branch with many realistic areas: the prepared
// index of domain/geofence.ts (R-tree over polygon bounding boxes, then turf's point-in-polygon on the
// candidates) beside a naive scan (turf booleanPointInPolygon over every area), in the same run on the
// same points. Prints latency per lookup (p50, p99, max), lookups per second and the heap the prepared
// index holds beyond the areas themselves.
// Usage: npm run bench:geofence [-- areas vertices lookups]   (defaults: 1000 areas, 300 vertices, 20000)
import { booleanPointInPolygon } from '@turf/turf';
import {
  areasAt,
  geofenceVerdict,
  prepareAreas,
  type GeofenceArea,
  type LatLng,
} from '../domain/geofence.js';

const areaCount = Number(process.argv[2] ?? 1000);
const vertexCount = Number(process.argv[3] ?? 300);
const lookupCount = Number(process.argv[4] ?? 20000);

/** Deterministic pseudo-random numbers (mulberry32), so every run measures the same geometry. */
function random(seed: number) {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const rnd = random(7);

// Berlin, roughly 30 km × 25 km around the centre.
const center = { lat: 52.52, lng: 13.405 };
const spanLat = 0.22;
const spanLng = 0.45;
const metresPerDegLat = 111_320;
const metresPerDegLng = 111_320 * Math.cos((center.lat * Math.PI) / 180);

/** A star-shaped (hence simple) polygon of `vertexCount` vertices, 100–800 m radius: a street block to a district. */
function realisticArea(index: number): GeofenceArea {
  const lat0 = center.lat + (rnd() - 0.5) * spanLat;
  const lng0 = center.lng + (rnd() - 0.5) * spanLng;
  const radius = 100 + rnd() * 700;
  const ring: number[][] = [];
  for (let i = 0; i < vertexCount; i++) {
    const angle = (i / vertexCount) * 2 * Math.PI;
    const r = radius * (0.75 + 0.25 * rnd());
    ring.push([
      lng0 + (r * Math.cos(angle)) / metresPerDegLng,
      lat0 + (r * Math.sin(angle)) / metresPerDegLat,
    ]);
  }
  ring.push(ring[0]!);
  const kinds = ['NO_PARKING_POLICY', 'ALLOW_END_RENTAL_POLICY', 'NOTICE_AREA_POLICY'] as const;
  return {
    id: `area-${index}`,
    status: 'ACTIVE',
    vehicleTypeIds: [],
    geofence: { type: 'MultiPolygon', coordinates: [[ring]] },
    policies: [{ type: kinds[index % kinds.length]! }],
  };
}

const areas = Array.from({ length: areaCount }, (_, i) => realisticArea(i));
const points: LatLng[] = Array.from({ length: lookupCount }, () => ({
  lat: center.lat + (rnd() - 0.5) * spanLat,
  lng: center.lng + (rnd() - 0.5) * spanLng,
}));

const gc = (globalThis as { gc?: () => void }).gc;
const heap = () => {
  gc?.();
  return process.memoryUsage().heapUsed;
};

const heapBefore = heap();
const prepareStart = performance.now();
const prepared = prepareAreas(areas);
const prepareMs = performance.now() - prepareStart;
const preparedBytes = heap() - heapBefore;

const naiveFeatures = areas.map((area) => ({
  type: 'Feature' as const,
  properties: {},
  geometry: area.geofence,
}));
function naiveAreasAt(position: LatLng): GeofenceArea[] {
  const point = [position.lng, position.lat];
  return areas.filter((_, i) => booleanPointInPolygon(point, naiveFeatures[i]!));
}

function measure(name: string, lookup: (p: LatLng) => unknown[], count = points.length) {
  for (let i = 0; i < Math.min(500, count); i++) lookup(points[i]!); // warm-up
  const durations = new Float64Array(count);
  let hits = 0;
  const start = performance.now();
  for (let i = 0; i < count; i++) {
    const t0 = performance.now();
    hits += lookup(points[i]!).length;
    durations[i] = performance.now() - t0;
  }
  const totalMs = performance.now() - start;
  durations.sort();
  const at = (q: number) => durations[Math.min(durations.length - 1, Math.floor(q * durations.length))]!;
  return { name, count, p50: at(0.5), p99: at(0.99), max: at(1), perSecond: (count / totalMs) * 1000, hits };
}

const indexed = measure('prepared index (areasAt)', (p) => areasAt(prepared, p));
const verdict = measure(
  'prepared index (geofenceVerdict)',
  (p) => geofenceVerdict(prepared, { position: p, vehicleCategoryId: 1 }).areaIds,
);
// The naive scan takes milliseconds per lookup: it runs on the first tenth of the points.
const naiveCount = Math.max(1, Math.floor(lookupCount / 10));
const naive = measure('naive scan (turf over all areas)', naiveAreasAt, naiveCount);
const indexedHitsOnSample = points
  .slice(0, naiveCount)
  .reduce((sum, p) => sum + areasAt(prepared, p).length, 0);
if (indexedHitsOnSample !== naive.hits)
  throw new Error(`index found ${indexedHitsOnSample} hits, naive scan ${naive.hits}`);

const ms = (value: number) => `${value.toFixed(3)} ms`;
console.log(
  `${areaCount} areas × ${vertexCount} vertices (100–800 m radius, Berlin), ${lookupCount} lookups, ${indexed.hits} hits`,
);
console.log(
  `prepareAreas: ${prepareMs.toFixed(1)} ms; heap held by the prepared index: ${(preparedBytes / 2 ** 20).toFixed(2)} MiB${gc ? '' : ' (run with --expose-gc for an exact figure)'}`,
);
console.log('lookup                              points  p50         p99         max         lookups/s');
for (const row of [indexed, verdict, naive])
  console.log(
    `${row.name.padEnd(36)}${String(row.count).padEnd(8)}${ms(row.p50).padEnd(12)}${ms(row.p99).padEnd(12)}${ms(row.max).padEnd(12)}${row.perSecond.toFixed(0)}`,
  );
console.log(`p99 speed-up of the index over the naive scan: ${(naive.p99 / indexed.p99).toFixed(0)}×`);
