import { Damage } from '../../db/entities/Damage.js';
import { damageRoutes } from '../../api/routes/back/damages.js';
import { damageErrors } from '../../domain/damages.errors.js';
import { Migration20261122164234_damages } from '../../db/migrations/Migration20261122164234_damages.js';
import { damageSeed } from '../../db/seed/damages.js';
import { defineDomain } from './domain.js';

/** Damages found on vehicles: reported, triaged (severity before approval), repaired or ignored. */
export const damageDomain = defineDomain({
  name: 'damages',
  errors: damageErrors,
  seed: damageSeed,
  entities: [Damage],
  migrations: [Migration20261122164234_damages],
  permissions: { operational: ['DAMAGE_READ', 'DAMAGE_WRITE'] },
  routes: damageRoutes,
});
