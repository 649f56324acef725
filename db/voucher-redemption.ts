// A customer redeeming a code (the app's `POST /vouchers/redeem-code`): whatever kind of code it is — a
// single-use constraint code, a redeemable code, another customer's referral code, a template's own code
// or a reward's — it grants every voucher it stands for, or answers why not (W1xx, RW101). One
// customer's redemptions run one at a time (a transaction lock), so the once-per-customer rules and the
// redeem counters hold under concurrent requests.
import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { AnnotationAssignment } from './entities/AnnotationAssignment.js';
import { Customer } from './entities/Customer.js';
import { Rental } from './entities/Rental.js';
import { Reward } from './entities/Reward.js';
import { tenantIdOf } from './entities/TenantScoped.js';
import { Voucher } from './entities/Voucher.js';
import { VoucherCode } from './entities/VoucherCode.js';
import { Voucherable } from './entities/Voucherable.js';
import { escapeLike } from './voucherables.js';
import { grantVouchersTo } from './voucher-grants.js';
import {
  claimConstraintVouchers,
  redeemableCodeOf,
  refreshVoucherStates,
  vouchersOfConstraintCode,
} from './vouchers.js';
import { customerIdOfReferralCode } from '../domain/balances.js';
import { DomainError, type ErrorCode } from '../domain/errors.js';
import { codeRedeemableTypes, customerPassesGates, geofenceTypes } from '../domain/voucherables.js';

/** The codes redemption answers, for the routes' declarations. */
export const redeemErrors = [
  'W101',
  'W105',
  'W117',
  'W118',
  'W120',
  'W121',
  'W122',
  'W123',
  'W124',
  'W125',
  'W126',
  'W130',
  'W131',
  'W133',
  'W136',
  'VA111',
  'RW101',
] as const satisfies readonly ErrorCode[];

/** Refuses a template that is not ACTIVE (W130), outside its redeem window (W133) or gated off (W118). */
async function assertRedeemable(em: EntityManager, template: Voucherable, customer: Customer, now: Date) {
  if (template.status !== 'ACTIVE' || template.deletedAt)
    throw new DomainError('W130', `the offer "${template.name}" is not active`);
  if (
    (template.redeemFrom && now < template.redeemFrom) ||
    (template.redeemUntil && now >= template.redeemUntil)
  )
    throw new DomainError('W133', `the offer "${template.name}" cannot be redeemed now`);
  if (template.guserRequiredAnnotationIds.length > 0 || template.guserProhibitedAnnotationIds.length > 0) {
    const carried = (await em.find(AnnotationAssignment, { customerId: customer.id })).map(
      (row) => row.annotation.id,
    );
    if (!customerPassesGates(template, carried))
      throw new DomainError('W118', `the offer "${template.name}" is not available to this customer`);
  }
}

/**
 * Counts one redemption against a template's maxRedeems (W124 when it is reached), atomically, in the
 * database only: the loaded template keeps the count it was read with, since a count changed on the entity
 * would be written back by the next flush, overwriting the redemptions counted meanwhile.
 */
async function countAgainstTemplate(em: EntityManager, template: Voucherable): Promise<void> {
  const counted = await em.execute(
    `update voucherable set redeem_count = redeem_count + 1
      where tenant_id = ? and id = ? and (max_redeems is null or redeem_count < max_redeems)`,
    [tenantIdOf(em), template.id],
    'run',
  );
  if (Number((counted as { affectedRows?: number }).affectedRows ?? 0) === 0)
    throw new DomainError('W124', `the offer "${template.name}" reached its redeem limit`);
}

/**
 * Refuses a redemption beyond the template's redemptions per customer (W117, "promotion already used"):
 * every code of the template counts — its own, its redeemable codes, its single-use codes — one
 * redemption per cause (a redemption grants a voucher per benefit). Rewards and referrals have their own
 * once-per-cause rules.
 */
