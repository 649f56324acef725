// Rental authority for operators: who may rent on a branch where RENTAL_AUTHORITY is a start
// requirement. List, grant, revoke, and bulk grant/revoke on one branch.
import { Type, type Static } from '@sinclair/typebox';
import type { EntityManager } from '@mikro-orm/postgresql';
import { Customer } from '../../../db/entities/Customer.js';
import { RentalAuthority } from '../../../db/entities/RentalAuthority.js';
import { recordEvent } from '../../../db/events.js';
import { DomainError } from '../../../domain/errors.js';
import { created, defineRoute, noContent, ok } from '../../kernel/route.js';
import { component, DateTime, Id, StringEnum } from '../../kernel/schemas.js';
import { CustomerSummary, toCustomerSummary } from '../../shared/customer-representation.js';

const RentalAuthoritySchema = component(
  'RentalAuthority',
  Type.Object(
    {
      guserId: Id(),
      branchId: Id(),
      user: CustomerSummary,
      grantedBy: Type.String(),
      grantedAt: DateTime(),
    },
    { additionalProperties: false },
  ),
);

function toRentalAuthority(grant: RentalAuthority): Static<typeof RentalAuthoritySchema> {
  return {
    guserId: grant.customer.id,
    branchId: grant.branch.id,
    user: toCustomerSummary(grant.customer),
    grantedBy: grant.grantedBy,
    grantedAt: grant.grantedAt.toISOString(),
  };
}

const GrantQuery = Type.Object({
  guserId: Id({ description: 'The customer.' }),
  branchId: Id({ description: 'The branch the authority applies to (and its child branches).' }),
});

const tags = ['Rentals'];

/**
 * Grants rental authority (idempotent: the unique index absorbs a concurrent grant); whether it was new.
 * U106 when the customer does not exist.
 */
async function grant(
  em: EntityManager,
  tenant: string,
  customerId: number,
  branchId: number,
  grantedBy: string,
): Promise<boolean> {
  if (!(await em.count(Customer, customerId)))
    throw new DomainError('U106', `customer ${customerId} not found`);
  const inserted = await em
    .createQueryBuilder(RentalAuthority)
    .insert({ tenant, customer: customerId, branch: branchId, grantedBy, grantedAt: new Date() })
    .onConflict(['tenant', 'customer', 'branch'])
    .ignore()
    .execute('run');
  const isNew = (inserted.affectedRows ?? 0) > 0;
  if (isNew) recordAuthorityEvent(em, 'GRANTED', customerId, branchId, grantedBy);
  return isNew;
}

/** Each grant and revoke leaves a USER_RENTAL_AUTHORITY_* event on the customer's timeline (audit). */
function recordAuthorityEvent(
  em: EntityManager,
  change: 'GRANTED' | 'REVOKED',
  customerId: number,
  branchId: number,
  actor: string,
): void {
  recordEvent(em, {
    type: `USER_RENTAL_AUTHORITY_${change}`,
    customerId,
    branchId,
    adminSubject: actor,
    payload: { branchId },
  });
}

const loadGrant = (em: EntityManager, customerId: number, branchId: number) =>
  em.findOne(RentalAuthority, { customer: customerId, branch: branchId }, { populate: ['customer'] });

export const listRentalAuthority = defineRoute({
  operationId: 'listRentalAuthority',
  method: 'get',
  path: '/rental-authority',
  interface: 'back',
  summary: 'Customers holding rental authority on a branch',
  description: 'Grants made on this very branch (grants on a parent branch also cover it; list the parent).',
  tags,
  query: Type.Object({ branchId: Id() }),
  paged: { defaultSize: 20 },
  access: {
    permission: 'RENTAL_AUTHORITY_READ',
    branchOf: 'query parameter branchId',
    branch: (ctx) => ctx.query.branchId,
  },
  responses: { 200: { description: 'One page of grants', schema: Type.Array(RentalAuthoritySchema) } },
  errors: [],
  async handler({ em, query, page }) {
    const [grants, total] = await em.findAndCount(
      RentalAuthority,
      { branch: query.branchId },
      {
        populate: ['customer'],
        orderBy: { grantedAt: 'desc', id: 'desc' },
        limit: page.size,
        offset: page.offset,
      },
    );
    return ok(grants.map(toRentalAuthority), { total });
  },
});

