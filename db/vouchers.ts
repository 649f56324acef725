// Vouchers beside the grant API (db/voucher-grants.ts): their states kept current (PENDING → ACTIVE with
// its claim-time credit, → EXPIRED), single-use constraint codes and redeemable codes, cancel, consumption
// of remaining value, minutes, unlocks and rentals once per key, and the ACTIVE vouchers that apply to a
// rental context (what the pricing engine will read).
import { randomInt } from 'node:crypto';
import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { Decimal } from 'decimal.js';
import { AnnotationAssignment } from './entities/AnnotationAssignment.js';
import { tenantIdOf } from './entities/TenantScoped.js';
import { Voucher } from './entities/Voucher.js';
import { VoucherCode } from './entities/VoucherCode.js';
import { VoucherConsumption } from './entities/VoucherConsumption.js';
import { Voucherable } from './entities/Voucherable.js';
import { branchAncestry } from './branches.js';
import { inTenantTransaction } from './orm.js';
import { recordEvent } from './events.js';
import { Branch } from './entities/Branch.js';
import { creditIfDue, grantVouchersTo } from './voucher-grants.js';
import { DomainError } from '../domain/errors.js';
import { effectiveBenefits, grantValidUntil, voucherFiguresOf, voucherMayMove } from '../domain/benefits.js';
import { geofenceContains, type LatLng } from '../domain/geofence.js';
import { customerPassesGates, geofenceTypes, promotionWindowOpen } from '../domain/voucherables.js';

/** Whose vouchers a state refresh looks at. */
export type VoucherScope =
  | { customerId: number }
  | { userGroupId: number }
  | { businessUnitId: number }
  | { voucherIds: number[] }
  | 'all';

function scopeSql(scope: VoucherScope): [string, unknown[]] {
  if (scope === 'all') return ['', []];
  if ('customerId' in scope) return [' and customer_id = ?', [scope.customerId]];
  if ('userGroupId' in scope) return [' and user_group_id = ?', [scope.userGroupId]];
  if ('businessUnitId' in scope) return [' and business_unit_id = ?', [scope.businessUnitId]];
  return [' and id in (select jsonb_array_elements_text(?::jsonb)::int)', [JSON.stringify(scope.voucherIds)]];
}

/**
 * Brings vouchers' states up to an instant: those past validUntil become EXPIRED, PENDING ones whose
 * validFrom came become ACTIVE (a Value one then credits its owner's balance, once). Idempotent; run
 * before reads and grants look at states. Answers how many moved.
 */
export async function refreshVoucherStates(
  em: EntityManager,
  scope: VoucherScope,
  now = new Date(),
): Promise<number> {
  const tenant = tenantIdOf(em);
  const [where, params] = scopeSql(scope);
  const expired = await em.execute<{ id: number }[]>(
    `update voucher set status = 'EXPIRED', updated_at = now()
      where tenant_id = ? and status in ('NOT_REDEEMED', 'PENDING', 'ACTIVE') and valid_until is not null and valid_until <= ?${where}
      returning id`,
    [tenant, now, ...params],
  );
  const activated = await em.execute<{ id: number }[]>(
    `update voucher set status = 'ACTIVE', updated_at = now()
      where tenant_id = ? and status = 'PENDING' and valid_from <= ?${where}
      returning id`,
    [tenant, now, ...params],
  );
  if (activated.length > 0) {
    const vouchers = await em.find(
      Voucher,
      { id: { $in: activated.map((row) => row.id) }, benefitType: 'Value' },
      { refresh: true },
    );
    for (const voucher of vouchers) await creditIfDue(em, voucher, 'system');
  }
  return expired.length + activated.length;
}

// ---------------------------------------------------------------------------------------------------
// Codes

/** Crockford base-32 without look-alikes: what generated codes are written in. */
const codeAlphabet = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/** A random code (60 bits after the prefix): collisions are not expected, and the unique indexes refuse one. */
export function generateCode(prefix = ''): string {
  let code = prefix;
  for (let index = 0; index < 12; index++) code += codeAlphabet[randomInt(codeAlphabet.length)];
  return code;
}

