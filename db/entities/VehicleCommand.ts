import type { Opt } from '@mikro-orm/core';
import { Entity, Index, PrimaryKey, Property, Unique } from '@mikro-orm/decorators/es';
import { TenantScoped } from './TenantScoped.js';

/** QUEUED: waiting for an offline vehicle; CANCELLED/EXPIRED: a queued command that was never delivered. */
export type VehicleCommandStatus =
  'QUEUED' | 'SENT' | 'OK' | 'REFUSED' | 'ERROR' | 'TIMEOUT' | 'CANCELLED' | 'EXPIRED';

/**
 * Every command sent to a vehicle, keyed by its command id (workflow id + activity id): a retried
 * activity finds its earlier command here and never unlocks a vehicle twice.
 */
@Entity({ tableName: 'vehicle_command' })
@Unique({ properties: ['tenant', 'commandId'] })
@Index({ properties: ['tenant', 'vehicleId'] })
@Index({
  name: 'vehicle_command_queued_index',
  properties: ['tenant', 'vehicleId'],
  where: `status = 'QUEUED'`,
})
export class VehicleCommand extends TenantScoped {
  @PrimaryKey({ type: 'bigint' })
  id!: string;

  @Property({ type: 'string', length: 300 })
  commandId!: string;

  @Property({ type: 'integer' })
  vehicleId!: number;

  @Property({ type: 'string', length: 64 })
  command!: string;

  @Property({ type: 'string', length: 16 })
  status: Opt<VehicleCommandStatus> = 'SENT';

  /** Custom command name and named parameters (CUSTOM_COMMAND), or the predefined command's parameters. */
  @Property({ type: 'json', nullable: true })
  params?: Record<string, unknown> | null;

  /** Until when a QUEUED command may still be delivered. */
  @Property({ type: 'Date', nullable: true })
  expiresAt?: Date | null;

  @Property({ type: 'integer', nullable: true })
  rentalId?: number | null;

  @Property({ type: 'string', length: 200, nullable: true })
  requestedBy?: string | null;

  @Property({ type: 'json', nullable: true })
  failureReason?: { code?: string; description?: string } | null;

  @Property({ type: 'json', nullable: true })
  data?: Record<string, unknown> | null;

  @Property({ type: 'Date' })
  sentAt: Opt<Date> = new Date();

  @Property({ type: 'Date', nullable: true })
  answeredAt?: Date | null;
}