export const grantRentalAuthority = defineRoute({
  operationId: 'grantRentalAuthority',
  method: 'post',
  path: '/rental-authority',
  interface: 'back',
  summary: 'Grant a customer rental authority on a branch',
  description: 'Idempotent: 201 when granted now, 200 when the customer already held it.',
  tags,
  query: GrantQuery,
  access: {
    permission: 'RENTAL_AUTHORITY_MANAGE',
    branchOf: 'query parameter branchId',
    branch: (ctx) => ctx.query.branchId,
  },
  responses: {
    200: { description: 'Already held', schema: RentalAuthoritySchema },
    201: { description: 'Granted', schema: RentalAuthoritySchema },
  },
  errors: ['U106', 'RQ404'],
  async handler({ em, tenant, query, actor }) {
    const isNew = await grant(em, tenant, query.guserId, query.branchId, actor);
    const row = await loadGrant(em, query.guserId, query.branchId);
    if (!row) throw new DomainError('RQ404', 'the grant was revoked concurrently');
    const body = toRentalAuthority(row);
    return isNew ? created(body) : ok(body);
  },
});

export const revokeRentalAuthority = defineRoute({
  operationId: 'revokeRentalAuthority',
  method: 'delete',
  path: '/rental-authority',
  interface: 'back',
  summary: "Revoke a customer's rental authority on a branch",
  tags,
  query: GrantQuery,
  access: {
    permission: 'RENTAL_AUTHORITY_MANAGE',
    branchOf: 'query parameter branchId',
    branch: (ctx) => ctx.query.branchId,
  },
  responses: { 204: { description: 'Revoked' } },
  errors: ['RQ404'],
  async handler({ em, query, actor }) {
    const removed = await em.nativeDelete(RentalAuthority, {
      customer: query.guserId,
      branch: query.branchId,
    });
    if (removed === 0)
      throw new DomainError(
        'RQ404',
        `customer ${query.guserId} holds no rental authority on branch ${query.branchId}`,
      );
    recordAuthorityEvent(em, 'REVOKED', query.guserId, query.branchId, actor);
    return noContent();
  },
});

const bulkActions = ['GRANT', 'REVOKE'] as const;

const BulkRentalAuthority = component(
  'RentalAuthorityBulk',
  Type.Object(
    {
      branchId: Id({ description: 'The branch every entry applies to.' }),
      entries: Type.Array(
        Type.Object({ guserId: Id(), action: StringEnum(bulkActions) }, { additionalProperties: false }),
        { minItems: 1, maxItems: 500 },
      ),
    },
    { additionalProperties: false },
  ),
);

const BulkResult = component(
  'RentalAuthorityBulkResult',
  Type.Object(
    {
      guserId: Id(),
      action: StringEnum(bulkActions),
      result: StringEnum(['GRANTED', 'REVOKED', 'UNCHANGED', 'FAILED'] as const, {
        description: 'UNCHANGED: already held (GRANT) or not held (REVOKE).',
      }),
      errorCode: Type.Optional(Type.String()),
      userMessage: Type.Optional(Type.String()),
    },
    { additionalProperties: false },
  ),
);

export const bulkRentalAuthority = defineRoute({
  operationId: 'bulkRentalAuthority',
  method: 'put',
  path: '/rental-authority/bulk',
  interface: 'back',
  summary: 'Grant and revoke rental authority of many customers on one branch',
  description:
    'Entries apply in order; one result per entry. An entry naming an unknown customer fails alone (U106) and the others still apply.',
  tags,
  body: BulkRentalAuthority,
  access: {
    permission: 'RENTAL_AUTHORITY_MANAGE',
    branchOf: 'body field branchId',
    branch: (ctx) => ctx.body.branchId,
  },
  responses: { 200: { description: 'One result per entry', schema: Type.Array(BulkResult) } },
  errors: [],
  async handler({ em, tenant, body, actor }) {
    const ids = [...new Set(body.entries.map((entry) => entry.guserId))];
    const known = new Set(
      (await em.find(Customer, { id: { $in: ids } }, { fields: ['id'] })).map((customer) => customer.id),
    );
    // All entries or none: a failure of the database mid-way leaves no half-applied list.
    const results = await em.transactional(async (tx) => {
      const done: Static<typeof BulkResult>[] = [];
      for (const entry of body.entries) {
        if (!known.has(entry.guserId)) {
          done.push({
            ...entry,
            result: 'FAILED',
            errorCode: 'U106',
            userMessage: `customer ${entry.guserId} not found`,
          });
        } else if (entry.action === 'GRANT') {
          const isNew = await grant(tx, tenant, entry.guserId, body.branchId, actor);
          done.push({ ...entry, result: isNew ? 'GRANTED' : 'UNCHANGED' });
        } else {
          const removed = await tx.nativeDelete(RentalAuthority, {
            customer: entry.guserId,
            branch: body.branchId,
          });
          if (removed > 0) recordAuthorityEvent(tx, 'REVOKED', entry.guserId, body.branchId, actor);
          done.push({ ...entry, result: removed > 0 ? 'REVOKED' : 'UNCHANGED' });
        }
      }
      return done;
    });
    return ok(results);
  },
});

export const rentalAuthorityRoutes = [
  listRentalAuthority,
  grantRentalAuthority,
  revokeRentalAuthority,
  bulkRentalAuthority,
];
