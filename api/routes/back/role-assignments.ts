// Operator endpoints of role assignments (spec "Events, settings, roles"): the list (subject, role and
// scope filters, paged), who holds which role per branch, granting, revoking, and the caller's own
// pre-check `/roles/assignments/exists`. A grant is made on one scope: a branch (operational permissions,
// ROLE_MANAGE there) or a business unit (finance permissions, BUSINESS_UNIT_ROLE_MANAGE there); granting
// and revoking need the same, including every permission the role gives on that scope (no escalation:
// AUTHZ018). See docs/access.md.
import { LockMode, type FilterQuery } from '@mikro-orm/core';
import { Type, type Static } from '@sinclair/typebox';
import {
  branchAncestry,
  branchDirectory,
  branchTree,
  branchWithDescendants,
  grantedSubtrees,
} from '../../../db/branches.js';
import { recordEvent } from '../../../db/events.js';
import { ApiClient } from '../../../db/entities/ApiClient.js';
import { Branch } from '../../../db/entities/Branch.js';
import { BusinessUnit } from '../../../db/entities/BusinessUnit.js';
import { Role } from '../../../db/entities/Role.js';
import { RoleAssignment } from '../../../db/entities/RoleAssignment.js';
import { apiClientNames } from '../../../db/roles.js';
import { DomainError } from '../../../domain/errors.js';
import type { GrantScope } from '../../../domain/permissions.js';
import { NAMED_SUBJECT } from '../../auth.js';
import { permits } from '../../authorization.js';
import { created, defineRoute, noContent, ok } from '../../kernel/route.js';
import { component, Id, Nullable, Str, StringEnum } from '../../kernel/schemas.js';
import {
  assertMayGrant,
  describeScope,
  loadRole,
  managePermissionOn,
  RoleAssignmentSchema,
  RoleName,
  RoleSubjectType,
  scopeOf,
  tags,
  toAssignmentDtos,
} from './role-representation.js';

/** A subject id as tokens carry it in `sub`: 1–200 printable characters, no white space at either end. */
const SubjectId = Str(200, {
  minLength: 1,
  description:
    'OPERATOR: the `sub` of the operator’s tokens (printable, no surrounding white space); API_CLIENT: the client_id.',
});

/** Exactly one of branchId and businessUnitId (0022 otherwise). */
function scopeOfRequest(request: { branchId?: number; businessUnitId?: number }): GrantScope {
  const { branchId, businessUnitId } = request;
  if ((branchId === undefined) === (businessUnitId === undefined))
    throw new DomainError('0022', 'give exactly one of branchId (operational) and businessUnitId (finance)');
  return branchId !== undefined ? { branchId } : { businessUnitId: businessUnitId! };
}

export const listRoleAssignments = defineRoute({
  operationId: 'listRoleAssignments',
  method: 'get',
  path: '/roles/assignments',
  interface: 'back',
  summary: 'Role assignments, oldest first',
  description:
    'Without a scope filter: every assignment on a branch where the caller holds ROLE_READ (grants on ancestors count) and on a business unit where it holds BUSINESS_UNIT_ROLE_READ. With `branchId` (optionally `includeChildBranches`) or `businessUnitId` (not both: 0022) only that scope, which needs the read permission there (AUTH002). Filters combine: `subjectType`, `subjectId`, `roleId`. Paged with the X-Total-* headers.',
  tags,
  query: Type.Object({
    subjectType: Type.Optional(RoleSubjectType),
    subjectId: Type.Optional(SubjectId),
    roleId: Type.Optional(Id()),
    branchId: Type.Optional(Id()),
    includeChildBranches: Type.Optional(Type.Boolean({ default: false })),
    businessUnitId: Type.Optional(Id()),
  }),
  paged: { defaultSize: 50 },
  access: {
    anyCaller:
      'lists only assignments on branches where the caller holds ROLE_READ and business units where it holds BUSINESS_UNIT_ROLE_READ.',
  },
  responses: { 200: { description: 'One page of assignments', schema: Type.Array(RoleAssignmentSchema) } },
  errors: ['AUTH002', 'B404', 'B405'],
  async handler(ctx) {
    const { em, query, page, tenant } = ctx;
    if (query.branchId !== undefined && query.businessUnitId !== undefined)
      throw new DomainError('0022', 'give branchId or businessUnitId, not both');
    let branchIds: number[];
    let unitIds: number[];
    if (query.branchId !== undefined) {
      await ctx.authorize('ROLE_READ', { branchId: query.branchId });
      branchIds = query.includeChildBranches
        ? await branchWithDescendants(em, tenant, query.branchId)
        : [query.branchId];
      unitIds = [];
    } else if (query.businessUnitId !== undefined) {
      await ctx.authorize('BUSINESS_UNIT_ROLE_READ', { businessUnitId: query.businessUnitId });
      branchIds = [];
      unitIds = [query.businessUnitId];
    } else {
      const tree = await branchTree(em, tenant);
      branchIds = [...(await grantedSubtrees(tree, (branchId) => permits(ctx, 'ROLE_READ', { branchId })))];
      unitIds = [];
      for (const businessUnitId of (await branchDirectory(em, tenant)).businessUnitIds)
        if (await permits(ctx, 'BUSINESS_UNIT_ROLE_READ', { businessUnitId })) unitIds.push(businessUnitId);
    }
    const scopes: FilterQuery<RoleAssignment>[] = [];
    if (branchIds.length) scopes.push({ branch: { $in: branchIds } });
    if (unitIds.length) scopes.push({ businessUnit: { $in: unitIds } });
    if (!scopes.length) return ok([], { total: 0 });
    const where: FilterQuery<RoleAssignment> = { $or: scopes };
    if (query.subjectType !== undefined) where.subjectType = query.subjectType;
    if (query.subjectId !== undefined) where.subjectId = query.subjectId;
    if (query.roleId !== undefined) where.role = query.roleId;
    const [rows, total] = await em.findAndCount(RoleAssignment, where, {
      populate: ['role'],
      orderBy: { id: 'asc' },
      limit: page.size,
      offset: page.offset,
    });
    return ok(await toAssignmentDtos(em, tenant, rows), { total });
  },
});

