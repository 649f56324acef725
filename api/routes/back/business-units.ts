// Business units (billable branches): currency, tax, rounding and the commercial settings of a billing
// scope. Finance permissions are checked on them.
import { Type, type Static, type TOptional } from '@sinclair/typebox';
import { ForeignKeyConstraintViolationException } from '@mikro-orm/core';
import { Branch } from '../../../db/entities/Branch.js';
import { BusinessUnit } from '../../../db/entities/BusinessUnit.js';
import { RoleAssignment } from '../../../db/entities/RoleAssignment.js';
import type { EntityManager } from '../../../db/orm.js';
import { readCacheOf } from '../../../db/read-cache.js';
import { DomainError } from '../../../domain/errors.js';
import { created, defineRoute, noContent, ok, type RouteContext } from '../../kernel/route.js';
import { component, Id, Int, Nullable, Str, ScalarProperties } from '../../kernel/schemas.js';
import { orderBy } from '../../paging.js';
import { ContactInfo } from '../../shared/branch-representation.js';
import {
  assertTimeZone,
  inRequestTransaction,
  CurrencyCode,
  PercentageString,
  searchCondition,
  TimeZoneId,
} from './branches.js';

const tags = ['Business Units'];

/** An amount of money as a decimal string (never binary floating point). */
const MoneyString = Str(16, {
  pattern: '^[0-9]{1,10}(\\.[0-9]{1,2})?$',
  description: 'Amount, e.g. `50.00`.',
});
/** A free-form settings object for apps or dashboards. */
/** Free-form settings of a business unit for dashboards and UIs. */
const Properties = ScalarProperties(100);

const businessUnitFields = {
  code: Str(64, { minLength: 1, pattern: '^[A-Za-z0-9][A-Za-z0-9._-]*$' }),
  name: Str(200, { minLength: 1 }),
  timeZoneId: TimeZoneId,
  currency: CurrencyCode,
  taxPercentage: PercentageString,
  scale: Int(0, 4, { description: 'Decimal places prices are rounded to.' }),
  contactInfo: Nullable(ContactInfo),
  uiSettings: Nullable(Properties),
  termsAndConditionsId: Nullable(Id()),
  merchantAccountOverride: Nullable(Str(200)),
  reserveAmountOnCc: Nullable(MoneyString),
  sepaHandlingFeeNet: Nullable(MoneyString),
  signupVoucherableId: Nullable(Id()),
  referrerVoucherableId: Nullable(Id()),
  refereeVoucherableId: Nullable(Id()),
  appProperties: Nullable(Properties),
  dashboardProperties: Nullable(Properties),
};
type Fields = typeof businessUnitFields;
const optional = <K extends keyof Fields>(keys: readonly K[]) =>
  Object.fromEntries(keys.map((key) => [key, Type.Optional(businessUnitFields[key])])) as unknown as {
    [P in K]: TOptional<Fields[P]>;
  };
const required = ['code', 'name', 'timeZoneId', 'currency', 'taxPercentage'] as const;
const nullableKeys = [
  'scale',
  'contactInfo',
  'uiSettings',
  'termsAndConditionsId',
  'merchantAccountOverride',
  'reserveAmountOnCc',
  'sepaHandlingFeeNet',
  'signupVoucherableId',
  'referrerVoucherableId',
  'refereeVoucherableId',
  'appProperties',
  'dashboardProperties',
] as const;

const BusinessUnitSchema = component(
  'BusinessUnit',
  Type.Object(
    {
      id: Id(),
      ...businessUnitFields,
      code: Type.String(),
      name: Type.String(),
      timeZoneId: Type.String(),
      branchCount: Type.Integer({ description: 'Branches billed by this unit.' }),
    },
    { additionalProperties: false },
  ),
);

const BusinessUnitCreate = component(
  'BusinessUnitCreate',
  Type.Object(
    { ...Type.Pick(Type.Object(businessUnitFields), required).properties, ...optional(nullableKeys) },
    { additionalProperties: false },
  ),
);

