// Geofence promotions and surcharges in a rental's price (docs/benefits.md, "Geofence promotions and
// surcharges"). A GeoFencePromotion or GeoFenceSurcharge template in force at the rental's start position
// (at its start) or end position (at its end) is granted to the customer for that rental, once: source
// PROMOTION, reference `geofence:{voucherableId}:rental:{rentalId}` (unique, so a retry, the END after the
// START or both positions in one zone grant it once). Those vouchers belong to their rental only: the
// general lookup (`applicableVouchers`) never returns them; the rental's prices add them — a promotion's
// vouchers as benefits (taken under the rental's key like any voucher), a surcharge's as SURCHARGE lines —
// and its final price closes them (USED_UP).
import type { EntityManager } from '@mikro-orm/postgresql';
import { AnnotationAssignment } from './entities/AnnotationAssignment.js';
import { tenantIdOf } from './entities/TenantScoped.js';
import { Voucher } from './entities/Voucher.js';
import { Voucherable } from './entities/Voucherable.js';
import { Vehicle } from './entities/Vehicle.js';
import { BusinessUnit } from './entities/BusinessUnit.js';
import { branchAncestry, branchDirectory } from './branches.js';
import { preparedRows } from './prepared.js';
import { deepFreeze, readCacheOf } from './read-cache.js';
import { geofenceTemplatesAt, grantGeofencePromotion, type GeofenceTemplateFields } from './vouchers.js';
import { voucherMayMove } from '../domain/benefits.js';
import { DomainError } from '../domain/errors.js';
import type { LatLng } from '../domain/geofence.js';
import type { PricingSurcharge } from '../domain/pricing-benefits.js';
import type { RentalPricingSubject } from '../domain/rental-pricing.js';
import { customerPassesGates, geofenceTypes } from '../domain/voucherables.js';

/** A geofence template as a rental's grant reads it: plain data, shared through the read cache. */
type RentalGeofenceTemplate = GeofenceTemplateFields &
  Pick<
    Voucherable,
    | 'type'
    | 'businessUnitId'
    | 'applicableBranchIds'
    | 'guserRequiredAnnotationIds'
    | 'guserProhibitedAnnotationIds'
    | 'applicableVehicleCategoryIds'
  >;

/** What a tenant's rentals read of its geofence templates, from the read cache. */
interface TenantGeofenceTemplates {
  /** Whether the tenant ever had one (any state: else no rental of it carries their vouchers). */
  any: boolean;
  /** Its ACTIVE ones, whatever their validity (each use checks it): the ones a rental may be granted. */
  active: readonly RentalGeofenceTemplate[];
  /** The time zone of each business unit with an ACTIVE one (their weekly windows are in it). */
  timeZones: Readonly<Record<number, string>>;
}

/**
 * The tenant's geofence templates as rentals read them: read once per read-cache lifetime (template,
 * branch and business-unit writes empty it), since every START and END asks. `warmRentalReadCache` loads
 * it before the step's transaction, which only reads what the cache holds.
 */
export function tenantGeofenceTemplates(em: EntityManager, tenant: string): Promise<TenantGeofenceTemplates> {
  return readCacheOf(em).get(em, `geofence-templates:${tenant}`, async () => {
    const [row] = await preparedRows<{ any: boolean }>(
      em,
      `select exists (select 1 from voucherable where tenant_id = $1
                        and type in ('GeoFencePromotion', 'GeoFenceSurcharge')) as any`,
      [tenant],
    );
    const active = row!.any
      ? await em.find(
          Voucherable,
          { tenant, status: 'ACTIVE', deletedAt: null, type: { $in: [...geofenceTypes] } },
          { orderBy: { id: 'asc' } },
        )
      : [];
    const unitIds = [...new Set(active.map((template) => template.businessUnitId))];
    const units = unitIds.length ? await em.find(BusinessUnit, { tenant, id: { $in: unitIds } }) : [];
    return deepFreeze({
      any: row!.any,
      active: active.map((template) => ({
        id: template.id,
        type: template.type,
        businessUnitId: template.businessUnitId,
        applicableBranchIds: template.applicableBranchIds ?? null,
        validUntil: template.validUntil ?? null,
        geofence: template.geofence ?? null,
        weekdays: template.weekdays ?? null,
        recurrenceStart: template.recurrenceStart ?? null,
        durationMinutes: template.durationMinutes ?? null,
        guserRequiredAnnotationIds: [...template.guserRequiredAnnotationIds],
        guserProhibitedAnnotationIds: [...template.guserProhibitedAnnotationIds],
        applicableVehicleCategoryIds: template.applicableVehicleCategoryIds ?? null,
      })),
      timeZones: Object.fromEntries(units.map((unit) => [unit.id, unit.timeZoneId])),
    });
  });
}