const HeldRole = Type.Object(
  {
    assignmentId: Id(),
    roleId: Id(),
    roleName: Type.String(),
    via: StringEnum(['BRANCH', 'ANCESTOR', 'BUSINESS_UNIT'] as const, {
      description:
        'BRANCH: assigned on this branch; ANCESTOR: on a branch above it (grants cover descendants); BUSINESS_UNIT: on its business unit (finance permissions).',
    }),
    branchId: Nullable(Id()),
    businessUnitId: Nullable(Id()),
  },
  { additionalProperties: false },
);

const BranchRoleHolders = component(
  'BranchRoleHolders',
  Type.Object(
    {
      branchId: Id(),
      branchName: Type.String(),
      businessUnitId: Id(),
      businessUnitAssignmentsIncluded: Type.Boolean({
        description:
          'Whether the business unit’s assignments are shown (the caller holds BUSINESS_UNIT_ROLE_READ on it).',
      }),
      subjects: Type.Array(
        Type.Object(
          {
            subjectType: RoleSubjectType,
            subjectId: Type.String(),
            subjectName: Nullable(Type.String()),
            roles: Type.Array(HeldRole),
          },
          { additionalProperties: false },
        ),
      ),
    },
    { additionalProperties: false },
  ),
);

export const listRoleAssignmentsDetailed = defineRoute({
  operationId: 'listRoleAssignmentsDetailed',
  method: 'get',
  path: '/roles/assignments-detailed',
  interface: 'back',
  summary: 'Who holds which role on each branch',
  description:
    'Per branch (the branch, and with `includeChildBranches` its descendants, by id; paged over branches), each subject with the roles that apply there: assigned on the branch, on an ancestor, or — when the caller holds BUSINESS_UNIT_ROLE_READ on it — on the branch’s business unit.',
  tags,
  query: Type.Object({
    branchId: Id(),
    includeChildBranches: Type.Optional(Type.Boolean({ default: false })),
  }),
  paged: { defaultSize: 20 },
  access: {
    permission: 'ROLE_READ',
    branchOf: 'query parameter branchId',
    branch: (ctx) => ctx.query.branchId,
  },
  responses: { 200: { description: 'One page of branches', schema: Type.Array(BranchRoleHolders) } },
  errors: [],
  async handler(ctx) {
    const { em, tenant, query, page } = ctx;
    const all = query.includeChildBranches
      ? (await branchWithDescendants(em, tenant, query.branchId)).sort((a, b) => a - b)
      : [query.branchId];
    const pageIds = all.slice(page.offset, page.offset + page.size);
    const { branches } = await branchDirectory(em, tenant);
    const ancestries = new Map<number, number[]>();
    for (const id of pageIds) ancestries.set(id, await branchAncestry(em, tenant, id));
    const units = [...new Set(pageIds.map((id) => branches.get(id)?.businessUnitId ?? 0))];
    const readableUnits = new Set<number>();
    for (const businessUnitId of units)
      if (await permits(ctx, 'BUSINESS_UNIT_ROLE_READ', { businessUnitId }))
        readableUnits.add(businessUnitId);
    const scopes: FilterQuery<RoleAssignment>[] = [
      { branch: { $in: [...new Set([...ancestries.values()].flat())] } },
    ];
    if (readableUnits.size) scopes.push({ businessUnit: { $in: [...readableUnits] } });
    const [assignments, names] = await Promise.all([
      pageIds.length
        ? em.find(RoleAssignment, { $or: scopes }, { populate: ['role'], orderBy: { id: 'asc' } })
        : [],
      em.find(Branch, { id: { $in: pageIds } }, { fields: ['id', 'name'] }),
    ]);
    const clients = await apiClientNames(
      em,
      tenant,
      assignments.filter((row) => row.subjectType === 'API_CLIENT').map((row) => row.subjectId),
    );
    const nameOf = new Map(names.map((branch) => [branch.id, branch.name]));
    const items = pageIds.map((branchId) => {
      const ancestry = ancestries.get(branchId) ?? [];
      const businessUnitId = branches.get(branchId)?.businessUnitId ?? 0;
      const subjects = new Map<string, Static<typeof BranchRoleHolders>['subjects'][number]>();
      for (const row of assignments) {
        const via = row.branch
          ? row.branch.id === branchId
            ? ('BRANCH' as const)
            : ancestry.includes(row.branch.id)
              ? ('ANCESTOR' as const)
              : undefined
          : row.businessUnit?.id === businessUnitId && readableUnits.has(businessUnitId)
            ? ('BUSINESS_UNIT' as const)
            : undefined;
        if (!via) continue;
        const key = `${row.subjectType}:${row.subjectId}`;
        let subject = subjects.get(key);
        if (!subject) {
          subject = {
            subjectType: row.subjectType,
            subjectId: row.subjectId,
            subjectName: row.subjectType === 'API_CLIENT' ? (clients.get(row.subjectId) ?? null) : null,
            roles: [],
          };
          subjects.set(key, subject);
        }
        subject.roles.push({
          assignmentId: row.id,
          roleId: row.role.id,
          roleName: row.role.name,
          via,
          branchId: row.branch?.id ?? null,
          businessUnitId: row.businessUnit?.id ?? null,
        });
      }
      return {
        branchId,
        branchName: nameOf.get(branchId) ?? '',
        businessUnitId,
        businessUnitAssignmentsIncluded: readableUnits.has(businessUnitId),
        subjects: [...subjects.values()],
      };
    });
    return ok(items, { total: all.length });
  },
});