const BusinessUnitPatch = component(
  'BusinessUnitPatch',
  Type.Object(
    { ...optional(required), ...optional(nullableKeys) },
    { additionalProperties: false, description: 'Only the fields given change; null clears a field.' },
  ),
);

const BusinessUnitIdParams = Type.Object({ businessUnitId: Id() });
const BillableIdParams = Type.Object({ id: Id({ description: 'Business unit (billable branch) id.' }) });

type Dto = Static<typeof BusinessUnitSchema>;

function toBusinessUnitDto(unit: BusinessUnit, branchCount: number): Dto {
  return {
    id: unit.id,
    code: unit.code,
    name: unit.name,
    timeZoneId: unit.timeZoneId,
    currency: unit.currency,
    taxPercentage: unit.taxPercentage,
    scale: unit.scale,
    contactInfo: (unit.contactInfo as Dto['contactInfo']) ?? null,
    uiSettings: (unit.uiSettings as Dto['uiSettings']) ?? null,
    termsAndConditionsId: unit.termsAndConditionsId ?? null,
    merchantAccountOverride: unit.merchantAccountOverride ?? null,
    reserveAmountOnCc: unit.reserveAmountOnCc ?? null,
    sepaHandlingFeeNet: unit.sepaHandlingFeeNet ?? null,
    signupVoucherableId: unit.signupVoucherableId ?? null,
    referrerVoucherableId: unit.referrerVoucherableId ?? null,
    refereeVoucherableId: unit.refereeVoucherableId ?? null,
    appProperties: (unit.appProperties as Dto['appProperties']) ?? null,
    dashboardProperties: (unit.dashboardProperties as Dto['dashboardProperties']) ?? null,
    branchCount,
  };
}

async function dtoOf(em: EntityManager, unit: BusinessUnit): Promise<Dto> {
  return toBusinessUnitDto(unit, await em.count(Branch, { businessUnit: unit.id }));
}

async function loadUnit(em: EntityManager, id: number): Promise<BusinessUnit> {
  const unit = await em.findOne(BusinessUnit, id);
  if (!unit) throw new DomainError('B405', `business unit ${id} not found`);
  return unit;
}

async function assertCodeFree(em: EntityManager, code: string, exceptId?: number): Promise<void> {
  const other = await em.findOne(BusinessUnit, { code });
  if (other && other.id !== exceptId) throw new DomainError('B103', `business unit code ${code} exists`);
}

/** Applies the given fields (undefined: unchanged; null: cleared, `scale` back to 2). */
function applyFields(unit: BusinessUnit, fields: Partial<Static<typeof BusinessUnitPatch>>): void {
  assertTimeZone(fields.timeZoneId);
  for (const [key, value] of Object.entries(fields)) {
    if (value === undefined) continue;
    if (key === 'scale') unit.scale = value === null ? 2 : (value as number);
    else (unit as unknown as Record<string, unknown>)[key] = value;
  }
}

export const listBusinessUnits = defineRoute({
  operationId: 'listBusinessUnits',
  method: 'get',
  path: '/business-units',
  interface: 'back',
  summary: 'Business units the caller may read',
  tags,
  query: Type.Object({
    searchText: Type.Optional(Str(100, { minLength: 1 })),
    sort: Type.Optional(Str(20, { pattern: '^(id|name|code)(,(asc|desc|ASC|DESC))?$', default: 'name' })),
  }),
  paged: { defaultSize: 50 },
  access: { anyCaller: 'lists only the units on which the caller holds BUSINESS_UNIT_READ.' },
  responses: { 200: { description: 'One page of business units', schema: Type.Array(BusinessUnitSchema) } },
  errors: [],
  async handler(ctx) {
    const { em, query, page } = ctx;
    const all = await em.find(BusinessUnit, searchCondition(query.searchText), {
      orderBy: orderBy(query.sort, 'name'),
    });
    const readable: BusinessUnit[] = [];
    for (const unit of all)
      if (await ctx.holds({ permission: 'BUSINESS_UNIT_READ', businessUnitId: unit.id })) readable.push(unit);
    const pageRows = readable.slice(page.offset, page.offset + page.size);
    return ok(await Promise.all(pageRows.map((unit) => dtoOf(em, unit))), { total: readable.length });
  },
});