/**
 * The ACTIVE geofence templates a branch's rentals may be granted (`visiblePromotions`' rule: its business
 * unit's, within their branches), with the unit's time zone.
 */
async function branchGeofenceTemplates(
  em: EntityManager,
  tenant: string,
  branchId: number,
  all: TenantGeofenceTemplates,
): Promise<{ templates: readonly RentalGeofenceTemplate[]; timeZoneId: string }> {
  const { branches } = await branchDirectory(em, tenant, { branchId });
  const unitId = branches.get(branchId)?.businessUnitId;
  if (unitId === undefined) throw new DomainError('B404', `branch ${branchId} not found`);
  const ancestry = new Set(await branchAncestry(em, tenant, branchId));
  const templates = all.active.filter(
    (template) =>
      template.businessUnitId === unitId &&
      (!template.applicableBranchIds?.length || template.applicableBranchIds.some((id) => ancestry.has(id))),
  );
  return { templates, timeZoneId: all.timeZones[unitId] ?? 'UTC' };
}

/** Whether a voucher was granted for one rental by its position (never applies to another rental). */
export const isRentalGeofenceVoucher = (voucher: Pick<Voucher, 'sourceKind' | 'sourceReference'>) =>
  voucher.sourceKind === 'PROMOTION' && voucher.sourceReference.startsWith('geofence:');

/** A rental as the geofence rules read it: whose, where, and its recorded start and end. */
export interface RentalGeofenceContext {
  rentalId: number;
  customerId: number;
  /** The branch the rental (or booking) belongs to: its business unit's templates apply. */
  branchId: number;
  vehicleCategoryId: number | null;
  start?: { position: LatLng | null | undefined; at: Date | null | undefined } | null;
  end?: { position: LatLng | null | undefined; at: Date | null | undefined } | null;
}

/**
 * Grants the rental the geofence promotions and surcharges in force at its recorded start position (at its
 * start) and end position (at its end) that the customer's annotations and the vehicle category admit,
 * each template once per rental (`grantGeofencePromotion`), valid from `at`. Call it inside the step's
 * transaction. The templates come from the read cache (`tenantGeofenceTemplates`, or the caller's read of
 * it): a tenant without ACTIVE geofence templates reads nothing more, and both points share one read.
 */
export async function grantRentalGeofenceVouchers(
  em: EntityManager,
  context: RentalGeofenceContext,
  at: Date,
  templates?: TenantGeofenceTemplates,
): Promise<void> {
  const points = [context.start, context.end].filter(
    (point): point is { position: LatLng; at: Date } => point?.position != null && point.at != null,
  );
  if (points.length === 0) return;
  const tenant = tenantIdOf(em);
  const all = templates ?? (await tenantGeofenceTemplates(em, tenant));
  if (all.active.length === 0) return;
  const visible = await branchGeofenceTemplates(em, tenant, context.branchId, all);
  const found = new Map<number, RentalGeofenceTemplate>();
  for (const point of points)
    for (const template of geofenceTemplatesAt(visible, point)) found.set(template.id, template);
  if (found.size === 0) return;
  const annotations = (await em.find(AnnotationAssignment, { customerId: context.customerId })).map(
    (assignment) => assignment.annotation.id,
  );
  for (const template of [...found.values()].sort((a, b) => a.id - b.id)) {
    if (!geofenceTypes.includes(template.type) || !customerPassesGates(template, annotations)) continue;
    if (
      template.applicableVehicleCategoryIds?.length &&
      (context.vehicleCategoryId == null ||
        !template.applicableVehicleCategoryIds.includes(context.vehicleCategoryId))
    )
      continue;
    await grantGeofencePromotion(em, {
      voucherableId: template.id,
      customerId: context.customerId,
      rentalId: context.rentalId,
      at,
    });
  }
}

/** A rental's own geofence vouchers, split into the promotions' and the surcharges'. */
export interface RentalGeofenceVouchers {
  /** Every voucher granted for the rental by position. */
  vouchers: Voucher[];
  /** The promotions' vouchers a price may take as benefits (ACTIVE, or taken already under the rental's key). */
  promotionIds: number[];
  /** The surcharges the rental carries (ACTIVE or closed by its final price). */
  surcharges: PricingSurcharge[];
}

/**
 * The vouchers granted for a rental by position (`grantRentalGeofenceVouchers`), restricted by their own
 * branches and vehicle categories; canceled or expired ones add nothing.
 */
