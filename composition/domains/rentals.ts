import { Rental } from '../../db/entities/Rental.js';
import { createRentalActivities } from '../../activities/rental.js';
import { rentalRoutes } from '../../api/routes/back/rentals.js';
import { appRentalRoutes } from '../../api/routes/front/rentals.js';
import { rentalErrors } from '../../domain/rentals.errors.js';
import { Migration20261122133618_rentals } from '../../db/migrations/Migration20261122133618_rentals.js';
import { Migration20261206104130_rental_customer_reserved } from '../../db/migrations/Migration20261206104130_rental_customer_reserved.js';
import { rentalSeed } from '../../db/seed/rentals.js';
import { rentalTimeline } from '../../api/routes/back/rental-timeline.js';
import { defineDomain } from './domain.js';

/** Rentals from reservation to end: one workflow per rental owns every transition. */
export const rentalDomain = defineDomain({
  name: 'rentals',
  errors: rentalErrors,
  seed: rentalSeed,
  entities: [Rental],
  migrations: [Migration20261122133618_rentals, Migration20261206104130_rental_customer_reserved],
  permissions: {
    operational: ['RENTAL_READ', 'RENTAL_CREATE', 'RENTAL_OPERATE', 'RENTAL_CANCEL', 'RENTAL_EXPORT'],
  },
  timelines: [rentalTimeline],
  routes: [...rentalRoutes, ...appRentalRoutes],
  activities: createRentalActivities,
  workflows: new URL('../../workflows/rental.ts', import.meta.url),
  processes: [{ workflowIdPrefix: 'rental', notRunning: 'R201', noun: 'rental' }],
});