export const getBusinessUnit = defineRoute({
  operationId: 'getBusinessUnit',
  method: 'get',
  path: '/business-units/{businessUnitId}',
  interface: 'back',
  summary: 'One business unit',
  tags,
  params: BusinessUnitIdParams,
  access: {
    permission: 'BUSINESS_UNIT_READ',
    businessUnitOf: 'the path',
    businessUnit: (ctx) => ctx.params.businessUnitId,
  },
  responses: { 200: { description: 'The business unit', schema: BusinessUnitSchema } },
  errors: [],
  async handler({ em, params }) {
    return ok(await dtoOf(em, await loadUnit(em, params.businessUnitId)));
  },
});

export const createBusinessUnit = defineRoute({
  operationId: 'createBusinessUnit',
  method: 'post',
  path: '/business-units',
  interface: 'back',
  summary: 'Create a business unit',
  description:
    'A new unit has no scope yet: the caller needs BUSINESS_UNIT_CREATE on some business unit of the tenant (a tenant-wide finance grant).',
  tags,
  body: BusinessUnitCreate,
  access: { anyCaller: 'the handler requires BUSINESS_UNIT_CREATE on some business unit of the tenant.' },
  responses: {
    201: {
      description: 'Business unit created',
      schema: BusinessUnitSchema,
      headers: { Location: { description: 'URL of the new unit.', schema: Str(200) } },
    },
  },
  errors: ['AUTH002', 'B103', 'B105'],
  async handler(ctx) {
    const { em, body } = ctx;
    if (!(await ctx.holds({ permission: 'BUSINESS_UNIT_CREATE' })))
      throw new DomainError('AUTH002', 'missing permission BUSINESS_UNIT_CREATE');
    assertTimeZone(body.timeZoneId);
    await assertCodeFree(em, body.code);
    const unit = em.create(BusinessUnit, {
      code: body.code,
      name: body.name,
      timeZoneId: body.timeZoneId,
      currency: body.currency,
      taxPercentage: body.taxPercentage,
    });
    applyFields(unit, body);
    await em.flush();
    return created(await dtoOf(em, unit), { Location: `${ctx.baseUrl}/business-units/${unit.id}` });
  },
});

/** Replaces every field of a unit (PUT): shared by /business-units/{id} and /branches/billable/{id}. */
async function replaceUnit(ctx: RouteContext, id: number, body: Static<typeof BusinessUnitCreate>) {
  const unit = await loadUnit(ctx.em, id);
  await assertCodeFree(ctx.em, body.code, unit.id);
  const cleared = Object.fromEntries(nullableKeys.map((key) => [key, null]));
  applyFields(unit, { ...cleared, ...body });
  await ctx.em.flush();
  return ok(await dtoOf(ctx.em, unit));
}

export const updateBusinessUnit = defineRoute({
  operationId: 'updateBusinessUnit',
  method: 'put',
  path: '/business-units/{businessUnitId}',
  interface: 'back',
  summary: 'Replace a business unit',
  tags,
  params: BusinessUnitIdParams,
  body: BusinessUnitCreate,
  access: {
    permission: 'BUSINESS_UNIT_MANAGE',
    businessUnitOf: 'the path',
    businessUnit: (ctx) => ctx.params.businessUnitId,
  },
  responses: { 200: { description: 'The business unit', schema: BusinessUnitSchema } },
  errors: ['B103', 'B105'],
  async handler(ctx) {
    return replaceUnit(ctx, ctx.params.businessUnitId, ctx.body);
  },
});