async function assertCustomerMayRedeem(em: EntityManager, template: Voucherable, customer: Customer) {
  if (template.maxRedeemsPerCustomer == null) return;
  const [row] = await em.execute<[{ n: string }]>(
    `select count(distinct (source_kind, source_reference)) as n from voucher
      where tenant_id = ? and voucherable_id = ? and customer_id = ?
        and (source_kind = 'CODE' or (source_kind = 'PROMOTION' and source_reference like 'voucherable:%'))`,
    [tenantIdOf(em), template.id, customer.id],
  );
  if (Number(row.n) >= template.maxRedeemsPerCustomer)
    throw new DomainError(
      'W117',
      template.maxRedeemsPerCustomer === 1
        ? `the offer "${template.name}" was already redeemed (once per customer, whichever of its codes)`
        : `the offer "${template.name}" was already redeemed ${template.maxRedeemsPerCustomer} times (its limit per customer)`,
    );
}

/** Whether the customer already holds vouchers of a cause. */
async function alreadyGranted(
  em: EntityManager,
  kind: Voucher['sourceKind'],
  reference: string | { like: string },
) {
  const sourceReference = typeof reference === 'string' ? reference : { $like: reference.like };
  return (await em.count(Voucher, { sourceKind: kind, sourceReference })) > 0;
}

/**
 * Redeems a code for a customer and answers every voucher it granted. Call it inside a transaction.
 * The order codes are looked up in: single-use constraint code, redeemable code, template code, reward
 * code, referral code; W101 when it is none of them.
 */
export async function redeemCode(
  em: EntityManager,
  customerId: number,
  rawCode: string,
  now = new Date(),
): Promise<Voucher[]> {
  const tenant = tenantIdOf(em);
  await em.execute(`select pg_advisory_xact_lock(hashtextextended(?, 0))`, [
    `voucher-redeem:${tenant}:${customerId}`,
  ]);
  const customer = await em.findOneOrFail(Customer, customerId);
  await refreshVoucherStates(em, { customerId }, now);
  const code = rawCode.trim();

  const constraint = await vouchersOfConstraintCode(em, code);
  if (constraint.length > 0) return redeemConstraint(em, customer, constraint, now);

  const redeemable = await redeemableCodeOf(em, code);
  if (redeemable) return redeemRedeemable(em, customer, redeemable, now);

  const template = await em.findOne(Voucherable, { code: { $ilike: escapeLike(code) }, deletedAt: null });
  if (template) return redeemTemplateCode(em, customer, template, now);

  const reward = await em.findOne(Reward, { code: { $ilike: escapeLike(code) } });
  if (reward) return redeemReward(em, customer, reward, now);

  const referrerId = customerIdOfReferralCode(code);
  const referrer = referrerId === undefined ? null : await em.findOne(Customer, referrerId);
  if (referrer) return redeemReferral(em, customer, referrer, now);

  throw new DomainError('W101', `no voucher, promotion or referral code ${code}`);
}

async function redeemConstraint(
  em: EntityManager,
  customer: Customer,
  found: Voucher[],
  now: Date,
): Promise<Voucher[]> {
  const vouchers = await em.find(
    Voucher,
    { id: { $in: found.map((voucher) => voucher.id) } },
    { orderBy: { benefitIndex: 'asc' }, lockMode: LockMode.PESSIMISTIC_WRITE, refresh: true },
  );
  const open = vouchers.filter((voucher) => voucher.status === 'NOT_REDEEMED');
  if (open.length === 0) {
    if (
      vouchers.some((voucher) => voucher.status === 'CANCELED' || voucher.status === 'EXPIRED') &&
      !vouchers.some((voucher) => voucher.customerId)
    )
      throw new DomainError('W130', 'the code is no longer valid');
    throw new DomainError('W105', 'the code was already used');
  }
  const template = await em.findOneOrFail(Voucherable, open[0]!.voucherable.id);
  await assertRedeemable(em, template, customer, now);
  await assertCustomerMayRedeem(em, template, customer);
  return claimConstraintVouchers(em, open, customer.id, now);
}

