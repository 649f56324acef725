import { RentalAuthority } from '../../db/entities/RentalAuthority.js';
import { rentalAuthorityRoutes } from '../../api/routes/back/rental-authority.js';
import { rentalRequirementRoutes } from '../../api/routes/back/rental-requirements.js';
import { appRentalRequirementRoutes } from '../../api/routes/front/rental-requirements.js';
import { rentalRequirementErrors } from '../../domain/rental-requirements.errors.js';
import { Migration20261122134223_rental_authority } from '../../db/migrations/Migration20261122134223_rental_authority.js';
import { rentalRequirementSeed } from '../../db/seed/rental-requirements.js';
import { defineDomain } from './domain.js';

/** Start and end requirements of rentals, and the rental authority customers hold on branches. */
export const rentalRequirementsDomain = defineDomain({
  name: 'rental-requirements',
  errors: rentalRequirementErrors,
  seed: rentalRequirementSeed,
  entities: [RentalAuthority],
  migrations: [Migration20261122134223_rental_authority],
  permissions: { operational: ['RENTAL_AUTHORITY_READ', 'RENTAL_AUTHORITY_MANAGE'] },
  routes: [...rentalAuthorityRoutes, ...rentalRequirementRoutes, ...appRentalRequirementRoutes],
});
