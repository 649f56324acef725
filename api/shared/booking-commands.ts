// Commands on a booking, which both interfaces use: create, update, pick up and cancel, each through the
// booking's workflow (workflows/booking.ts), with the request fields and answer codes they share.
import { Type, type Static, type TObject } from '@sinclair/typebox';
import type { EntityManager } from '@mikro-orm/postgresql';
import { Booking } from '../../db/entities/Booking.js';
import { UserGroup } from '../../db/entities/UserGroup.js';
import { VehicleCategory } from '../../db/entities/VehicleCategory.js';
import { bookingStationOf } from '../../db/booking-availability.js';
import { bookingSettingsOf } from '../../db/booking-lifecycle.js';
import { DomainError, type ErrorCode } from '../../domain/errors.js';
import { bookingTypes, bookingWindowRefusal, terminalBookingStates } from '../../domain/booking.js';
import { startRequirementCodes } from '../../domain/rental-requirements.js';
import {
  awaitBookingUpdate,
  bookingWorkflowId,
  bookingWorkflowStartOptions,
  cancelBookingUpdate,
  pickupBookingUpdate,
  updateBookingUpdate,
  BOOKING_WORKFLOW_TYPE,
  type BookingRequest,
} from '../../workflows/booking.messages.js';
import { awaitReservationUpdate, rentalWorkflowId } from '../../workflows/rental.messages.js';
import { checkBusinessContext } from './rental-creation.js';
import type { RouteContext } from '../kernel/route.js';
import { DateTime, Id, Int, Nullable, Position, Str, StringEnum } from '../kernel/schemas.js';
import type { ApiServices } from '../kernel/mount.js';
import { loadBooking, reloadBooking, type BookingDto } from './booking-representation.js';

/** The booking workflow of a booking. */
export const bookingWorkflow = (ctx: RouteContext, bookingId: number) =>
  ctx.services.temporal.workflow.getHandle(bookingWorkflowId(ctx.tenant, bookingId));

/** Refuses an operation on a booking that ended, before reaching its (finished) workflow. */
export function assertBookingRunning(booking: Booking): void {
  if (terminalBookingStates.includes(booking.state))
    throw new DomainError('B304', `the booking is ${booking.state}`);
}

/** Fields of a creation common to both interfaces. */
export const bookingCreationFields = {
  branchId: Id({ description: 'Start station (a booking station).' }),
  endBranchId: Type.Optional(Id({ description: 'Return station; default: the start station.' })),
  vehicleCategoryId: Id(),
  startTime: DateTime(),
  endTime: DateTime(),
  type: Type.Optional(StringEnum(bookingTypes, { default: 'STATION' })),
  startPosition: Type.Optional(Position),
  startPositionRadius: Type.Optional(Int(0, 100_000, { description: 'Metres (FLOATING).' })),
  additions: Type.Optional(Type.Array(Str(64, { minLength: 1 }), { maxItems: 20 })),
  pricingBundleId: Type.Optional(Id({ description: 'A BOOKING bundle; default: the one assigned.' })),
  userGroupId: Type.Optional(Id({ description: 'Business account of a business booking.' })),
  userGroupCode: Type.Optional(
    Str(64, { minLength: 1, deprecated: true, description: 'Deprecated: use userGroupId.' }),
  ),
  costCenterId: Type.Optional(Id()),
  reason: Type.Optional(Str(500, { minLength: 1 })),
  externalReference: Type.Optional(Str(200)),
  bookingRequest: Type.Optional(
    Type.Boolean({ default: false, description: 'Create as a request awaiting approval.' }),
  ),
};

/** Codes a creation may answer (request checks, the first activity's refusals, the business context). */
export const bookingCreationErrors = [
  'B301',
  'B302',
  'B303',
  'B309',
  'B315',
  'B404',
  'S100',
  'S101',
  'V404',
  'VC404',
  'U106',
  'U131',
  'U134',
  'P104',
  'UG404',
  'R190',
  'R191',
  'R192',
  'ODP100',
  'ODP104',
  'ODP106',
  'ODP110',
  'ODP111',
] as const satisfies readonly ErrorCode[];

/** The body of a creation as both interfaces accept it. */
type CreationBody = Static<TObject<typeof bookingCreationFields>>;

/** What a creation asks for once the caller's rights are checked. */
export interface BookingCreation {
  customerId: number;
  requestedBy: string;
  body: CreationBody & {
    vehicleId?: number;
    notes?: string;
    annotations?: string[];
  };
  ignoreTimeConstraints: boolean;
}

/** The business account a deprecated userGroupCode names (UG404 when none). */
async function groupIdOfCode(em: EntityManager, code: string): Promise<number> {
  const group = await em.findOne(UserGroup, { code });
  if (!group) throw new DomainError('UG404', `business account ${code} not found`);
  return group.id;
}

/**
 * Creates a booking through its workflow: checks the business context, allocates the id, starts the
 * workflow and waits until the booking is recorded (or refused), then reloads the row.
 */
