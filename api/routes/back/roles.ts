import { Type } from '@sinclair/typebox';
import { DomainError } from '../../../domain/errors.js';
import { ok, defineRoute } from '../../kernel/route.js';
import { Id, Str } from '../../kernel/schemas.js';

/** `GET /roles/assignments/exists`: lets a dashboard pre-check what the caller may do (the action stays authoritative). */
export const roleAssignmentExists = defineRoute({
  operationId: 'roleAssignmentExists',
  method: 'get',
  path: '/roles/assignments/exists',
  interface: 'back',
  summary: 'Does the caller hold a permission (or a role), optionally on a branch or business unit',
  description:
    'A pre-check only: the action endpoint stays authoritative. Give `permission`, `roleName` or both; a permission no domain declares is a validation error (0022).',
  tags: ['Roles'],
  query: Type.Object({
    permission: Type.Optional(
      Str(64, { pattern: '^[A-Z][A-Z0-9_]*$', description: 'A permission name, e.g. RENTAL_READ.' }),
    ),
    roleName: Type.Optional(Str(100, { minLength: 1 })),
    branchId: Type.Optional(Id()),
    businessUnitId: Type.Optional(Id()),
  }),
  access: { anyCaller: 'the answer only ever concerns the caller’s own grants.' },
  responses: {
    200: {
      description: 'Whether the caller holds it',
      schema: Type.Object({ exists: Type.Boolean() }, { additionalProperties: false }),
    },
  },
  errors: ['B404'],
  async handler({ query, holds, services }) {
    if (query.permission === undefined && query.roleName === undefined)
      throw new DomainError('0022', 'give permission, roleName or both');
    if (query.permission !== undefined && !services.permissions.all.includes(query.permission))
      throw new DomainError('0022', `${query.permission} is not a permission of this platform`);
    return ok({ exists: await holds(query) });
  },
});

export const roleRoutes = [roleAssignmentExists];
