import type { Opt } from '@mikro-orm/core';
import { Entity, ManyToOne, PrimaryKey, Property, Unique } from '@mikro-orm/decorators/es';
import { TenantScoped } from './TenantScoped.js';
import { Voucher } from './Voucher.js';

/**
 * What one cause (a rental's pricing, keyed by it) took from a voucher: value, minutes, unlocks, rentals.
 * Unique per voucher and key, so a retried step takes once; the voucher's remaining figures are lowered
 * in the same transaction by a conditional update that never goes below zero.
 */
@Entity({ tableName: 'voucher_consumption' })
@Unique({ properties: ['tenant', 'voucher', 'idempotencyKey'] })
export class VoucherConsumption extends TenantScoped {
  @PrimaryKey({ type: 'integer' })
  id!: number;

  @ManyToOne({ entity: () => Voucher, ref: false, deleteRule: 'cascade' })
  voucher!: Voucher;

  @Property({ type: 'string', length: 300 })
  idempotencyKey!: string;

  @Property({ type: 'decimal', columnType: 'numeric' })
  value: Opt<string> = '0';

  @Property({ type: 'integer' })
  minutes: Opt<number> = 0;

  @Property({ type: 'integer' })
  unlocks: Opt<number> = 0;

  @Property({ type: 'integer' })
  rentals: Opt<number> = 0;

  @Property({ type: 'integer', nullable: true })
  rentalId?: number | null;

  @Property({ type: 'Date', onCreate: () => new Date() })
  createdAt: Opt<Date> = new Date();
}