export async function createBooking(
  em: EntityManager,
  services: Pick<ApiServices, 'temporal' | 'taskQueue'>,
  tenant: string,
  creation: BookingCreation,
): Promise<Booking> {
  const { body } = creation;
  const userGroupId =
    body.userGroupId ?? (body.userGroupCode ? await groupIdOfCode(em, body.userGroupCode) : undefined);
  const business = await checkBusinessContext(em, creation.customerId, {
    userGroupId,
    costCenterId: body.costCenterId,
    reason: body.reason,
  });
  // Cheap refusals before a workflow starts (the first activity checks all of it again, authoritatively).
  const settings = await bookingSettingsOf(em, tenant, body.branchId);
  const refused = bookingWindowRefusal(
    { startMs: Date.parse(body.startTime), endMs: Date.parse(body.endTime) },
    Date.now(),
    settings,
    { ignoreTimeConstraints: creation.ignoreTimeConstraints },
  );
  if (refused) throw new DomainError(refused.code, refused.reason);
  if (!(await em.findOne(VehicleCategory, body.vehicleCategoryId)))
    throw new DomainError('VC404', `vehicle category ${body.vehicleCategoryId} not found`);
  await bookingStationOf(em, body.branchId, body.vehicleCategoryId);
  const [{ id: bookingId }] = await em.execute<[{ id: number }]>(
    `select nextval('booking_id_seq')::int as id`,
  );
  const request: BookingRequest = {
    customerId: creation.customerId,
    requestedBy: creation.requestedBy,
    type: body.type ?? 'STATION',
    rentalType: business.userGroupId ? 'BUSINESS' : 'PRIVATE',
    branchId: body.branchId,
    endBranchId: body.endBranchId,
    vehicleCategoryId: body.vehicleCategoryId,
    vehicleId: body.vehicleId,
    startTime: body.startTime,
    endTime: body.endTime,
    startPosition: body.startPosition,
    startPositionRadius: body.startPositionRadius,
    additions: body.additions,
    pricingBundleId: body.pricingBundleId,
    ...business,
    notes: body.notes,
    externalReference: body.externalReference,
    annotations: body.annotations,
    bookingRequest: body.bookingRequest ?? false,
    ignoreTimeConstraints: creation.ignoreTimeConstraints,
  };
  const handle = await services.temporal.workflow.start(
    BOOKING_WORKFLOW_TYPE,
    bookingWorkflowStartOptions({ tenant, bookingId, request }, services.taskQueue),
  );
  await handle.executeUpdate(awaitBookingUpdate);
  return loadBooking(em.fork(), bookingId);
}

/** Codes a pickup may answer: the booking's checks, then the reservation and start of its rental. */
export const bookingPickupErrors = [
  'B300',
  'B304',
  'B305',
  'B310',
  'B311',
  'B312',
  'B313',
  ...Object.values(startRequirementCodes),
  'RQ100',
  'U106',
  'U131',
  'R102',
  'R103',
  'R104',
  'R170',
  'R173',
  'ODP104',
] as const satisfies readonly ErrorCode[];

/**
 * Picks a booking up: the workflow checks it and starts the rental workflow of the delivered vehicle
 * (started at once); this waits until the rental's reservation (and start) is recorded or refused.
 */
export async function pickupBooking(
  ctx: RouteContext,
  booking: Booking,
  rentalAuthOverride: boolean,
): Promise<BookingDto> {
  assertBookingRunning(booking);
  const snapshot = await bookingWorkflow(ctx, booking.id).executeUpdate(pickupBookingUpdate, {
    args: [{ requestedBy: ctx.actor, rentalAuthOverride }],
  });
  if (snapshot.pickupRentalId !== undefined)
    await ctx.services.temporal.workflow
      .getHandle(rentalWorkflowId(ctx.tenant, snapshot.pickupRentalId))
      .executeUpdate(awaitReservationUpdate);
  return reloadBooking(ctx, booking.id);
}

/** Cancels a booking through its workflow (both interfaces). */
export async function cancelBooking(
  ctx: RouteContext,
  booking: Booking,
  request: { waiveCancellationFee: boolean; reason?: string; enforceCancellable: boolean },
): Promise<BookingDto> {
  assertBookingRunning(booking);
  await bookingWorkflow(ctx, booking.id).executeUpdate(cancelBookingUpdate, {
    args: [{ requestedBy: ctx.actor, ...request }],
  });
  return reloadBooking(ctx, booking.id);
}

/** Fields an update may change (both interfaces; operators may change more). */
export const bookingUpdateFields = {
  startTime: Type.Optional(DateTime()),
  endTime: Type.Optional(DateTime()),
  vehicleCategoryId: Type.Optional(Id({ description: 'A new category resets the additions.' })),
  endBranchId: Type.Optional(Id()),
  additions: Type.Optional(Type.Array(Str(64, { minLength: 1 }), { maxItems: 20 })),
  pricingBundleId: Type.Optional(
    Nullable(Id({ description: 'null: back to the default bundle (noted in annotations).' })),
  ),
  costCenterId: Type.Optional(Nullable(Id())),
  reason: Type.Optional(Nullable(Str(500))),
  externalReference: Type.Optional(Nullable(Str(200))),
};

export const bookingUpdateErrors = [
  'B300',
  'B301',
  'B302',
  'B303',
  'B304',
  'B312',
  'B313',
  'B315',
  'B404',
  'S100',
  'S101',
  'VC404',
  'R191',
  'ODP100',
  'ODP104',
  'ODP106',
  'ODP110',
  'ODP111',
] as const satisfies readonly ErrorCode[];

/** Updates a booking through its workflow (both interfaces). */
export async function updateBooking(
  ctx: RouteContext,
  booking: Booking,
  changes: Record<string, unknown>,
  ignoreTimeConstraints: boolean,
): Promise<BookingDto> {
  assertBookingRunning(booking);
  await bookingWorkflow(ctx, booking.id).executeUpdate(updateBookingUpdate, {
    args: [{ requestedBy: ctx.actor, changes, ignoreTimeConstraints }],
  });
  return reloadBooking(ctx, booking.id);
}