/**
 * Creates `count` single-use constraint codes of a template: per code, one NOT_REDEEMED voucher per
 * benefit without owner, keeping the benefit's validity period for the moment it is redeemed (a fixed
 * end, the explicit `validUntil` or the template's, is set now). Flushed; answers the codes with their vouchers.
 */
export async function createConstraintCodes(
  em: EntityManager,
  template: Voucherable,
  input: { count: number; prefix?: string; validUntil?: Date | null; createdBy: string },
): Promise<{ code: string; vouchers: Voucher[] }[]> {
  const created: { code: string; vouchers: Voucher[] }[] = [];
  const benefits = effectiveBenefits(template);
  for (let index = 0; index < input.count; index++) {
    const code = generateCode((input.prefix ?? '').toUpperCase());
    const vouchers = benefits.map((benefit, benefitIndex) => {
      const figures = voucherFiguresOf(benefit, template);
      const fixed =
        input.validUntil ??
        (benefit.validUntil ? new Date(benefit.validUntil) : (template.validUntil ?? null));
      return em.create(Voucher, {
        voucherable: template,
        businessUnitId: template.businessUnitId,
        customerId: null,
        userGroupId: null,
        status: 'NOT_REDEEMED',
        sourceKind: 'CODE',
        sourceReference: `constraint:${code}`,
        benefitIndex,
        code,
        currency: template.currency,
        ...figures,
        remainingValueGross: figures.valueGross,
        remainingFreeMinutes: figures.freeMinutes,
        remainingFreeUnlocks: figures.freeUnlocks,
        remainingNumberOfRentals: figures.numberOfRentals,
        validFrom: null,
        validUntil: fixed,
        validityPeriod: benefit.validityPeriod ?? template.validityPeriod ?? null,
        validityTimeUnit: benefit.validityTimeUnit ?? template.validityTimeUnit ?? null,
        createdBy: input.createdBy,
      });
    });
    created.push({ code, vouchers });
  }
  await em.flush();
  return created;
}

/**
 * Gives a constraint code's NOT_REDEEMED vouchers to a customer: from now, until the earliest of their
 * fixed end and their period, ACTIVE (a Value one credits the balance at once). The caller has checked
 * the code (states, template, gates).
 */
export async function claimConstraintVouchers(
  em: EntityManager,
  vouchers: Voucher[],
  customerId: number,
  now: Date,
): Promise<Voucher[]> {
  for (const voucher of vouchers) {
    const validUntil = grantValidUntil(
      now,
      { validityPeriod: voucher.validityPeriod, validityTimeUnit: voucher.validityTimeUnit },
      { validUntil: voucher.validUntil ?? null },
    );
    voucher.customerId = customerId;
    voucher.validFrom = now;
    voucher.validUntil = validUntil;
    voucher.redeemedAt = now;
    voucher.status = validUntil && validUntil <= now ? 'EXPIRED' : 'ACTIVE';
  }
  await em.flush();
  for (const voucher of vouchers) await creditIfDue(em, voucher, `customer:${customerId}`);
  recordEvent(em, {
    type: 'VOUCHERS_GRANTED',
    customerId,
    adminSubject: `customer:${customerId}`,
    description: `constraint code ${vouchers[0]?.code ?? ''} redeemed`,
    payload: {
      voucherIds: vouchers.map((voucher) => voucher.id),
      sourceKind: 'CODE',
      code: vouchers[0]?.code ?? null,
    },
  });
  await em.flush();
  return vouchers;
}

/** The vouchers of a single-use code (case ignored), by benefit. */
export function vouchersOfConstraintCode(em: EntityManager, code: string): Promise<Voucher[]> {
  return em.find(
    Voucher,
    { sourceKind: 'CODE', sourceReference: `constraint:${code.toUpperCase()}` },
    { orderBy: { benefitIndex: 'asc' } },
  );
}

