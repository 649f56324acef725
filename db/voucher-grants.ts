// The grant API of the benefits domain: turns a template (voucherable) into vouchers for a customer or a
// business account, once per cause, and cancels what one cause granted. Subscriptions, packages, codes,
// referrals, rewards, promotions and the operators' apply-vouchers all grant through here. Claim-time
// credit (a Value benefit) is written to the owner's default balance through the finance ledger, once.
import type { EntityManager } from '@mikro-orm/postgresql';
import { Balance } from './entities/Balance.js';
import { tenantIdOf } from './entities/TenantScoped.js';
import { Voucher } from './entities/Voucher.js';
import { Voucherable } from './entities/Voucherable.js';
import { appendBalanceUpdate } from './balance-ledger.js';
import { createBalance } from './balances.js';
import { recordEvent } from './events.js';
import { DomainError } from '../domain/errors.js';
import { formatAmount } from '../domain/money.js';
import {
  effectiveBenefits,
  grantValidUntil,
  voucherFiguresOf,
  type VoucherSourceKind,
  type VoucherStatus,
} from '../domain/benefits.js';

/** Who caused a grant: its kind and a reference unique within the kind (e.g. `user-subscription:7:period-3`). */
export interface VoucherSource {
  kind: VoucherSourceKind;
  reference: string;
}

/** One grant to a customer (the form the other domains call). */
export interface GrantRequest {
  voucherableId: number;
  customerId: number;
  source: VoucherSource;
  validFrom: Date;
  /** An explicit end (e.g. a subscription period's); absent or null: the template's validity rules. */
  validUntil?: Date | null;
}

/** The owner of granted vouchers: a customer or a business account. */
export type VoucherOwner = { customerId: number } | { userGroupId: number };

/** A grant with every option the benefits domain's own callers use. */
export interface OwnerGrantRequest {
  voucherableId: number;
  owner: VoucherOwner;
  source: VoucherSource;
  validFrom: Date;
  validUntil?: Date | null;
  /** Operator, customer or `system` recorded as the creator. */
  createdBy?: string;
  /** Customer-care overrides (spec: custom value and custom free minutes on customer-care vouchers). */
  customValue?: string | null;
  customFreeMinutes?: number | null;
}

/**
 * Grants the vouchers of a template (one per benefit) to a customer. Idempotent on (tenant, source.kind,
 * source.reference, voucherableId): a repeated call returns the ids of the first one's vouchers. Call it
 * inside a transaction (it serialises concurrent grants of one cause with a transaction lock); a Value
 * benefit's credit is written to the customer's default balance at the template's business unit in the
 * same transaction. Does not check the template's status: callers that sell or redeem do.
 */
export async function grantVouchers(em: EntityManager, request: GrantRequest): Promise<number[]> {
  const vouchers = await grantVouchersTo(em, {
    voucherableId: request.voucherableId,
    owner: { customerId: request.customerId },
    source: request.source,
    validFrom: request.validFrom,
    validUntil: request.validUntil ?? null,
  });
  return vouchers.map((voucher) => voucher.id);
}

/** Serialises one cause's grants within the caller's transaction (released at commit or rollback). */
async function lockGrant(em: EntityManager, key: string): Promise<void> {
  await em.execute(`select pg_advisory_xact_lock(hashtextextended(?, 0))`, [key]);
}

/** The status a voucher starts in at a given time. */
function initialStatus(validFrom: Date, validUntil: Date | null, now: Date): VoucherStatus {
  if (validUntil && validUntil <= now) return 'EXPIRED';
  return validFrom > now ? 'PENDING' : 'ACTIVE';
}

/**
 * Grants a template's vouchers to a customer or a business account, once per cause (see
 * `grantVouchers`), and returns them (flushed). VA100 when the template does not exist.
 */