const RoleAssignmentCreate = component(
  'RoleAssignmentCreate',
  Type.Object(
    {
      roleId: Id(),
      subjectType: RoleSubjectType,
      subjectId: SubjectId,
      branchId: Type.Optional(Id({ description: 'Operational scope (the branch and its descendants).' })),
      businessUnitId: Type.Optional(Id({ description: 'Finance scope.' })),
    },
    { additionalProperties: false, description: 'Exactly one of branchId and businessUnitId.' },
  ),
);

export const createRoleAssignment = defineRoute({
  operationId: 'createRoleAssignment',
  method: 'post',
  path: '/roles/assignments',
  interface: 'back',
  summary: 'Grant a role to an operator or API client on a branch or business unit',
  description:
    'Needs ROLE_MANAGE on the branch (grants on ancestors count) or BUSINESS_UNIT_ROLE_MANAGE on the business unit (AUTH002), and the caller must hold there every permission the role gives on that scope (operational ones on a branch, finance ones on a business unit): AUTHZ018.2 otherwise. A role holding a root permission is never granted (AUTHZ018.1); a role configured vehicle operations are limited to needs one of each operation’s roles held there (AUTHZ018.3). An API client must be the tenant’s (AUTH210). Effective from the subject’s next request.',
  tags,
  body: RoleAssignmentCreate,
  access: {
    anyCaller:
      'the handler requires ROLE_MANAGE on the branch or BUSINESS_UNIT_ROLE_MANAGE on the business unit.',
  },
  responses: { 201: { description: 'The assignment', schema: RoleAssignmentSchema } },
  errors: ['AUTH002', 'AUTHZ018', 'AUTH210', 'AR404', 'AR102', 'B404', 'B405'],
  async handler(ctx) {
    const { body, em, tenant } = ctx;
    const scope = scopeOfRequest(body);
    if (body.subjectType === 'OPERATOR' && !NAMED_SUBJECT.test(body.subjectId))
      throw new DomainError('0022', 'an operator id is printable text without white space at either end');
    await ctx.authorize(managePermissionOn(scope), scope);
    if (body.subjectType === 'API_CLIENT' && !(await em.count(ApiClient, { clientId: body.subjectId })))
      throw new DomainError('AUTH210', `API client "${body.subjectId}" does not exist`);
    const assignment = await em.transactional(async (tx) => {
      // Shares the role's row lock: a concurrent change of the role waits, so both checks see one state.
      const role = await loadRole(tx, body.roleId, LockMode.PESSIMISTIC_READ);
      await assertMayGrant(ctx, tx, role, scope);
      const target = {
        role,
        subjectType: body.subjectType,
        subjectId: body.subjectId,
        ...('branchId' in scope
          ? { branch: tx.getReference(Branch, scope.branchId), businessUnit: null }
          : { businessUnit: tx.getReference(BusinessUnit, scope.businessUnitId), branch: null }),
      };
      if (await tx.count(RoleAssignment, target))
        throw new DomainError(
          'AR102',
          `${body.subjectId} already holds role ${role.id} on ${describeScope(scope)}`,
        );
      const row = tx.create(RoleAssignment, target);
      await tx.flush();
      recordEvent(tx, {
        type: 'ROLE_ASSIGNMENT_CREATED',
        adminSubject: ctx.actor,
        branchId: 'branchId' in scope ? scope.branchId : null,
        payload: assignmentPayload(row, role, scope),
      });
      return row;
    });
    return created((await toAssignmentDtos(em, tenant, [assignment]))[0]!);
  },
});

