// Operator endpoints of rewards (the "Pricing and benefits" row `/rewards`): the rewards of a branch, and
// creating one — a code a customer claims once (RW101, through `POST /front/vouchers/redeem-code`) that
// grants a Reward template holding exactly one of a rental rebate or a value (RW102, RW103). The code is
// unique among every code customers type (RW100). Finance permissions on the branch's business unit.
import { UniqueConstraintViolationException } from '@mikro-orm/core';
import { Type } from '@sinclair/typebox';
import { Decimal } from 'decimal.js';
import { Reward } from '../../../db/entities/Reward.js';
import { Voucherable } from '../../../db/entities/Voucherable.js';
import { businessUnitOfBranch } from '../../../db/pricing.js';
import { assertCodeFree } from '../../../db/voucherables.js';
import { DomainError } from '../../../domain/errors.js';
import { formatAmount, minorDigitsOf } from '../../../domain/money.js';
import { created, defineRoute, ok } from '../../kernel/route.js';
import { clampedInstant, component, DateTime, Id, Nullable, Str } from '../../kernel/schemas.js';
import { CodeInput, DecimalInput } from '../../shared/voucherable-representation.js';

const tags = ['Rewards'];

const RewardSchema = component(
  'Reward',
  Type.Object(
    {
      id: Id(),
      branchId: Id(),
      businessUnitId: Id(),
      code: Type.String(),
      name: Type.String(),
      voucherableId: Id(),
      value: Nullable(Type.String()),
      rentalRebate: Nullable(Type.String()),
      currency: Type.String(),
      validUntil: Nullable(DateTime()),
      createdAt: DateTime(),
    },
    { additionalProperties: false },
  ),
);

const rewardDto = (reward: Reward, template: Voucherable) => {
  const benefit = template.benefits[0];
  const amount = benefit?.amount ? formatAmount(benefit.amount, template.currency) : null;
  return {
    id: reward.id,
    branchId: reward.branchId,
    businessUnitId: reward.businessUnitId,
    code: reward.code,
    name: reward.name,
    voucherableId: template.id,
    value: benefit?.type === 'Value' ? amount : null,
    rentalRebate: benefit?.type === 'RentalRebate' ? amount : null,
    currency: template.currency,
    validUntil: reward.validUntil?.toISOString() ?? null,
    createdAt: reward.createdAt.toISOString(),
  };
};

export const listRewards = defineRoute({
  operationId: 'listRewards',
  method: 'get',
  path: '/rewards',
  interface: 'back',
  summary: 'The rewards of a branch, newest first',
  tags,
  query: Type.Object({ branchId: Id() }),
  paged: { defaultSize: 50, maxSize: 200 },
  access: {
    permission: 'BENEFITS_READ',
    businessUnitOf: 'the business unit of the query’s branchId',
    businessUnit: async (ctx) =>
      (await ctx.once('unit', () => businessUnitOfBranch(ctx.em, ctx.query.branchId))).id,
  },
  responses: { 200: { description: 'The rewards', schema: Type.Array(RewardSchema) } },
  errors: ['B404'],
  async handler(ctx) {
    const [rows, total] = await ctx.em.findAndCount(
      Reward,
      { branchId: ctx.query.branchId },
      { orderBy: { id: 'desc' }, limit: ctx.page.size, offset: ctx.page.offset, populate: ['voucherable'] },
    );
    return ok(
      rows.map((row) => rewardDto(row, row.voucherable)),
      { total },
    );
  },
});

export const createReward = defineRoute({
  operationId: 'createReward',
  method: 'post',
  path: '/rewards',
  interface: 'back',
  summary: 'Create a reward: a code granting a rental rebate or a value, once per customer',
  description:
    'Exactly one of `rentalRebate` and `value` (RW102 without either, RW103 with both), a positive amount in the business unit’s currency. A Reward template (ACTIVE) is created for it.',
  tags,
  body: Type.Object(
    {
      branchId: Id(),
      code: CodeInput,
      name: Str(200, { minLength: 1 }),
      value: Type.Optional(Nullable(DecimalInput('Credit written to the wallet.'))),
      rentalRebate: Type.Optional(Nullable(DecimalInput('Fixed amount off one rental.'))),
      validUntil: Type.Optional(Nullable(DateTime())),
    },
    { additionalProperties: false },
  ),
  access: {
    permission: 'BENEFITS_MANAGE',
    businessUnitOf: 'the business unit of the body’s branchId',
    businessUnit: async (ctx) =>
      (await ctx.once('unit', () => businessUnitOfBranch(ctx.em, ctx.body.branchId))).id,
  },
  responses: { 201: { description: 'The reward', schema: RewardSchema } },
  errors: ['B404', 'RW100', 'RW102', 'RW103', 'W135'],
  async handler(ctx) {
    const unit = await ctx.once('unit', () => businessUnitOfBranch(ctx.em, ctx.body.branchId));
    const { value, rentalRebate } = ctx.body;
    if (value == null && rentalRebate == null)
      throw new DomainError('RW102', 'a reward needs a rental rebate or a value');
    if (value != null && rentalRebate != null)
      throw new DomainError('RW103', 'a reward has a rental rebate or a value, not both');
    const amount = new Decimal((value ?? rentalRebate)!);
    if (amount.lte(0) || amount.decimalPlaces() > minorDigitsOf(unit.currency))
      throw new DomainError('RW102', `the reward's amount is a positive amount in ${unit.currency}`);
    const validUntil = ctx.body.validUntil ? clampedInstant(ctx.body.validUntil) : null;
    if (validUntil && validUntil <= new Date()) throw new DomainError('W135', 'validUntil is in the past');
    await assertCodeFree(ctx.em, ctx.body.code, 'RW100');
    const template = ctx.em.create(Voucherable, {
      branchId: ctx.body.branchId,
      businessUnitId: unit.id,
      type: 'Reward',
      status: 'ACTIVE',
      name: ctx.body.name,
      currency: unit.currency,
      benefits: [
        {
          type: value != null ? 'Value' : 'RentalRebate',
          amount: amount.toString(),
          ...(value == null ? { numberOfRentals: 1 } : {}),
        },
      ],
      validUntil,
      createdBy: ctx.actor,
    });
    const reward = ctx.em.create(Reward, {
      branchId: ctx.body.branchId,
      businessUnitId: unit.id,
      code: ctx.body.code,
      name: ctx.body.name,
      voucherable: template,
      validUntil,
      createdBy: ctx.actor,
    });
    try {
      await ctx.em.flush();
    } catch (error) {
      if (error instanceof UniqueConstraintViolationException)
        throw new DomainError('RW100', `the code ${ctx.body.code} is taken`);
      throw error;
    }
    return created(rewardDto(reward, template), {});
  },
});

export const rewardRoutes = [listRewards, createReward];
