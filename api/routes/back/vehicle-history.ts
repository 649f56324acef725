// What happened to a vehicle: its telemetry history, the commands sent to it (its activity; a command
// queued for an offline vehicle can still be cancelled) and its events (log entries), newest first.
import { Type, type Static } from '@sinclair/typebox';
import { Event } from '../../../db/entities/Event.js';
import { VehicleCommand } from '../../../db/entities/VehicleCommand.js';
import { VehicleTelemetry } from '../../../db/entities/VehicleTelemetry.js';
import { DomainError } from '../../../domain/errors.js';
import { defineRoute, ok } from '../../kernel/route.js';
import { clampedInstant, component, DateTime, Id, Nullable, Str, StringEnum } from '../../kernel/schemas.js';
import {
  IdParams,
  onTheVehicle,
  TelemetryEntry,
  toTelemetryEntry,
  vehicleById,
} from './vehicle-representation.js';

const tags = ['Vehicles'];

export const vehicleTelemetry = defineRoute({
  operationId: 'vehicleTelemetry',
  method: 'get',
  path: '/vehicles/{id}/telemetry',
  interface: 'back',
  summary: 'Telemetry history of a vehicle, newest first',
  tags,
  params: IdParams,
  query: Type.Object({ from: Type.Optional(DateTime()), to: Type.Optional(DateTime()) }),
  paged: { defaultSize: 50, maxSize: 500 },
  access: onTheVehicle('VEHICLE_READ'),
  responses: { 200: { description: 'One page of telemetry', schema: Type.Array(TelemetryEntry) } },
  errors: ['V404'],
  async handler(ctx) {
    const { em, query, page } = ctx;
    const vehicle = await vehicleById(ctx);
    const where: Record<string, unknown> = { vehicleId: vehicle.id };
    const range: Record<string, Date> = {};
    if (query.from) range.$gte = clampedInstant(query.from);
    if (query.to) range.$lte = clampedInstant(query.to);
    if (Object.keys(range).length) where.reportedAt = range;
    const [rows, total] = await em.findAndCount(VehicleTelemetry, where, {
      orderBy: { reportedAt: 'desc', id: 'desc' },
      limit: page.size,
      offset: page.offset,
    });
    return ok(rows.map(toTelemetryEntry), { total });
  },
});

const CommandRecord = component(
  'VehicleCommandRecord',
  Type.Object(
    {
      commandId: Type.String(),
      command: Type.String(),
      status: StringEnum([
        'QUEUED',
        'SENT',
        'OK',
        'REFUSED',
        'ERROR',
        'TIMEOUT',
        'CANCELLED',
        'EXPIRED',
      ] as const),
      params: Nullable(Type.Record(Type.String(), Type.Unknown())),
      failureReason: Nullable(
        Type.Object({ code: Type.Optional(Type.String()), description: Type.Optional(Type.String()) }),
      ),
      requestedBy: Nullable(Type.String()),
      rentalId: Nullable(Type.Integer()),
      sentAt: DateTime(),
      answeredAt: Nullable(DateTime()),
      expiresAt: Nullable(DateTime()),
    },
    { additionalProperties: false },
  ),
);

const toCommandRecord = (row: VehicleCommand): Static<typeof CommandRecord> => ({
  commandId: row.commandId,
  command: row.command,
  status: row.status,
  params: row.params ?? null,
  failureReason: row.failureReason ?? null,
  requestedBy: row.requestedBy ?? null,
  rentalId: row.rentalId ?? null,
  sentAt: row.sentAt.toISOString(),
  answeredAt: row.answeredAt?.toISOString() ?? null,
  expiresAt: row.expiresAt?.toISOString() ?? null,
});

