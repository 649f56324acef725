// The app's promotions (`GET /promotions?branchId`): the valid geofence promotions and surcharges and the
// vehicle promotions of the branch's business unit that the customer's annotations let them see, each
// with its area and weekly window and whether it is in force now; with a position, only the geofence
// ones whose area contains it (and the vehicle promotions). Geofence promotions apply by position; they
// are never redeemed by a code (W126).
import { Type } from '@sinclair/typebox';
import { AnnotationAssignment } from '../../../db/entities/AnnotationAssignment.js';
import { visiblePromotions } from '../../../db/vouchers.js';
import { geofenceContains, weekdays } from '../../../domain/geofence.js';
import { customerPassesGates, geofenceTypes, promotionWindowOpen } from '../../../domain/voucherables.js';
import { component, DateTime, Id, Nullable, StringEnum } from '../../kernel/schemas.js';
import { defineRoute, ok } from '../../kernel/route.js';
import { BenefitType, VoucherableGeofence } from '../../shared/voucherable-representation.js';
import { formatAmount } from '../../../domain/money.js';

const tags = ['Promotions'];
const promotionTypes = ['GeoFencePromotion', 'GeoFenceSurcharge', 'VehiclePromotion'] as const;

const PromotionSchema = component(
  'Promotion',
  Type.Object(
    {
      id: Id({ description: 'The voucherable.' }),
      type: StringEnum(promotionTypes),
      name: Type.String(),
      description: Nullable(Type.String()),
      iconUrl: Nullable(Type.String()),
      currency: Type.String(),
      benefits: Type.Array(
        Type.Object(
          {
            type: BenefitType,
            amount: Nullable(Type.String()),
            applicablePriceType: Nullable(Type.String()),
          },
          { additionalProperties: false },
        ),
      ),
      vehicleCategoryIds: Nullable(Type.Array(Id())),
      validUntil: Nullable(DateTime()),
      geofence: Nullable(VoucherableGeofence),
      weekdays: Nullable(Type.Array(StringEnum(weekdays))),
      recurrenceStart: Nullable(DateTime()),
      durationMinutes: Nullable(Type.Integer()),
      inForceNow: Type.Boolean({
        description: 'Whether its weekly window is open now (always true for vehicle promotions).',
      }),
    },
    { additionalProperties: false },
  ),
);

export const listPromotions = defineRoute({
  operationId: 'listPromotions',
  method: 'get',
  path: '/promotions',
  interface: 'front',
  summary: 'Valid geofence promotions and surcharges, and vehicle promotions, of a branch',
  tags,
  query: Type.Object({
    branchId: Id(),
    lat: Type.Optional(Type.Number({ minimum: -90, maximum: 90 })),
    lng: Type.Optional(Type.Number({ minimum: -180, maximum: 180 })),
  }),
  access: { customer: 'the promotions the caller may see (their annotations pass the gates).' },
  responses: { 200: { description: 'The promotions', schema: Type.Array(PromotionSchema) } },
  errors: ['B404'],
  async handler(ctx) {
    const customer = await ctx.customer();
    const now = new Date();
    const { templates, timeZoneId } = await visiblePromotions(ctx.em, {
      branchId: ctx.query.branchId,
      at: now,
      types: promotionTypes,
    });
    const carried = (await ctx.em.find(AnnotationAssignment, { customerId: customer.id })).map(
      (row) => row.annotation.id,
    );
    const position =
      ctx.query.lat !== undefined && ctx.query.lng !== undefined
        ? { lat: ctx.query.lat, lng: ctx.query.lng }
        : null;
    const rows = templates
      .filter((template) => customerPassesGates(template, carried))
      .filter(
        (template) =>
          !position ||
          !geofenceTypes.includes(template.type) ||
          (template.geofence != null && geofenceContains(template.geofence, position)),
      )
      .map((template) => {
        const geofenceType = geofenceTypes.includes(template.type);
        const inForceNow =
          !geofenceType ||
          (template.weekdays != null &&
            template.recurrenceStart != null &&
            template.durationMinutes != null &&
            promotionWindowOpen(
              {
                weekdays: template.weekdays,
                recurrenceStart: template.recurrenceStart,
                durationMinutes: template.durationMinutes,
              },
              now,
              timeZoneId,
            ));
        const isMoney = (type: string) => type === 'Value' || type === 'RentalRebate';
        const benefits =
          template.benefits.length > 0
            ? template.benefits
            : [
                ...(template.discount != null
                  ? [{ type: 'Discount' as const, amount: template.discount }]
                  : []),
                ...(template.rentalRebate != null
                  ? [{ type: 'RentalRebate' as const, amount: template.rentalRebate }]
                  : []),
                ...(template.value != null ? [{ type: 'Value' as const, amount: template.value }] : []),
              ];
        return {
          id: template.id,
          type: template.type as (typeof promotionTypes)[number],
          name: template.name,
          description: template.description ?? null,
          iconUrl: template.iconUrl ?? null,
          currency: template.currency,
          benefits: benefits.map((benefit) => ({
            type: benefit.type,
            amount:
              benefit.amount == null
                ? null
                : isMoney(benefit.type)
                  ? formatAmount(benefit.amount, template.currency)
                  : benefit.amount,
            applicablePriceType:
              ('applicablePriceType' in benefit ? benefit.applicablePriceType : null) ??
              template.applicablePriceType ??
              null,
          })),
          vehicleCategoryIds: template.applicableVehicleCategoryIds ?? null,
          validUntil: template.validUntil?.toISOString() ?? null,
          geofence: template.geofence ?? null,
          weekdays: template.weekdays ?? null,
          recurrenceStart: template.recurrenceStart?.toISOString() ?? null,
          durationMinutes: template.durationMinutes ?? null,
          inForceNow,
        };
      });
    return ok(rows);
  },
});

export const promotionRoutes = [listPromotions];
