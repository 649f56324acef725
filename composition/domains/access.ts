import { ApiClient } from '../../db/entities/ApiClient.js';
import { Role } from '../../db/entities/Role.js';
import { RoleAssignment } from '../../db/entities/RoleAssignment.js';
import { tokenRoutes } from '../../api/routes/auth/token.js';
import { roleRoutes } from '../../api/routes/back/roles.js';
import { accessErrors } from '../../domain/access.errors.js';
import { accessSeed } from '../../db/seed/access.js';
import { defineDomain } from './domain.js';

/** API clients and their tokens, roles and role assignments. */
export const accessDomain = defineDomain({
  name: 'access',
  errors: accessErrors,
  seed: accessSeed,
  entities: [ApiClient, Role, RoleAssignment],
  permissions: { operational: ['ROLE_READ'] },
  routes: [...tokenRoutes, ...roleRoutes],
});