export async function grantVouchersTo(em: EntityManager, request: OwnerGrantRequest): Promise<Voucher[]> {
  const tenant = tenantIdOf(em);
  await lockGrant(
    em,
    `voucher-grant:${tenant}:${request.source.kind}:${request.source.reference}:${request.voucherableId}`,
  );
  const template = await em.findOne(Voucherable, { id: request.voucherableId });
  if (!template) throw new DomainError('VA100', `voucherable ${request.voucherableId} not found`);
  const existing = await em.find(
    Voucher,
    { sourceKind: request.source.kind, sourceReference: request.source.reference, voucherable: template.id },
    { orderBy: { benefitIndex: 'asc' } },
  );
  if (existing.length > 0) return existing;
  const now = new Date();
  const owner = request.owner;
  const vouchers = effectiveBenefits(template).map((benefit, benefitIndex) => {
    const figures = voucherFiguresOf(benefit, template);
    if (figures.benefitType === 'Value' && request.customValue != null)
      figures.valueGross = request.customValue;
    if (figures.benefitType === 'FreeMinutes' && request.customFreeMinutes != null)
      figures.freeMinutes = request.customFreeMinutes;
    const validUntil = grantValidUntil(request.validFrom, benefit, template, request.validUntil);
    return em.create(Voucher, {
      voucherable: template,
      businessUnitId: template.businessUnitId,
      customerId: 'customerId' in owner ? owner.customerId : null,
      userGroupId: 'userGroupId' in owner ? owner.userGroupId : null,
      status: initialStatus(request.validFrom, validUntil, now),
      sourceKind: request.source.kind,
      sourceReference: request.source.reference,
      benefitIndex,
      currency: template.currency,
      ...figures,
      remainingValueGross: figures.valueGross,
      remainingFreeMinutes: figures.freeMinutes,
      remainingFreeUnlocks: figures.freeUnlocks,
      remainingNumberOfRentals: figures.numberOfRentals,
      validFrom: request.validFrom,
      validUntil,
      redeemedAt: now,
      createdBy: request.createdBy ?? 'system',
    });
  });
  await em.flush();
  for (const voucher of vouchers) await creditIfDue(em, voucher, request.createdBy ?? 'system');
  if (vouchers.length > 0)
    recordEvent(em, {
      type: 'VOUCHERS_GRANTED',
      customerId: 'customerId' in owner ? owner.customerId : null,
      adminSubject: request.createdBy ?? 'system',
      description: `${vouchers.length} voucher(s) of "${template.name}" granted`,
      payload: {
        voucherableId: template.id,
        voucherIds: vouchers.map((voucher) => voucher.id),
        userGroupId: 'userGroupId' in owner ? owner.userGroupId : null,
        sourceKind: request.source.kind,
        sourceReference: request.source.reference,
      },
    });
  await em.flush();
  return vouchers;
}

/**
 * Writes an ACTIVE Value voucher's credit to its owner's default balance at its business unit (creating
 * a system balance when the owner has none there) and marks the voucher USED_UP: its value now lives in
 * the wallet. The ledger row's key (`voucher:{id}:credit`) makes it happen once, whatever retries.
 */
export async function creditIfDue(em: EntityManager, voucher: Voucher, by: string): Promise<void> {
  if (voucher.benefitType !== 'Value' || voucher.status !== 'ACTIVE' || voucher.creditedAt) return;
  if (voucher.valueGross == null) return;
  const owner: VoucherOwner | null =
    voucher.customerId != null
      ? { customerId: voucher.customerId }
      : voucher.userGroupId != null
        ? { userGroupId: voucher.userGroupId }
        : null;
  if (!owner) return;
  const ownerWhere =
    'customerId' in owner ? { customer: owner.customerId } : { userGroup: owner.userGroupId };
  const balance =
    (await em.findOne(Balance, {
      ...ownerWhere,
      businessUnit: voucher.businessUnitId,
      isDefault: true,
      deletedAt: null,
    })) ??
    (await createBalance(em, {
      owner,
      businessUnitId: voucher.businessUnitId,
      name: 'Default',
      systemCreated: true,
      makeDefault: true,
      createdBy: by,
    }));
  const template = await em.findOneOrFail(Voucherable, { id: voucher.voucherable.id });
  await appendBalanceUpdate(em, {
    balance,
    kind: 'VOUCHER',
    amount: formatAmount(voucher.valueGross, voucher.currency),
    description: `voucher "${template.name}"`,
    createdBy: by,
    idempotencyKey: `voucher:${voucher.id}:credit`,
    voucherId: voucher.id,
  });
  voucher.creditedAt = new Date();
  voucher.creditedBalanceId = balance.id;
  voucher.remainingValueGross = '0';
  voucher.status = 'USED_UP';
  await em.flush();
}

/**
 * Cancels the NOT_REDEEMED, PENDING and ACTIVE vouchers one cause granted (e.g. a subscription cancelled
 * with cancelBenefits=true) and answers how many; already credited value stays in the wallet. A reference
 * ending in `*` matches every reference starting with what precedes it (`user-subscription:7:*` cancels
 * every period's vouchers of that subscription).
 */
export async function cancelVouchersOf(em: EntityManager, source: VoucherSource): Promise<number> {
  const reference = source.reference.endsWith('*')
    ? { $like: `${source.reference.slice(0, -1).replace(/[\\%_]/g, (char) => `\\${char}`)}%` }
    : source.reference;
  const vouchers = await em.find(Voucher, {
    sourceKind: source.kind,
    sourceReference: reference,
    status: { $in: ['NOT_REDEEMED', 'PENDING', 'ACTIVE'] },
  });
  const now = new Date();
  for (const voucher of vouchers) {
    voucher.status = 'CANCELED';
    voucher.canceledAt = now;
  }
  if (vouchers.length > 0)
    recordEvent(em, {
      type: 'VOUCHERS_CANCELED',
      customerId: vouchers[0].customerId ?? null,
      adminSubject: 'system',
      payload: {
        voucherIds: vouchers.map((voucher) => voucher.id),
        sourceKind: source.kind,
        sourceReference: source.reference,
      },
    });
  await em.flush();
  return vouchers.length;
}
