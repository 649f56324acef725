import { Booking } from '../../db/entities/Booking.js';
import { BookingStation } from '../../db/entities/BookingStation.js';
import { createBookingActivities } from '../../activities/booking.js';
import { bookingRoutes } from '../../api/routes/back/bookings.js';
import { appBookingRoutes } from '../../api/routes/front/bookings.js';
import { bookingErrors } from '../../domain/bookings.errors.js';
import { Migration20261122164150_bookings } from '../../db/migrations/Migration20261122164150_bookings.js';
import { Migration20261122165020_booking_lifecycle } from '../../db/migrations/Migration20261122165020_booking_lifecycle.js';
import { bookingSeed } from '../../db/seed/bookings.js';
import { bookingTimeline } from '../../api/routes/back/booking-timeline.js';
import { defineDomain } from './domain.js';
import { bookingAvailabilityRoutes } from '../../api/routes/back/booking-availability.js';
import { bookingStationRoutes } from '../../api/routes/back/booking-stations.js';
import { appBookingAvailabilityRoutes } from '../../api/routes/front/booking-availability.js';

/** Bookings of a vehicle category at a booking station for a window: one workflow per booking owns its timeline. */
export const bookingDomain = defineDomain({
  name: 'bookings',
  errors: bookingErrors,
  seed: bookingSeed,
  entities: [Booking, BookingStation],
  migrations: [Migration20261122164150_bookings, Migration20261122165020_booking_lifecycle],
  permissions: {
    operational: [
      'BOOKING_READ',
      'BOOKING_CREATE',
      'BOOKING_UPDATE',
      'BOOKING_APPROVE',
      'BOOKING_DELIVER',
      'BOOKING_PICKUP',
      'BOOKING_CANCEL',
      'BOOKING_IGNORE_TIME_CONSTRAINTS',
      'BOOKING_STATION_READ',
      'BOOKING_STATION_MANAGE',
    ],
  },
  timelines: [bookingTimeline],
  routes: [
    ...bookingRoutes,
    ...appBookingRoutes,
    ...bookingAvailabilityRoutes,
    ...bookingStationRoutes,
    ...appBookingAvailabilityRoutes,
  ],
  activities: createBookingActivities,
  workflows: new URL('../../workflows/booking.ts', import.meta.url),
  processes: [{ workflowIdPrefix: 'booking', notRunning: 'B304', noun: 'booking' }],
});
