// Operator endpoints of voucherables (benefit templates, the "Pricing and benefits" rows): create, read by
// id or code, list a branch's business unit's, replace, delete, activate and deactivate. Every write checks
// the whole configuration (domain/voucherables.ts, db/voucherables.ts: VA1xx, T11x); activation checks it
// again at that moment. Finance permissions BENEFITS_READ / BENEFITS_MANAGE on the template's business
// unit. See docs/benefits.md.
import { UniqueConstraintViolationException } from '@mikro-orm/core';
import { Type } from '@sinclair/typebox';
import { Voucher } from '../../../db/entities/Voucher.js';
import { Voucherable } from '../../../db/entities/Voucherable.js';
import { businessUnitOfBranch } from '../../../db/pricing.js';
import {
  assertCodeFree,
  assertVoucherableConfig,
  voucherableByCodeOrFail,
  voucherableOrFail,
} from '../../../db/voucherables.js';
import { DomainError } from '../../../domain/errors.js';
import { created, defineRoute, noContent, ok, type RouteContext } from '../../kernel/route.js';
import { Id, Str } from '../../kernel/schemas.js';
import {
  VoucherableInput,
  VoucherableSchema,
  VoucherableStatus,
  VoucherableType,
  voucherableDto,
  voucherableFieldsOf,
  type VoucherableInputBody,
} from '../../shared/voucherable-representation.js';

const tags = ['Voucherables'];

const IdParams = Type.Object({ voucherableId: Id() });

/** The template of the path, loaded once (access and handler share it); VA100. */
export const voucherableOfPath = (ctx: RouteContext<{ voucherableId: number }>) =>
  ctx.once('voucherable', () => voucherableOrFail(ctx.em, ctx.params.voucherableId));

/** A finance permission on the business unit of the path's template. */
export const onTheVoucherable = (permission: 'BENEFITS_READ' | 'BENEFITS_MANAGE') => ({
  permission,
  businessUnitOf: 'the voucherable',
  businessUnit: async (ctx: RouteContext<{ voucherableId: number }>) =>
    (await voucherableOfPath(ctx)).businessUnitId,
});

/** The business unit of the body's branch (B404 when there is no such branch). */
const unitOfBodyBranch = (ctx: RouteContext<unknown, unknown, { branchId: number }>) =>
  ctx.once('body-unit', () => businessUnitOfBranch(ctx.em, ctx.body.branchId));

/** Flushes a template write; a code another template took meanwhile meets the unique index (VA106). */
async function flushTemplate(ctx: RouteContext, code: string | null | undefined): Promise<void> {
  try {
    await ctx.em.flush();
  } catch (error) {
    if (error instanceof UniqueConstraintViolationException)
      throw new DomainError('VA106', `the code ${code ?? ''} is taken`);
    throw error;
  }
}

const configErrors = [
  'VA100',
  'VA101',
  'VA102',
  'VA103',
  'VA104',
  'VA105',
  'VA109',
  'VA111',
  'VA113',
  'VA114',
  'VA120',
  'T113',
  'T114',
  'T116',
] as const;

export const createVoucherable = defineRoute({
  operationId: 'createVoucherable',
  method: 'post',
  path: '/voucherables',
  interface: 'back',
  summary: 'Create a voucherable (benefit template), INACTIVE',
  description:
    'The template belongs to the business unit of `branchId` and takes its currency. Several benefits may be given (`benefits`); they override the legacy fields value, discount, rentalRebate and additionEntitlementId. The whole configuration is checked (VA101–VA120, T113–T116); the code is optional and unique in the tenant regardless of case among every code customers type (VA106). Activate it with `POST /voucherables/{voucherableId}/activate`.',
  tags,
  body: VoucherableInput,
  access: {
    permission: 'BENEFITS_MANAGE',
    businessUnitOf: 'the business unit of the body’s branchId',
    businessUnit: async (ctx) => (await unitOfBodyBranch(ctx)).id,
  },
  responses: {
    201: {
      description: 'The template',
      schema: VoucherableSchema,
      links: {
        GetVoucherable: {
          operationId: 'getVoucherable',
          parameters: { voucherableId: '$response.body#/id' },
        },
      },
    },
  },
  errors: ['B404', 'VA106', ...configErrors],
  async handler(ctx) {
    const unit = await unitOfBodyBranch(ctx);
    const fields = voucherableFieldsOf(ctx.body);
    await assertVoucherableConfig(ctx.em, { ...fields, currency: unit.currency }, unit.id, new Date());
    await assertCodeFree(ctx.em, fields.code, 'VA106');
    const template = ctx.em.create(Voucherable, {
      ...fields,
      businessUnitId: unit.id,
      currency: unit.currency,
      createdBy: ctx.actor,
    });
    await flushTemplate(ctx, fields.code);
    ctx.recordEvent({
      type: 'VOUCHERABLE_CREATED',
      payload: { voucherableId: template.id, type: template.type, businessUnitId: unit.id },
    });
    return created(voucherableDto(template), { Location: `${ctx.baseUrl}/voucherables/${template.id}` });
  },
});