/** The event payload of a granted or revoked assignment. */
const assignmentPayload = (row: RoleAssignment, role: Role, scope: GrantScope) => ({
  assignmentId: row.id,
  roleId: role.id,
  roleName: role.name,
  subjectType: row.subjectType,
  subjectId: row.subjectId,
  ...scope,
});

export const deleteRoleAssignment = defineRoute({
  operationId: 'deleteRoleAssignment',
  method: 'delete',
  path: '/roles/assignments/{assignmentId}',
  interface: 'back',
  summary: 'Revoke a role assignment',
  description:
    'Needs what granting it needs (the manage permission on its scope and every permission the role gives there: AUTH002, AUTHZ018), so nobody revokes a grant they could not give. Effective from the subject’s next request.',
  tags,
  params: Type.Object({ assignmentId: Id() }),
  access: {
    anyCaller: 'the handler requires what granting the assignment requires, on the assignment’s scope.',
  },
  responses: { 204: { description: 'Revoked' } },
  errors: ['AUTH002', 'AUTHZ018', 'AR404'],
  async handler(ctx) {
    const { em, params } = ctx;
    const found = await em.findOne(RoleAssignment, params.assignmentId);
    if (!found) throw new DomainError('AR404', `role assignment ${params.assignmentId} not found`);
    const scope = scopeOf(found);
    await ctx.authorize(managePermissionOn(scope), scope);
    await em.transactional(async (tx) => {
      const role = await loadRole(tx, found.role.id, LockMode.PESSIMISTIC_READ);
      const row = await tx.findOne(RoleAssignment, params.assignmentId);
      if (!row) throw new DomainError('AR404', `role assignment ${params.assignmentId} not found`);
      await assertMayGrant(ctx, tx, role, scope);
      recordEvent(tx, {
        type: 'ROLE_ASSIGNMENT_DELETED',
        adminSubject: ctx.actor,
        branchId: 'branchId' in scope ? scope.branchId : null,
        payload: assignmentPayload(row, role, scope),
      });
      tx.remove(row);
    });
    return noContent();
  },
});

/** `GET /roles/assignments/exists`: lets a dashboard pre-check what the caller may do (the action stays authoritative). */
export const roleAssignmentExists = defineRoute({
  operationId: 'roleAssignmentExists',
  method: 'get',
  path: '/roles/assignments/exists',
  interface: 'back',
  summary: 'Does the caller hold a permission (or a role), optionally on a branch or business unit',
  description:
    'A pre-check only: the action endpoint stays authoritative. Give `permission`, `roleName` or both; a permission no domain declares is a validation error (0022); a root permission is never held by a tenant’s subject (`exists: false`).',
  tags,
  query: Type.Object({
    permission: Type.Optional(
      Str(64, { pattern: '^[A-Z][A-Z0-9_]*$', description: 'A permission name, e.g. RENTAL_READ.' }),
    ),
    roleName: Type.Optional(RoleName),
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
    if (query.permission !== undefined && services.permissions.root.includes(query.permission))
      return ok({ exists: false });
    if (query.permission !== undefined && !services.permissions.all.includes(query.permission))
      throw new DomainError('0022', `${query.permission} is not a permission of this platform`);
    return ok({ exists: await holds(query) });
  },
});

export const roleAssignmentRoutes = [
  listRoleAssignments,
  listRoleAssignmentsDetailed,
  createRoleAssignment,
  deleteRoleAssignment,
  roleAssignmentExists,
];