/** A redeemable (multi-use) code by its text, case ignored. */
export function redeemableCodeOf(em: EntityManager, code: string): Promise<VoucherCode | null> {
  return em.findOne(VoucherCode, { code: { $ilike: code.replace(/[\\%_]/g, (char) => `\\${char}`) } });
}

/**
 * Cancels a constraint voucher with every voucher of its code: CV100 when it is not one, W105 when it
 * was used up, W130 when it already expired or was canceled.
 */
export async function cancelConstraintVoucher(
  em: EntityManager,
  voucherId: number,
  by: string,
): Promise<Voucher[]> {
  const voucher = await em.findOne(Voucher, { id: voucherId, code: { $ne: null } });
  if (!voucher?.code) throw new DomainError('CV100', `constraint voucher ${voucherId} not found`);
  const siblings = await em.find(
    Voucher,
    {
      sourceKind: voucher.sourceKind,
      sourceReference: voucher.sourceReference,
      voucherable: voucher.voucherable.id,
    },
    { orderBy: { benefitIndex: 'asc' }, lockMode: LockMode.PESSIMISTIC_WRITE },
  );
  const open = siblings.filter((row) => ['NOT_REDEEMED', 'PENDING', 'ACTIVE'].includes(row.status));
  if (open.length === 0) {
    if (siblings.some((row) => row.status === 'USED_UP'))
      throw new DomainError('W105', `constraint voucher ${voucherId} was used`);
    throw new DomainError('W130', `constraint voucher ${voucherId} is ${voucher.status}`);
  }
  const now = new Date();
  for (const row of open) {
    row.status = 'CANCELED';
    row.canceledAt = now;
  }
  recordEvent(em, {
    type: 'VOUCHERS_CANCELED',
    customerId: voucher.customerId ?? null,
    adminSubject: by,
    payload: { voucherIds: open.map((row) => row.id), code: voucher.code },
  });
  await em.flush();
  return siblings;
}

// ---------------------------------------------------------------------------------------------------
// Consumption

/** What one cause asks of a voucher, and what it got. */
export interface VoucherTake {
  value?: string;
  minutes?: number;
  unlocks?: number;
  rentals?: number;
}
export interface VoucherTaken {
  value: string;
  minutes: number;
  unlocks: number;
  rentals: number;
}

const noneTaken: VoucherTaken = { value: '0', minutes: 0, unlocks: 0, rentals: 0 };

/**
 * Takes from an ACTIVE voucher's remaining value, minutes, unlocks and rentals, at most what is left (a
 * remaining figure never goes below zero), once per key: a repeated key answers what the first call took.
 * The voucher becomes USED_UP when a figure it counts reaches zero. Locks the voucher row, so concurrent
 * consumers queue; call it inside a transaction.
 */
export async function consumeVoucher(
  em: EntityManager,
  voucherId: number,
  take: VoucherTake,
  idempotencyKey: string,
  rentalId?: number | null,
): Promise<VoucherTaken> {
  const voucher = await em.findOne(Voucher, voucherId, {
    lockMode: LockMode.PESSIMISTIC_WRITE,
    refresh: true,
  });
  if (!voucher) throw new DomainError('W101', `voucher ${voucherId} not found`);
  const earlier = await em.findOne(VoucherConsumption, { voucher: voucher.id, idempotencyKey });
  if (earlier)
    return {
      value: earlier.value,
      minutes: earlier.minutes,
      unlocks: earlier.unlocks,
      rentals: earlier.rentals,
    };
  if (voucher.status !== 'ACTIVE') return noneTaken;
  const takeCount = (remaining: number | null | undefined, wanted: number | undefined) =>
    remaining == null || !wanted ? 0 : Math.max(0, Math.min(remaining, wanted));
  const value =
    voucher.remainingValueGross == null || !take.value
      ? new Decimal(0)
      : Decimal.max(0, Decimal.min(voucher.remainingValueGross, take.value));
  const taken: VoucherTaken = {
    value: value.toString(),
    minutes: takeCount(voucher.remainingFreeMinutes, take.minutes),
    unlocks: takeCount(voucher.remainingFreeUnlocks, take.unlocks),
    rentals: takeCount(voucher.remainingNumberOfRentals, take.rentals),
  };
  if (voucher.remainingValueGross != null)
    voucher.remainingValueGross = new Decimal(voucher.remainingValueGross).minus(value).toString();
  if (voucher.remainingFreeMinutes != null) voucher.remainingFreeMinutes -= taken.minutes;
  if (voucher.remainingFreeUnlocks != null) voucher.remainingFreeUnlocks -= taken.unlocks;
  if (voucher.remainingNumberOfRentals != null) voucher.remainingNumberOfRentals -= taken.rentals;
  if (exhausted(voucher)) voucher.status = 'USED_UP';
  em.create(VoucherConsumption, { voucher, idempotencyKey, ...taken, rentalId: rentalId ?? null });
  await em.flush();
  return taken;
}