export const listVoucherables = defineRoute({
  operationId: 'listVoucherables',
  method: 'get',
  path: '/voucherables',
  interface: 'back',
  summary: "The templates of a branch's business unit, newest first",
  description:
    'Filters combine: `type`, `status`. Paged with the X-Total-* headers. Deleted templates are not listed.',
  tags,
  query: Type.Object({
    branchId: Id({ description: 'Lists the templates of its business unit.' }),
    type: Type.Optional(VoucherableType),
    status: Type.Optional(VoucherableStatus),
  }),
  paged: { defaultSize: 50, maxSize: 200 },
  access: {
    permission: 'BENEFITS_READ',
    businessUnitOf: 'the business unit of the query’s branchId',
    businessUnit: async (ctx) =>
      (await ctx.once('query-unit', () => businessUnitOfBranch(ctx.em, ctx.query.branchId))).id,
  },
  responses: { 200: { description: 'The templates', schema: Type.Array(VoucherableSchema) } },
  errors: ['B404'],
  async handler(ctx) {
    const unit = await ctx.once('query-unit', () => businessUnitOfBranch(ctx.em, ctx.query.branchId));
    const [rows, total] = await ctx.em.findAndCount(
      Voucherable,
      {
        businessUnitId: unit.id,
        deletedAt: null,
        ...(ctx.query.type ? { type: ctx.query.type } : {}),
        ...(ctx.query.status ? { status: ctx.query.status } : {}),
      },
      { orderBy: { id: 'desc' }, limit: ctx.page.size, offset: ctx.page.offset },
    );
    return ok(rows.map(voucherableDto), { total });
  },
});

export const getVoucherableByCode = defineRoute({
  operationId: 'getVoucherableByCode',
  method: 'get',
  path: '/voucherables/by-code/{code}',
  interface: 'back',
  summary: 'A template by its code (case ignored)',
  tags,
  params: Type.Object({ code: Str(64, { minLength: 1 }) }),
  access: {
    permission: 'BENEFITS_READ',
    businessUnitOf: 'the template of the code',
    businessUnit: async (ctx) =>
      (await ctx.once('by-code', () => voucherableByCodeOrFail(ctx.em, ctx.params.code))).businessUnitId,
  },
  responses: { 200: { description: 'The template', schema: VoucherableSchema } },
  errors: ['VA100'],
  async handler(ctx) {
    return ok(
      voucherableDto(await ctx.once('by-code', () => voucherableByCodeOrFail(ctx.em, ctx.params.code))),
    );
  },
});

export const getVoucherable = defineRoute({
  operationId: 'getVoucherable',
  method: 'get',
  path: '/voucherables/{voucherableId}',
  interface: 'back',
  summary: 'A template',
  tags,
  params: IdParams,
  access: onTheVoucherable('BENEFITS_READ'),
  responses: { 200: { description: 'The template', schema: VoucherableSchema } },
  errors: ['VA100'],
  async handler(ctx) {
    return ok(voucherableDto(await voucherableOfPath(ctx)));
  },
});

/** Refuses what a replacement may not change: the branch's business unit and type (T110, T112), the code once vouchers exist (T110). */
async function assertReplaceable(
  ctx: RouteContext,
  template: Voucherable,
  body: VoucherableInputBody,
  unitId: number,
) {
  if (unitId !== template.businessUnitId)
    throw new DomainError('T110', 'the branch may only change within the business unit');
  if (body.type !== template.type)
    throw new DomainError('T112', `the template is a ${template.type}; its type does not change`);
  const codeChanges = (body.code ?? null)?.toLowerCase() !== (template.code ?? null)?.toLowerCase();
  if (codeChanges && (await ctx.em.count(Voucher, { voucherable: template.id })) > 0)
    throw new DomainError('T110', 'the code does not change once vouchers were granted from the template');
}

