import { ApiClient } from '../../db/entities/ApiClient.js';
import { Role } from '../../db/entities/Role.js';
import { RoleAssignment } from '../../db/entities/RoleAssignment.js';
import { tokenRoutes } from '../../api/routes/auth/token.js';
import { roleRoutes } from '../../api/routes/back/roles.js';
import { roleAssignmentRoutes } from '../../api/routes/back/role-assignments.js';
import { accessErrors } from '../../domain/access.errors.js';
import { accessSeed } from '../../db/seed/access.js';
import { defineDomain } from './domain.js';

/**
 * API clients and their tokens, roles and role assignments. Role administration is ROLE_MANAGE on branches
 * and BUSINESS_UNIT_ROLE_MANAGE on business units. The root permissions name what only the platform
 * operator does, outside the tenant API (tenants and their API clients, root branches, configured vehicle
 * operations): declared so that a tenant naming one is refused (AUTHZ018 / AUTHZ019), never assignable.
 */
export const accessDomain = defineDomain({
  name: 'access',
  errors: accessErrors,
  seed: accessSeed,
  entities: [ApiClient, Role, RoleAssignment],
  permissions: {
    operational: ['ROLE_READ', 'ROLE_MANAGE'],
    finance: ['BUSINESS_UNIT_ROLE_READ', 'BUSINESS_UNIT_ROLE_MANAGE'],
    root: [
      'ROOT_TENANT_MANAGE',
      'ROOT_API_CLIENT_MANAGE',
      'ROOT_BRANCH_MANAGE',
      'ROOT_VEHICLE_ACTION_MANAGE',
    ],
  },
  routes: [...tokenRoutes, ...roleRoutes, ...roleAssignmentRoutes],
});
