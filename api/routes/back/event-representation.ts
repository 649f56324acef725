// The operator interface's event representation, shared by the event search and the entity timelines.
import { Type, type Static } from '@sinclair/typebox';
import type { EventRow } from '../../../db/event-search.js';
import { component, DateTime, Id, Nullable, Position } from '../../kernel/schemas.js';

export const EventSchema = component(
  'Event',
  Type.Object(
    {
      id: Type.Integer({ format: 'int64', minimum: 1 }),
      type: Type.String(),
      createdAt: DateTime(),
      branchId: Nullable(Id()),
      vehicleId: Nullable(Id()),
      rentalId: Nullable(Id()),
      bookingId: Nullable(Id()),
      guserId: Nullable(Id()),
      adminGuser: Nullable(Type.String()),
      position: Nullable(Position),
      vehiclePosition: Nullable(Position),
      description: Nullable(Type.String()),
      payload: Nullable(Type.Object({})),
    },
    {
      additionalProperties: false,
      description:
        "A stored event. `position` (the user's or device's) and `vehiclePosition` (the vehicle's) are null without POSITION_LOG_READ on the event's branch (tenant-wide for an event of no branch).",
    },
  ),
);

/** The API's event representation; GPS positions only when `showPosition` (POSITION_LOG_READ). */
export function toEventDto(event: EventRow, showPosition: boolean): Static<typeof EventSchema> {
  return {
    id: Number(event.id),
    type: event.type,
    createdAt: new Date(event.created_at).toISOString(),
    branchId: event.branch_id ?? null,
    vehicleId: event.vehicle_id ?? null,
    rentalId: event.rental_id ?? null,
    bookingId: event.booking_id ?? null,
    guserId: event.customer_id ?? null,
    adminGuser: event.admin_subject ?? null,
    position: showPosition ? (event.position ?? null) : null,
    vehiclePosition: showPosition ? (event.vehicle_position ?? null) : null,
    description: event.description ?? null,
    payload: event.payload ?? null,
  };
}