export const updateBillableBranch = defineRoute({
  operationId: 'updateBillableBranch',
  method: 'put',
  path: '/branches/billable/{id}',
  interface: 'back',
  summary: 'Replace a billable branch (the business unit behind branches)',
  description: 'Same as PUT /business-units/{id}: billable branches are business units.',
  tags,
  params: BillableIdParams,
  body: BusinessUnitCreate,
  access: {
    permission: 'BUSINESS_UNIT_MANAGE',
    businessUnitOf: 'the path',
    businessUnit: (ctx) => ctx.params.id,
  },
  responses: { 200: { description: 'The billable branch', schema: BusinessUnitSchema } },
  errors: ['B103', 'B105'],
  async handler(ctx) {
    return replaceUnit(ctx, ctx.params.id, ctx.body);
  },
});

export const patchBusinessUnit = defineRoute({
  operationId: 'patchBusinessUnit',
  method: 'patch',
  path: '/business-units/{businessUnitId}',
  interface: 'back',
  summary: 'Change some fields of a business unit',
  tags,
  params: BusinessUnitIdParams,
  body: BusinessUnitPatch,
  access: {
    permission: 'BUSINESS_UNIT_MANAGE',
    businessUnitOf: 'the path',
    businessUnit: (ctx) => ctx.params.businessUnitId,
  },
  responses: { 200: { description: 'The business unit', schema: BusinessUnitSchema } },
  errors: ['B103', 'B105'],
  async handler({ em, params, body }) {
    const unit = await loadUnit(em, params.businessUnitId);
    if (body.code !== undefined) await assertCodeFree(em, body.code, unit.id);
    applyFields(unit, body);
    await em.flush();
    return ok(await dtoOf(em, unit));
  },
});

export const deleteBusinessUnit = defineRoute({
  operationId: 'deleteBusinessUnit',
  method: 'delete',
  path: '/business-units/{businessUnitId}',
  interface: 'back',
  summary: 'Delete an unreferenced business unit',
  description:
    'Needs what creating a unit needs: BUSINESS_UNIT_CREATE on some business unit of the tenant (a tenant-wide finance grant), so whoever may create a unit may remove it again. Refused with B102 while anything references the unit: branches, customers (home unit) or any other record. Role assignments on the unit are deleted with it.',
  tags,
  params: BusinessUnitIdParams,
  access: {
    anyCaller:
      'the handler requires BUSINESS_UNIT_CREATE on some business unit of the tenant, as creation does.',
  },
  responses: { 204: { description: 'Deleted' } },
  errors: ['AUTH002', 'B405', 'B102'],
  async handler(ctx) {
    const { em, params } = ctx;
    if (!(await ctx.holds({ permission: 'BUSINESS_UNIT_CREATE' })))
      throw new DomainError('AUTH002', 'missing permission BUSINESS_UNIT_CREATE');
    const unit = await loadUnit(em, params.businessUnitId);
    // The database knows every reference (foreign keys), including those of other domains. Grants on
    // the unit are no business reference: they go with it, in the same transaction.
    try {
      await inRequestTransaction(ctx, async (tx) => {
        await tx.nativeDelete(RoleAssignment, { businessUnit: unit.id });
        await tx.nativeDelete(BusinessUnit, { id: unit.id });
      });
      // Native deletes pass by the unit of work: grants and scopes cached from them go now.
      readCacheOf(em).invalidate();
    } catch (err) {
      if (err instanceof ForeignKeyConstraintViolationException)
        throw new DomainError('B102', `business unit ${unit.id} is still referenced`);
      throw err;
    }
    em.getUnitOfWork().unsetIdentity(unit);
    return noContent();
  },
});

export const businessUnitRoutes = [
  listBusinessUnits,
  getBusinessUnit,
  createBusinessUnit,
  updateBusinessUnit,
  patchBusinessUnit,
  deleteBusinessUnit,
  updateBillableBranch,
];
