import { Damage } from '../../db/entities/Damage.js';
import { damageRoutes } from '../../api/routes/back/damages.js';
import { defineDomain } from './domain.js';

/** Damages found on vehicles: reported, triaged (severity before approval), repaired or ignored. */
export const damageDomain = defineDomain({
  name: 'damages',
  entities: [Damage],
  permissions: { operational: ['DAMAGE_READ', 'DAMAGE_WRITE'] },
  routes: damageRoutes,
});