async function redeemRedeemable(
  em: EntityManager,
  customer: Customer,
  code: VoucherCode,
  now: Date,
): Promise<Voucher[]> {
  const template = await em.findOneOrFail(Voucherable, code.voucherable.id);
  if (geofenceTypes.includes(template.type))
    throw new DomainError('W126', 'a geofence promotion applies by position; it cannot be redeemed');
  if ((code.validFrom && now < code.validFrom) || (code.validUntil && now >= code.validUntil))
    throw new DomainError('W133', `the code ${code.code} cannot be redeemed now`);
  await assertRedeemable(em, template, customer, now);
  const reference = `code:${code.id}:${customer.id}`;
  if (await alreadyGranted(em, 'CODE', reference))
    throw new DomainError('W105', `the code ${code.code} was already used`);
  await assertCustomerMayRedeem(em, template, customer);
  const counted = await em.execute(
    `update voucher_code set redeem_count = redeem_count + 1
      where tenant_id = ? and id = ? and (max_redeems is null or redeem_count < max_redeems)`,
    [tenantIdOf(em), code.id],
    'run',
  );
  if (Number((counted as { affectedRows?: number }).affectedRows ?? 0) === 0)
    throw new DomainError('W124', `the code ${code.code} reached its redeem limit`);
  await countAgainstTemplate(em, template);
  return grantVouchersTo(em, {
    voucherableId: template.id,
    owner: { customerId: customer.id },
    source: { kind: 'CODE', reference },
    validFrom: now,
    createdBy: `customer:${customer.id}`,
  });
}

/** Whether a customer already took a sign-up offer (a SignupReferral template's vouchers). */
async function signupOfferUsed(em: EntityManager, customerId: number): Promise<boolean> {
  const [row] = await em.execute<[{ n: string }]>(
    `select count(*) as n from voucher v join voucherable t on t.id = v.voucherable_id
      where v.tenant_id = ? and v.customer_id = ? and t.type = 'SignupReferral' and v.source_reference not like 'referrer:%'`,
    [tenantIdOf(em), customerId],
  );
  return Number(row.n) > 0;
}

async function redeemTemplateCode(
  em: EntityManager,
  customer: Customer,
  template: Voucherable,
  now: Date,
): Promise<Voucher[]> {
  if (geofenceTypes.includes(template.type))
    throw new DomainError('W126', 'a geofence promotion applies by position; it cannot be redeemed');
  const signup = template.type === 'SignupReferral';
  if (!signup && !codeRedeemableTypes.includes(template.type))
    throw new DomainError('VA111', `a ${template.type} is not redeemed by a code`);
  await assertRedeemable(em, template, customer, now);
  if (signup) {
    if (await signupOfferUsed(em, customer.id))
      throw new DomainError('W125', 'a sign-up offer was already used');
    if ((await em.count(Rental, { customer: customer.id })) > 0)
      throw new DomainError('W122', 'sign-up offers are for customers without rentals');
  }
  const reference = `voucherable:${template.id}:${customer.id}`;
  if (await alreadyGranted(em, 'PROMOTION', reference))
    throw new DomainError('W105', 'the code was already used');
  if (!signup) await assertCustomerMayRedeem(em, template, customer);
  await countAgainstTemplate(em, template);
  return grantVouchersTo(em, {
    voucherableId: template.id,
    owner: { customerId: customer.id },
    source: { kind: 'PROMOTION', reference },
    validFrom: now,
    createdBy: `customer:${customer.id}`,
  });
}

