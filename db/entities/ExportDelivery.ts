import type { Opt } from '@mikro-orm/core';
import { Entity, Enum, Index, PrimaryKey, Property, Unique } from '@mikro-orm/decorators/es';
import { TenantScoped } from './TenantScoped.js';
import {
  deliveryChannels,
  deliveryOutcomes,
  type DeliveryChannel,
  type DeliveryOutcome,
} from '../../domain/exports.js';

/**
 * One notification attempt of an export run: an e-mail to one address or one POST to the webhook.
 * `dispatchKey` (workflow id, its first run id, target, attempt) is unique, so an activity retried or
 * replaced writes the same row.
 */
@Entity({ tableName: 'export_delivery' })
@Index({ properties: ['tenant', 'runId'] })
@Unique({ properties: ['tenant', 'dispatchKey'] })
export class ExportDelivery extends TenantScoped {
  @PrimaryKey({ type: 'integer' })
  id!: number;

  @Property({ type: 'integer' })
  runId!: number;

  @Enum({ items: () => deliveryChannels, type: 'string' })
  channel!: DeliveryChannel;

  /** The e-mail address or the webhook URL. */
  @Property({ type: 'string', length: 2000 })
  target!: string;

  @Property({ type: 'string', length: 400 })
  dispatchKey!: string;

  /** x-webhook-dispatch-attempt-count: 1 for the first attempt of a dispatch. */
  @Property({ type: 'integer' })
  attempt!: number;

  /** True for a dispatch an operator replayed. */
  @Property({ type: 'boolean' })
  manual: Opt<boolean> = false;

  @Property({ type: 'string', length: 200, nullable: true })
  webhookId?: string | null;

  @Enum({ items: () => deliveryOutcomes, type: 'string' })
  outcome: Opt<DeliveryOutcome> = 'SENDING';

  @Property({ type: 'integer', nullable: true })
  httpStatus?: number | null;

  @Property({ type: 'string', length: 1000, nullable: true })
  error?: string | null;

  @Property({ type: 'Date', defaultRaw: 'current_timestamp' })
  startedAt: Opt<Date> = new Date();

  @Property({ type: 'Date', nullable: true })
  finishedAt?: Date | null;
}