export async function rentalGeofenceVouchers(
  em: EntityManager,
  context: Pick<RentalGeofenceContext, 'rentalId' | 'customerId' | 'branchId' | 'vehicleCategoryId'>,
): Promise<RentalGeofenceVouchers> {
  const tenant = tenantIdOf(em);
  const none: RentalGeofenceVouchers = { vouchers: [], promotionIds: [], surcharges: [] };
  // Most rentals got none: probed as a row first, the entities read only when there are some.
  const [granted] = await preparedRows<{ any: boolean }>(
    em,
    `select exists (select 1 from voucher where tenant_id = $1 and customer_id = $2
                      and source_kind = 'PROMOTION' and source_reference like $3) as any`,
    [tenant, context.customerId, `geofence:%:rental:${context.rentalId}`],
  );
  if (!granted!.any) return none;
  const vouchers = await em.find(
    Voucher,
    {
      customerId: context.customerId,
      sourceKind: 'PROMOTION',
      sourceReference: { $like: `geofence:%:rental:${context.rentalId}` },
    },
    { orderBy: { id: 'asc' } },
  );
  if (vouchers.length === 0) return none;
  const ancestry = new Set(await branchAncestry(em, tenant, context.branchId));
  const templates = new Map(
    (
      await em.find(
        Voucherable,
        { id: { $in: [...new Set(vouchers.map((voucher) => voucher.voucherable.id))] } },
        { fields: ['id', 'name', 'type'] },
      )
    ).map((template) => [template.id, template]),
  );
  const fits = (voucher: Voucher) =>
    (!voucher.branchIds?.length || voucher.branchIds.some((id) => ancestry.has(id))) &&
    (!voucher.vehicleCategoryIds?.length ||
      (context.vehicleCategoryId != null && voucher.vehicleCategoryIds.includes(context.vehicleCategoryId)));
  const promotionIds: number[] = [];
  const surcharges: PricingSurcharge[] = [];
  for (const voucher of vouchers.filter(fits)) {
    const template = templates.get(voucher.voucherable.id);
    if (template?.type === 'GeoFenceSurcharge') {
      if (voucher.status !== 'ACTIVE' && voucher.status !== 'USED_UP') continue;
      surcharges.push({
        voucherId: voucher.id,
        name: template.name,
        amount: voucher.benefitType === 'RentalRebate' ? (voucher.rentalRebate ?? null) : null,
        fraction: voucher.benefitType === 'Discount' ? (voucher.discount ?? null) : null,
        applicablePriceType: voucher.applicablePriceType ?? null,
        costSources: voucher.costSources ?? null,
      });
    } else if (template?.type === 'GeoFencePromotion') promotionIds.push(voucher.id);
  }
  return { vouchers, promotionIds, surcharges };
}

/**
 * The geofence vouchers of an ending rental: unless its price was written before (`frozen`), the
 * promotions and surcharges at its recorded start and end positions are granted for it first (once per
 * template and rental); then every voucher granted for it by position. A rental that never started has
 * no positions and carries none.
 */
export async function finalRentalGeofence(
  em: EntityManager,
  rental: RentalPricingSubject,
  frozen: boolean,
  at: Date,
  where: { branchId: number; vehicleCategoryId: number | null } | null = null,
): Promise<RentalGeofenceVouchers> {
  const none: RentalGeofenceVouchers = { vouchers: [], promotionIds: [], surcharges: [] };
  if (!rental.startedAt) return none;
  const templates = await tenantGeofenceTemplates(em, rental.tenant.id);
  if (!templates.any) return none;
  const context: RentalGeofenceContext = {
    rentalId: rental.id,
    customerId: rental.customer.id,
    branchId: where?.branchId ?? rental.branch.id,
    vehicleCategoryId:
      where?.vehicleCategoryId ?? (await em.findOne(Vehicle, rental.vehicle.id))?.category.id ?? null,
    start: { position: rental.startPosition, at: rental.startedAt },
    end: { position: rental.endPosition, at: rental.endedAt ?? at },
  };
  if (!frozen) await grantRentalGeofenceVouchers(em, context, rental.endedAt ?? at, templates);
  return rentalGeofenceVouchers(em, context);
}

/** Closes a rental's geofence vouchers once its final price was written: they served their rental. */
export async function closeRentalGeofenceVouchers(em: EntityManager, vouchers: readonly Voucher[]) {
  let changed = false;
  for (const voucher of vouchers) {
    const fresh = await em.findOne(Voucher, voucher.id, { refresh: true });
    if (fresh && fresh.status !== 'USED_UP' && voucherMayMove(fresh.status, 'USED_UP')) {
      fresh.status = 'USED_UP';
      changed = true;
    }
  }
  if (changed) await em.flush();
}
