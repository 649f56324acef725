import { RentalAuthority } from '../../db/entities/RentalAuthority.js';
import { rentalAuthorityRoutes } from '../../api/routes/back/rental-authority.js';
import { rentalRequirementRoutes } from '../../api/routes/back/rental-requirements.js';
import { appRentalRequirementRoutes } from '../../api/routes/front/rental-requirements.js';
import { defineDomain } from './domain.js';

/** Start and end requirements of rentals, and the rental authority customers hold on branches. */
export const rentalRequirementsDomain = defineDomain({
  name: 'rental-requirements',
  entities: [RentalAuthority],
  permissions: { operational: ['RENTAL_AUTHORITY_READ', 'RENTAL_AUTHORITY_MANAGE'] },
  routes: [...rentalAuthorityRoutes, ...rentalRequirementRoutes, ...appRentalRequirementRoutes],
});
