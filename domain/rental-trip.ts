// Geometry of a rental's trip (turf): kept apart from domain/rental.ts so the rental workflow's bundle
// does not carry turf; activities and the API use it.
import { distance as turfDistance, point } from '@turf/turf';

/** The `rental.noMovement` setting: below both thresholds a started rental ends as ENDED_NO_MOVEMENT. */
export interface RentalNoMovementSettings {
  /** Straight-line distance between start and end position, in metres. */
  minDisplacementMeters: number;
  /** Odometer distance, in kilometres (ignored when the vehicle reports no odometer). */
  minOdometerKm: number;
}

export const RENTAL_NO_MOVEMENT_SETTING_KEY = 'rental.noMovement';

export const defaultNoMovementSettings: RentalNoMovementSettings = {
  minDisplacementMeters: 50,
  minOdometerKm: 0.1,
};

/**
 * Whether a started rental moved meaningfully: it did when either the displacement or the odometer
 * distance reaches its threshold. Without positions and odometer nothing proves movement.
 */
export function movedMeaningfully(
  trip: {
    startPosition?: { lat: number; lng: number } | null;
    endPosition?: { lat: number; lng: number } | null;
    startOdometerKm?: number | null;
    endOdometerKm?: number | null;
  },
  settings: RentalNoMovementSettings,
): boolean {
  if (trip.startOdometerKm != null && trip.endOdometerKm != null) {
    if (trip.endOdometerKm - trip.startOdometerKm >= settings.minOdometerKm) return true;
  }
  if (trip.startPosition && trip.endPosition) {
    const metres = turfDistance(
      point([trip.startPosition.lng, trip.startPosition.lat]),
      point([trip.endPosition.lng, trip.endPosition.lat]),
      { units: 'meters' },
    );
    if (metres >= settings.minDisplacementMeters) return true;
  }
  return false;
}
