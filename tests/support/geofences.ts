// Geofence shapes for the geography and rental-requirements suites, as GeoJSON MultiPolygons ([lng, lat]).
import type { GeofenceGeometry } from '../../domain/geofence.js';

/** A rectangle [lng, lat] as one polygon's outer ring, counter-clockwise, closed. */
export const ring = (west: number, south: number, east: number, north: number): number[][] => [
  [west, south],
  [east, south],
  [east, north],
  [west, north],
  [west, south],
];

/** Polygons (each a list of rings) as one MultiPolygon. */
export const multi = (...polygons: number[][][][]): GeofenceGeometry => ({
  type: 'MultiPolygon',
  coordinates: polygons,
});

/** A square around a centre (`half` degrees each way), as a MultiPolygon. */
export const square = (lat: number, lng: number, half: number): GeofenceGeometry =>
  multi([ring(lng - half, lat - half, lng + half, lat + half)]);