/** The key of the row that gives back one consumption (unique per voucher and key, like the taking). */
const returnKeyOf = (consumption: VoucherConsumption) => `return:${consumption.id}`;

/**
 * Gives back what a rental's vouchers gave its price, once its invoice is refunded in full: each
 * consumption under the rental is answered by a row of the same figures negated (key `return:{id}`, so a
 * retried refund step gives back nothing twice), and the voucher's remaining value, minutes, unlocks and
 * rentals go up by as much. A voucher the rental used up is ACTIVE again, or EXPIRED when its validity
 * ended meanwhile; an expired or canceled one gets its figures back and stays as it is. Locks each voucher
 * row in id order, as consumers do; call it inside the refund's transaction. Answers how many vouchers
 * got something back.
 */
export async function returnRentalBenefits(
  em: EntityManager,
  rentalId: number,
  now = new Date(),
): Promise<number> {
  // The rental's consumptions and any returns already written (the refund holds its invoice's lock, so no
  // other step returns them meanwhile; the unique key would refuse a second return anyway).
  const rows = await em.find(
    VoucherConsumption,
    { rentalId },
    { orderBy: { voucher: { id: 'asc' }, id: 'asc' } },
  );
  const done = new Set(rows.map((row) => `${row.voucher.id}/${row.idempotencyKey}`));
  let returned = 0;
  for (const consumption of rows.filter((row) => !row.idempotencyKey.startsWith('return:'))) {
    const key = returnKeyOf(consumption);
    const value = new Decimal(consumption.value);
    const tookNothing =
      value.isZero() && !consumption.minutes && !consumption.unlocks && !consumption.rentals;
    if (tookNothing || done.has(`${consumption.voucher.id}/${key}`)) continue;
    const voucher = await em.findOne(Voucher, consumption.voucher.id, {
      lockMode: LockMode.PESSIMISTIC_WRITE,
      refresh: true,
    });
    if (!voucher) continue;
    if (voucher.remainingValueGross != null)
      voucher.remainingValueGross = new Decimal(voucher.remainingValueGross).plus(value).toString();
    if (voucher.remainingFreeMinutes != null) voucher.remainingFreeMinutes += consumption.minutes;
    if (voucher.remainingFreeUnlocks != null) voucher.remainingFreeUnlocks += consumption.unlocks;
    if (voucher.remainingNumberOfRentals != null) voucher.remainingNumberOfRentals += consumption.rentals;
    if (voucher.status === 'USED_UP' && !voucher.creditedAt && !exhausted(voucher)) {
      const lapsed = voucher.validUntil != null && voucher.validUntil.getTime() <= now.getTime();
      const next = lapsed ? 'EXPIRED' : 'ACTIVE';
      if (voucherMayMove(voucher.status, next)) voucher.status = next;
    }
    em.create(VoucherConsumption, {
      voucher,
      idempotencyKey: key,
      value: value.negated().toString(),
      minutes: -consumption.minutes,
      unlocks: -consumption.unlocks,
      rentals: -consumption.rentals,
      rentalId,
    });
    returned += 1;
  }
  await em.flush();
  return returned;
}