async function redeemReward(
  em: EntityManager,
  customer: Customer,
  reward: Reward,
  now: Date,
): Promise<Voucher[]> {
  if (reward.validUntil && now >= reward.validUntil)
    throw new DomainError('W133', `the reward ${reward.code} expired`);
  const template = await em.findOneOrFail(Voucherable, reward.voucherable.id);
  await assertRedeemable(em, template, customer, now);
  const reference = `reward:${reward.id}:${customer.id}`;
  if (await alreadyGranted(em, 'REWARD', reference))
    throw new DomainError('RW101', `the reward ${reward.code} was already used`);
  await countAgainstTemplate(em, template);
  return grantVouchersTo(em, {
    voucherableId: template.id,
    owner: { customerId: customer.id },
    source: { kind: 'REWARD', reference },
    validFrom: now,
    createdBy: `customer:${customer.id}`,
  });
}

/**
 * Another customer's referral code: the newest ACTIVE SignupReferral template of the redeemer's home
 * business unit (else the referrer's) grants the redeemer its vouchers and the referrer its referrer
 * template's. W123 self-referral, W120 unverified redeemer, W121 a referral already used, W125 a sign-up
 * offer already used, W122 the redeemer has rentals, W136 a blocked referrer, W131 a referrer without a
 * ride when the template asks for one, W124 the referrer's referrals reached the template's maxRedeems.
 */
async function redeemReferral(
  em: EntityManager,
  customer: Customer,
  referrer: Customer,
  now: Date,
): Promise<Voucher[]> {
  if (referrer.id === customer.id) throw new DomainError('W123', 'customers cannot refer themselves');
  const units = [customer.homeBusinessUnit?.id, referrer.homeBusinessUnit?.id].filter(
    (id): id is number => id != null,
  );
  let template: Voucherable | null = null;
  for (const unit of units) {
    template = await em.findOne(
      Voucherable,
      { type: 'SignupReferral', status: 'ACTIVE', deletedAt: null, businessUnitId: unit },
      { orderBy: { id: 'desc' } },
    );
    if (template) break;
  }
  if (!template) throw new DomainError('W101', 'no referral offer is active');
  if (!customer.emailIsVerified && !customer.phoneIsVerified)
    throw new DomainError('W120', 'verify your e-mail address or phone number before using a referral code');
  if (await alreadyGranted(em, 'REFERRAL', { like: `referral:${customer.id}:%` }))
    throw new DomainError('W121', 'a referral code was already used');
  if (await signupOfferUsed(em, customer.id))
    throw new DomainError('W125', 'a sign-up offer was already used');
  if ((await em.count(Rental, { customer: customer.id })) > 0)
    throw new DomainError('W122', 'referral codes are for customers without rentals');
  if (referrer.isBlocked) throw new DomainError('W136', 'the referring customer cannot refer');
  if (template.referrerNeedsRide && (await em.count(Rental, { customer: referrer.id, state: 'ENDED' })) === 0)
    throw new DomainError('W131', 'the referring customer has no ride yet');
  await assertRedeemable(em, template, customer, now);
  if (template.maxRedeems != null) {
    const [row] = await em.execute<[{ n: string }]>(
      `select count(distinct source_reference) as n from voucher
        where tenant_id = ? and source_kind = 'REFERRAL' and voucherable_id = ? and source_reference like ?`,
      [tenantIdOf(em), template.id, `referral:%:by:${referrer.id}`],
    );
    if (Number(row.n) >= template.maxRedeems)
      throw new DomainError('W124', 'the referral code reached its redeem limit');
  }
  const granted = await grantVouchersTo(em, {
    voucherableId: template.id,
    owner: { customerId: customer.id },
    source: { kind: 'REFERRAL', reference: `referral:${customer.id}:by:${referrer.id}` },
    validFrom: now,
    createdBy: `customer:${customer.id}`,
  });
  if (template.referrerVoucherableId != null)
    await grantVouchersTo(em, {
      voucherableId: template.referrerVoucherableId,
      owner: { customerId: referrer.id },
      source: { kind: 'REFERRAL', reference: `referrer:${customer.id}` },
      validFrom: now,
      createdBy: `customer:${customer.id}`,
    });
  return granted;
}
