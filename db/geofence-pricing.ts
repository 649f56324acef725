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
import { TENANT_FILTER } from './entities/TenantScoped.js';
import { Voucher } from './entities/Voucher.js';
import { Voucherable } from './entities/Voucherable.js';
import { Vehicle } from './entities/Vehicle.js';
import type { Rental } from './entities/Rental.js';
import { branchAncestry } from './branches.js';
import { geofenceTemplatesAt, grantGeofencePromotion, visiblePromotions } from './vouchers.js';
import { voucherMayMove } from '../domain/benefits.js';
import type { LatLng } from '../domain/geofence.js';
import type { PricingSurcharge } from '../domain/pricing-benefits.js';
import { customerPassesGates, geofenceTypes } from '../domain/voucherables.js';

/**
 * Whether the tenant ever had geofence templates (any state: else no rental of it carries their vouchers)
 * and whether one is ACTIVE (else none is granted), in one statement.
 */
export async function tenantGeofenceTemplates(em: EntityManager): Promise<{ any: boolean; active: boolean }> {
  const tenant = em.getFilterParams<{ tenantId?: string }>(TENANT_FILTER)?.tenantId;
  const [row] = await em.execute<[{ any: boolean; active: boolean }]>(
    `select exists (select 1 from voucherable where tenant_id = ?
                      and type in ('GeoFencePromotion', 'GeoFenceSurcharge')) as any,
            exists (select 1 from voucherable where tenant_id = ? and status = 'ACTIVE' and deleted_at is null
                      and type in ('GeoFencePromotion', 'GeoFenceSurcharge')) as active`,
    [tenant, tenant],
  );
  return row;
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
 * transaction. One indexed statement first (unless the caller says whether ACTIVE templates exist,
 * `activeTemplates`): a tenant without ACTIVE geofence templates reads nothing more. The templates of both
 * points are read at once.
 */
export async function grantRentalGeofenceVouchers(
  em: EntityManager,
  context: RentalGeofenceContext,
  at: Date,
  activeTemplates?: boolean,
): Promise<void> {
  const points = [context.start, context.end].filter(
    (point): point is { position: LatLng; at: Date } => point?.position != null && point.at != null,
  );
  if (points.length === 0) return;
  if (activeTemplates === undefined) {
    const tenant = em.getFilterParams<{ tenantId?: string }>(TENANT_FILTER)?.tenantId;
    const [row] = await em.execute<[{ found: boolean }]>(
      `select exists (select 1 from voucherable where tenant_id = ? and status = 'ACTIVE' and deleted_at is null
                        and type in ('GeoFencePromotion', 'GeoFenceSurcharge')) as found`,
      [tenant],
    );
    activeTemplates = row.found;
  }
  if (!activeTemplates) return;
  const visible = await visiblePromotions(em, {
    branchId: context.branchId,
    at: new Date(Math.min(...points.map((point) => point.at.getTime()))),
    types: geofenceTypes,
  });
  const found = new Map<number, Voucherable>();
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
  const vouchers = await em.find(
    Voucher,
    {
      customerId: context.customerId,
      sourceKind: 'PROMOTION',
      sourceReference: { $like: `geofence:%:rental:${context.rentalId}` },
    },
    { orderBy: { id: 'asc' } },
  );
  if (vouchers.length === 0) return { vouchers, promotionIds: [], surcharges: [] };
  const tenant = em.getFilterParams<{ tenantId?: string }>(TENANT_FILTER)?.tenantId ?? '';
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
  rental: Rental,
  frozen: boolean,
  at: Date,
  where: { branchId: number; vehicleCategoryId: number | null } | null = null,
): Promise<RentalGeofenceVouchers> {
  const none: RentalGeofenceVouchers = { vouchers: [], promotionIds: [], surcharges: [] };
  if (!rental.startedAt) return none;
  const templates = await tenantGeofenceTemplates(em);
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
  if (!frozen) await grantRentalGeofenceVouchers(em, context, rental.endedAt ?? at, templates.active);
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
