// Cost centers of the caller's business account: members read them, managers change them.
import { Type, type Static } from '@sinclair/typebox';
import { UniqueConstraintViolationException } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { CostCenter } from '../../../db/entities/CostCenter.js';
import { GroupMembership } from '../../../db/entities/GroupMembership.js';
import { type Customer } from '../../../db/entities/Customer.js';
import { type UserGroup } from '../../../db/entities/UserGroup.js';
import { DomainError } from '../../../domain/errors.js';
import { created, defineRoute, noContent, ok, type RouteContext } from '../../kernel/route.js';
import { component, DateTime, Id, Nullable, Str } from '../../kernel/schemas.js';

const CostCenterSchema = component(
  'CostCenter',
  Type.Object(
    {
      id: Id(),
      userGroupId: Id(),
      code: Type.String(),
      name: Type.String(),
      description: Nullable(Type.String()),
      createdAt: DateTime(),
    },
    { additionalProperties: false },
  ),
);

function toCostCenter(center: CostCenter): Static<typeof CostCenterSchema> {
  return {
    id: center.id,
    userGroupId: center.group.id,
    code: center.code,
    name: center.name,
    description: center.description ?? null,
    createdAt: center.createdAt.toISOString(),
  };
}

/** The caller's active membership, or UG405 (cost centers belong to the caller's one account). */
async function myMembership(em: EntityManager, customer: Customer): Promise<GroupMembership> {
  const membership = await em.findOne(
    GroupMembership,
    { customer, state: 'ACTIVE' },
    { populate: ['group'] },
  );
  if (!membership) throw new DomainError('UG405', 'you do not belong to a business account');
  return membership;
}

/** Only managers of the caller's own account change cost centers (A100 for other members). */
function assertManager(membership: GroupMembership, customer: Customer): UserGroup {
  if (!membership.canManage && membership.group.owner?.id !== customer.id)
    throw new DomainError('A100', 'only the owner and managing members change cost centers');
  return membership.group;
}

async function centerOf(
  ctx: RouteContext<{ costCenterId: number }>,
): Promise<{ center: CostCenter; membership: GroupMembership; customer: Customer }> {
  const customer = await ctx.customer();
  const membership = await myMembership(ctx.em, customer);
  const center = await ctx.em.findOne(CostCenter, { id: ctx.params.costCenterId, group: membership.group });
  // Another account's cost center is simply not found.
  if (!center) throw new DomainError('UG406');
  return { center, membership, customer };
}

const Fields = {
  code: Str(64, { minLength: 1, pattern: '^[A-Za-z0-9][A-Za-z0-9_.-]*$' }),
  name: Str(200, { minLength: 1 }),
  description: Type.Optional(Nullable(Str(1000))),
};

async function flushUnique(em: EntityManager): Promise<void> {
  try {
    await em.flush();
  } catch (error) {
    if (error instanceof UniqueConstraintViolationException) throw new DomainError('UG407');
    throw error;
  }
}

/** `GET /cost-centers`: the cost centers of the caller's business account. */
export const listCostCenters = defineRoute({
  operationId: 'listCostCenters',
  method: 'get',
  path: '/cost-centers',
  interface: 'front',
  summary: 'Cost centers of my business account',
  tags: ['Cost centers'],
  access: { customer: "the cost centers of the caller's own account." },
  responses: { 200: { description: 'Cost centers', schema: Type.Array(CostCenterSchema) } },
  errors: ['UG405'],
  async handler(ctx) {
    const membership = await myMembership(ctx.em, await ctx.customer());
    const rows = await ctx.em.find(CostCenter, { group: membership.group }, { orderBy: { code: 'asc' } });
    return ok(rows.map(toCostCenter));
  },
});

/** `POST /cost-centers`: a manager adds a cost center. */
export const createCostCenter = defineRoute({
  operationId: 'createCostCenter',
  method: 'post',
  path: '/cost-centers',
  interface: 'front',
  summary: 'Add a cost center to my business account',
  tags: ['Cost centers'],
  body: component('CostCenterCreate', Type.Object(Fields, { additionalProperties: false })),
  access: { customer: "managers of the caller's own account." },
  responses: {
    201: {
      description: 'Created',
      schema: CostCenterSchema,
      headers: { Location: { description: 'The new cost center.', schema: Str(200) } },
    },
  },
  errors: ['UG405', 'UG407', 'A100'],
  async handler(ctx) {
    const customer = await ctx.customer();
    const group = assertManager(await myMembership(ctx.em, customer), customer);
    const center = ctx.em.create(CostCenter, {
      group,
      code: ctx.body.code,
      name: ctx.body.name,
      description: ctx.body.description ?? null,
    });
    await flushUnique(ctx.em);
    return created(toCostCenter(center), { Location: `${ctx.baseUrl}/cost-centers/${center.id}` });
  },
});

const CenterParam = Type.Object({ costCenterId: Id() });

/** `GET /cost-centers/{costCenterId}`. */
export const getCostCenter = defineRoute({
  operationId: 'getCostCenter',
  method: 'get',
  path: '/cost-centers/{costCenterId}',
  interface: 'front',
  summary: 'One cost center of my business account',
  tags: ['Cost centers'],
  params: CenterParam,
  access: { customer: "cost centers of the caller's own account only." },
  responses: { 200: { description: 'The cost center', schema: CostCenterSchema } },
  errors: ['UG405', 'UG406'],
  async handler(ctx) {
    return ok(toCostCenter((await centerOf(ctx)).center));
  },
});

/** `PATCH /cost-centers/{costCenterId}`. */
export const updateCostCenter = defineRoute({
  operationId: 'updateCostCenter',
  method: 'patch',
  path: '/cost-centers/{costCenterId}',
  interface: 'front',
  summary: 'Change a cost center of my business account',
  tags: ['Cost centers'],
  params: CenterParam,
  body: component(
    'CostCenterUpdate',
    Type.Object(
      { code: Type.Optional(Fields.code), name: Type.Optional(Fields.name), description: Fields.description },
      { additionalProperties: false },
    ),
  ),
  access: { customer: "managers of the caller's own account." },
  responses: { 200: { description: 'Updated', schema: CostCenterSchema } },
  errors: ['UG405', 'UG406', 'UG407', 'A100'],
  async handler(ctx) {
    const { center, membership, customer } = await centerOf(ctx);
    assertManager(membership, customer);
    Object.assign(center, ctx.body);
    await flushUnique(ctx.em);
    return ok(toCostCenter(center));
  },
});

/** `DELETE /cost-centers/{costCenterId}`: members and the account default that used it fall back to none. */
export const deleteCostCenter = defineRoute({
  operationId: 'deleteCostCenter',
  method: 'delete',
  path: '/cost-centers/{costCenterId}',
  interface: 'front',
  summary: 'Remove a cost center from my business account',
  tags: ['Cost centers'],
  params: CenterParam,
  access: { customer: "managers of the caller's own account." },
  responses: { 204: { description: 'Removed' } },
  errors: ['UG405', 'UG406', 'A100'],
  async handler(ctx) {
    const { center, membership, customer } = await centerOf(ctx);
    const group = assertManager(membership, customer);
    await ctx.em.nativeUpdate(GroupMembership, { group, costCenterId: center.id }, { costCenterId: null });
    if (group.defaultCostCenterId === center.id) group.defaultCostCenterId = null;
    ctx.em.remove(center);
    return noContent();
  },
});

export const costCenterRoutes = [
  listCostCenters,
  createCostCenter,
  getCostCenter,
  updateCostCenter,
  deleteCostCenter,
];