/** Whether a figure the voucher counts is down to zero. */
function exhausted(voucher: Voucher): boolean {
  return (
    (voucher.remainingValueGross != null && new Decimal(voucher.remainingValueGross).lte(0)) ||
    voucher.remainingFreeMinutes === 0 ||
    voucher.remainingFreeUnlocks === 0 ||
    voucher.remainingNumberOfRentals === 0
  );
}

// ---------------------------------------------------------------------------------------------------
// What applies to a rental

/** Where and for whom a price is computed. */
export interface RentalBenefitContext {
  customerId: number;
  /** The business account the rental is billed to, whose vouchers apply too. */
  userGroupId?: number | null;
  branchId: number;
  vehicleCategoryId?: number | null;
  at: Date;
}

/** How targeted a voucher is: cost sources with a code first, then a group, then a price type, then none. */
function breadth(voucher: Voucher): number {
  if (voucher.costSources?.some((source) => source.code)) return 0;
  if (voucher.costSources?.length) return 1;
  if (voucher.applicablePriceType) return 2;
  return 3;
}

/**
 * The customer's (and the business account's) ACTIVE vouchers that apply to a rental context: valid at
 * the instant, at the branch (or an ancestor named), for the vehicle category, passing the template's
 * customer annotation gates, with something left; claim-time credit (Value) is excluded, as it already
 * is in the wallet. Ordered targeted before broader, then expiring first: the order benefits apply in.
 */
export async function applicableVouchers(
  em: EntityManager,
  context: RentalBenefitContext,
  /** `refresh: false` reads without moving states first (an estimate outside a transaction). */
  options: { refresh?: boolean } = {},
): Promise<Voucher[]> {
  const tenant = tenantIdOf(em);
  if (options.refresh !== false) {
    await refreshVoucherStates(em, { customerId: context.customerId }, context.at);
    if (context.userGroupId) await refreshVoucherStates(em, { userGroupId: context.userGroupId }, context.at);
  }
  const owners = [
    { customerId: context.customerId },
    ...(context.userGroupId ? [{ userGroupId: context.userGroupId }] : []),
  ];
  const candidates = await em.find(Voucher, {
    $or: owners,
    status: 'ACTIVE',
    benefitType: { $ne: 'Value' },
    $and: [
      { $or: [{ validFrom: null }, { validFrom: { $lte: context.at } }] },
      { $or: [{ validUntil: null }, { validUntil: { $gt: context.at } }] },
    ],
  });
  if (candidates.length === 0) return [];
  const ancestry = new Set(await branchAncestry(em, tenant, context.branchId));
  const templates = new Map(
    (
      await em.find(Voucherable, {
        id: { $in: [...new Set(candidates.map((voucher) => voucher.voucherable.id))] },
      })
    ).map((template) => [template.id, template]),
  );
  const annotations = (await em.find(AnnotationAssignment, { customerId: context.customerId })).map(
    (row) => row.annotation.id,
  );
  return (
    candidates
      .filter((voucher) => !voucher.branchIds?.length || voucher.branchIds.some((id) => ancestry.has(id)))
      .filter(
        (voucher) =>
          !voucher.vehicleCategoryIds?.length ||
          (context.vehicleCategoryId != null &&
            voucher.vehicleCategoryIds.includes(context.vehicleCategoryId)),
      )
      .filter((voucher) => customerPassesGates(templates.get(voucher.voucherable.id)!, annotations))
      // A geofence promotion's or surcharge's voucher belongs to the rental it was granted for
      // (db/geofence-pricing.ts), whose prices add it themselves.
      .filter(
        (voucher) => !(voucher.sourceKind === 'PROMOTION' && voucher.sourceReference.startsWith('geofence:')),
      )
      .filter((voucher) => !exhausted(voucher))
      .sort(
        (a, b) =>
          breadth(a) - breadth(b) ||
          (a.validUntil?.getTime() ?? Infinity) - (b.validUntil?.getTime() ?? Infinity) ||
          a.id - b.id,
      )
  );
}

