import type { Opt } from '@mikro-orm/core';
import { Entity, Index, ManyToOne, PrimaryKey, Property } from '@mikro-orm/decorators/es';
import { TenantScoped } from './TenantScoped.js';
import { Voucherable } from './Voucherable.js';

/**
 * A redeemable code of a template: each customer may redeem it once (W105), all customers together at
 * most `maxRedeems` times (W124), within its window (W133). Redeeming grants the template's vouchers
 * (source CODE, reference `code:{id}:{customerId}`). Unique in the tenant regardless of case.
 */
@Entity({ tableName: 'voucher_code' })
@Index({ properties: ['tenant', 'voucherable'] })
@Index({
  name: 'voucher_code_tenant_code_unique',
  expression:
    'create unique index "voucher_code_tenant_code_unique" on "voucher_code" ("tenant_id", lower("code"))',
})
export class VoucherCode extends TenantScoped {
  @PrimaryKey({ type: 'integer' })
  id!: number;

  @ManyToOne({ entity: () => Voucherable, ref: false })
  voucherable!: Voucherable;

  @Property({ type: 'integer' })
  businessUnitId!: number;

  @Property({ type: 'string', length: 64 })
  code!: string;

  @Property({ type: 'integer', nullable: true })
  maxRedeems?: number | null;

  @Property({ type: 'integer' })
  redeemCount: Opt<number> = 0;

  @Property({ type: 'Date', nullable: true })
  validFrom?: Date | null;

  @Property({ type: 'Date', nullable: true })
  validUntil?: Date | null;

  @Property({ type: 'string', length: 200 })
  createdBy!: string;

  @Property({ type: 'Date', onCreate: () => new Date() })
  createdAt: Opt<Date> = new Date();
}