export const replaceVoucherable = defineRoute({
  operationId: 'replaceVoucherable',
  method: 'put',
  path: '/voucherables/{voucherableId}',
  interface: 'back',
  summary: 'Replace a template’s configuration',
  description:
    'The body replaces every field (absent optional fields become empty). Its type and business unit do not change (T112, T110), nor its code once vouchers were granted (T110). The whole configuration is checked as on creation; vouchers already granted keep their figures.',
  tags,
  params: IdParams,
  body: VoucherableInput,
  access: onTheVoucherable('BENEFITS_MANAGE'),
  responses: { 200: { description: 'The template', schema: VoucherableSchema } },
  errors: ['B404', 'VA106', 'T110', 'T112', ...configErrors],
  async handler(ctx) {
    const template = await voucherableOfPath(ctx);
    const unit = await businessUnitOfBranch(ctx.em, ctx.body.branchId);
    await assertReplaceable(ctx, template, ctx.body, unit.id);
    const fields = voucherableFieldsOf(ctx.body);
    await assertVoucherableConfig(ctx.em, { ...fields, currency: template.currency }, unit.id, new Date());
    await assertCodeFree(ctx.em, fields.code, 'VA106', { voucherableId: template.id });
    ctx.em.assign(template, fields);
    await flushTemplate(ctx, fields.code);
    ctx.recordEvent({ type: 'VOUCHERABLE_UPDATED', payload: { voucherableId: template.id } });
    return ok(voucherableDto(template));
  },
});

export const deleteVoucherable = defineRoute({
  operationId: 'deleteVoucherable',
  method: 'delete',
  path: '/voucherables/{voucherableId}',
  interface: 'back',
  summary: 'Delete a template',
  description:
    'The template stops being listed, found or granted (its code becomes free); vouchers already granted from it stay as they are. A Subscription with running user subscriptions is refused (SU102).',
  tags,
  params: IdParams,
  access: onTheVoucherable('BENEFITS_MANAGE'),
  responses: { 204: { description: 'Deleted' } },
  errors: ['VA100', 'SU102'],
  async handler(ctx) {
    const template = await voucherableOfPath(ctx);
    if (template.type === 'Subscription') {
      const [row] = await ctx.em.execute<[{ n: string }]>(
        `select count(*) as n from user_subscription where tenant_id = ? and voucherable_id = ? and state in ('RENEWING', 'SWITCHING')`,
        [ctx.tenant, template.id],
      );
      if (Number(row.n) > 0)
        throw new DomainError('SU102', `the subscription has ${row.n} running user subscriptions`);
    }
    template.deletedAt = new Date();
    template.status = 'INACTIVE';
    ctx.recordEvent({ type: 'VOUCHERABLE_DELETED', payload: { voucherableId: template.id } });
    return noContent();
  },
});

export const activateVoucherable = defineRoute({
  operationId: 'activateVoucherable',
  method: 'post',
  path: '/voucherables/{voucherableId}/activate',
  interface: 'back',
  summary: 'Activate a template (ACTIVE), validating its whole configuration now',
  description:
    'Its configuration is checked again at this moment (a validUntil or redeemUntil now past: VA102; annotations deleted since: VA113). Activating an ACTIVE template answers it unchanged.',
  tags,
  params: IdParams,
  access: onTheVoucherable('BENEFITS_MANAGE'),
  responses: { 200: { description: 'The template', schema: VoucherableSchema } },
  errors: [...configErrors],
  async handler(ctx) {
    const template = await voucherableOfPath(ctx);
    await assertVoucherableConfig(ctx.em, template, template.businessUnitId, new Date());
    if (template.status !== 'ACTIVE') {
      template.status = 'ACTIVE';
      ctx.recordEvent({ type: 'VOUCHERABLE_ACTIVATED', payload: { voucherableId: template.id } });
    }
    return ok(voucherableDto(template));
  },
});

export const deactivateVoucherable = defineRoute({
  operationId: 'deactivateVoucherable',
  method: 'post',
  path: '/voucherables/{voucherableId}/deactivate',
  interface: 'back',
  summary: 'Deactivate a template (INACTIVE): no new redemptions or purchases',
  description: 'Vouchers already granted stay as they are.',
  tags,
  params: IdParams,
  access: onTheVoucherable('BENEFITS_MANAGE'),
  responses: { 200: { description: 'The template', schema: VoucherableSchema } },
  errors: ['VA100'],
  async handler(ctx) {
    const template = await voucherableOfPath(ctx);
    if (template.status !== 'INACTIVE') {
      template.status = 'INACTIVE';
      ctx.recordEvent({ type: 'VOUCHERABLE_DEACTIVATED', payload: { voucherableId: template.id } });
    }
    return ok(voucherableDto(template));
  },
});

export const voucherableRoutes = [
  createVoucherable,
  listVoucherables,
  getVoucherableByCode,
  getVoucherable,
  replaceVoucherable,
  deleteVoucherable,
  activateVoucherable,
  deactivateVoucherable,
];