export const vehicleActivity = defineRoute({
  operationId: 'vehicleActivity',
  method: 'get',
  path: '/vehicles/{id}/activity',
  interface: 'back',
  summary: 'Commands sent to a vehicle, newest first, including queued ones',
  tags,
  params: IdParams,
  query: Type.Object({
    status: Type.Optional(
      StringEnum(['QUEUED', 'SENT', 'OK', 'REFUSED', 'ERROR', 'TIMEOUT', 'CANCELLED', 'EXPIRED'] as const),
    ),
  }),
  paged: { defaultSize: 50 },
  access: onTheVehicle('VEHICLE_READ'),
  responses: { 200: { description: 'One page of commands', schema: Type.Array(CommandRecord) } },
  errors: ['V404'],
  async handler(ctx) {
    const vehicle = await vehicleById(ctx);
    const where: Record<string, unknown> = { vehicleId: vehicle.id };
    if (ctx.query.status) where.status = ctx.query.status;
    const [rows, total] = await ctx.em.findAndCount(VehicleCommand, where, {
      orderBy: { id: 'desc' },
      limit: ctx.page.size,
      offset: ctx.page.offset,
    });
    return ok(rows.map(toCommandRecord), { total });
  },
});

export const cancelQueuedCommand = defineRoute({
  operationId: 'cancelQueuedCommand',
  method: 'delete',
  path: '/vehicles/{id}/activity/{commandId}',
  interface: 'back',
  summary: 'Cancel a command queued for an offline vehicle',
  tags,
  params: Type.Object({ id: Id(), commandId: Str(300, { minLength: 1 }) }),
  access: onTheVehicle('VEHICLE_COMMAND'),
  responses: { 200: { description: 'The cancelled command', schema: CommandRecord } },
  errors: ['V404', 'V101'],
  async handler(ctx) {
    const vehicle = await vehicleById(ctx);
    const where = { commandId: ctx.params.commandId, vehicleId: vehicle.id };
    // One conditional update: a command the ingestor claims for delivery at the same moment stays SENT.
    const cancelled = await ctx.em.nativeUpdate(
      VehicleCommand,
      { ...where, status: 'QUEUED' },
      { status: 'CANCELLED' },
    );
    const command = await ctx.em.findOne(VehicleCommand, where);
    if (!command) throw new DomainError('V404', `command ${ctx.params.commandId} not found on this vehicle`);
    if (!cancelled)
      throw new DomainError('V101', `only a queued command can be cancelled; it is ${command.status}`);
    ctx.recordEvent({
      type: `VEHICLE_COMMAND_${command.command}`,
      branchId: vehicle.branch.id,
      vehicleId: vehicle.id,
      description: 'CANCELLED before delivery',
      payload: { commandId: command.commandId, status: 'CANCELLED' },
    });
    return ok(toCommandRecord(command));
  },
});

const LogEntry = component(
  'VehicleLogEntry',
  Type.Object(
    {
      id: Type.String(),
      type: Type.String(),
      createdAt: DateTime(),
      adminSubject: Nullable(Type.String()),
      rentalId: Nullable(Type.Integer()),
      description: Nullable(Type.String()),
      payload: Nullable(Type.Record(Type.String(), Type.Unknown())),
    },
    { additionalProperties: false },
  ),
);

export const vehicleLogEntries = defineRoute({
  operationId: 'vehicleLogEntries',
  method: 'get',
  path: '/vehicles/{id}/log-entries',
  interface: 'back',
  summary: 'What happened to a vehicle (its events), newest first',
  tags,
  params: IdParams,
  query: Type.Object({ typePrefix: Type.Optional(Str(60, { pattern: '^[A-Z0-9_]+$' })) }),
  paged: { defaultSize: 50 },
  access: onTheVehicle('VEHICLE_READ'),
  responses: { 200: { description: 'One page of log entries', schema: Type.Array(LogEntry) } },
  errors: ['V404'],
  async handler(ctx) {
    const vehicle = await vehicleById(ctx);
    const where: Record<string, unknown> = { vehicleId: vehicle.id };
    if (ctx.query.typePrefix) where.type = { $like: `${ctx.query.typePrefix}%` };
    const [rows, total] = await ctx.em.findAndCount(Event, where, {
      orderBy: { createdAt: 'desc', id: 'desc' },
      limit: ctx.page.size,
      offset: ctx.page.offset,
    });
    return ok(
      rows.map((row) => ({
        id: String(row.id),
        type: row.type,
        createdAt: row.createdAt.toISOString(),
        adminSubject: row.adminSubject ?? null,
        rentalId: row.rentalId ?? null,
        description: row.description ?? null,
        payload: row.payload ?? null,
      })),
      { total },
    );
  },
});

export const vehicleHistoryRoutes = [
  vehicleTelemetry,
  vehicleActivity,
  cancelQueuedCommand,
  vehicleLogEntries,
];