/** Brings states up to date in a transaction of its own (the reads' way: their request is not one). */
export async function refreshVoucherStatesNow(
  orm: Parameters<typeof inTenantTransaction>[0],
  tenant: string,
  scope: VoucherScope,
): Promise<void> {
  await inTenantTransaction(orm, tenant, (tx) => refreshVoucherStates(tx, scope));
}

// ---------------------------------------------------------------------------------------------------
// Promotions found by position

/** The promotions a branch's customers may see: its business unit's ACTIVE ones of these types, valid now. */
export async function visiblePromotions(
  em: EntityManager,
  input: { branchId: number; at: Date; types: readonly Voucherable['type'][] },
): Promise<{ templates: Voucherable[]; timeZoneId: string }> {
  const tenant = tenantIdOf(em);
  const branch = await em.findOne(Branch, input.branchId, { populate: ['businessUnit'] });
  if (!branch) throw new DomainError('B404', `branch ${input.branchId} not found`);
  const ancestry = new Set(await branchAncestry(em, tenant, input.branchId));
  const templates = await em.find(
    Voucherable,
    {
      businessUnitId: branch.businessUnit.id,
      status: 'ACTIVE',
      deletedAt: null,
      type: { $in: [...input.types] },
      $or: [{ validUntil: null }, { validUntil: { $gt: input.at } }],
    },
    { orderBy: { id: 'asc' } },
  );
  return {
    templates: templates.filter(
      (template) =>
        !template.applicableBranchIds?.length || template.applicableBranchIds.some((id) => ancestry.has(id)),
    ),
    timeZoneId: branch.businessUnit.timeZoneId,
  };
}

/** What the position rules read of a geofence template (a Voucherable is one; the read cache holds plain ones). */
export type GeofenceTemplateFields = Pick<
  Voucherable,
  'id' | 'validUntil' | 'geofence' | 'weekdays' | 'recurrenceStart' | 'durationMinutes'
>;

/**
 * The geofence promotions and surcharges in force at a position and instant (their area contains it and
 * their weekly window is open): what a rental starting or ending there gets (`grantGeofencePromotion`).
 */
export async function geofencePromotionsAt(
  em: EntityManager,
  input: { branchId: number; position: LatLng; at: Date },
): Promise<Voucherable[]> {
  const visible = await visiblePromotions(em, { ...input, types: geofenceTypes });
  return geofenceTemplatesAt(visible, input);
}

/**
 * Of the visible geofence templates (`visiblePromotions` at `point.at` or earlier), those in force at the
 * point: still valid then, their area contains it and their weekly window is open. Several points
 * (a rental's start and end) share one read of the templates, at the earliest of their instants.
 */
export function geofenceTemplatesAt<Template extends GeofenceTemplateFields>(
  visible: { templates: readonly Template[]; timeZoneId: string },
  point: { position: LatLng; at: Date },
): Template[] {
  return visible.templates.filter(
    (template) =>
      (template.validUntil == null || template.validUntil > point.at) &&
      template.geofence != null &&
      geofenceContains(template.geofence, point.position) &&
      template.weekdays != null &&
      template.recurrenceStart != null &&
      template.durationMinutes != null &&
      promotionWindowOpen(
        {
          weekdays: template.weekdays,
          recurrenceStart: template.recurrenceStart,
          durationMinutes: template.durationMinutes,
        },
        point.at,
        visible.timeZoneId,
      ),
  );
}

/** Grants a geofence promotion to a customer for one rental, once (source PROMOTION, `geofence:{id}:rental:{rentalId}`). */
export function grantGeofencePromotion(
  em: EntityManager,
  input: { voucherableId: number; customerId: number; rentalId: number; at: Date },
): Promise<Voucher[]> {
  return grantVouchersTo(em, {
    voucherableId: input.voucherableId,
    owner: { customerId: input.customerId },
    source: { kind: 'PROMOTION', reference: `geofence:${input.voucherableId}:rental:${input.rentalId}` },
    validFrom: input.at,
  });
}
