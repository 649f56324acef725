import type { Opt } from '@mikro-orm/core';
import { Entity, Enum, Index, ManyToOne, PrimaryKey, Property, Unique } from '@mikro-orm/decorators/es';
import { balanceUpdateKinds, type BalanceUpdateKind } from '../../domain/finance.js';
import { TenantScoped } from './TenantScoped.js';
import { Balance } from './Balance.js';
import { Invoice } from './Invoice.js';
import { Payment } from './Payment.js';

/**
 * One row of a balance's ledger: append-only (never updated or deleted). The balance's value is the sum
 * of its rows' amounts; `idempotencyKey` makes each cause write its row once.
 */
@Entity({
  tableName: 'balance_update',
  // Append-only: a correction is a new row, never an edit (the balance is the sum of the rows).
  triggers: [
    {
      name: 'append_only',
      timing: 'before',
      events: ['update', 'delete'],
      forEach: 'statement',
      body: `raise exception 'balance_update is append-only: write a correcting row instead';`,
    },
  ],
})
@Unique({ properties: ['tenant', 'idempotencyKey'] })
@Index({ properties: ['balance', 'createdAt'] })
export class BalanceUpdate extends TenantScoped {
  @PrimaryKey({ type: 'integer' })
  id!: number;

  @ManyToOne({ entity: () => Balance, ref: false })
  balance!: Balance;

  @Enum({ items: () => balanceUpdateKinds, type: 'string' })
  kind!: BalanceUpdateKind;

  /** Signed, in the balance's currency: negative is owed, positive is credit. */
  @Property({ type: 'decimal', columnType: 'numeric' })
  amount!: string;

  @ManyToOne({ entity: () => Invoice, ref: false, nullable: true })
  invoice?: Invoice | null;

  @ManyToOne({ entity: () => Payment, ref: false, nullable: true })
  payment?: Payment | null;

  /** The voucher behind a VOUCHER row (the benefits domain's id). */
  @Property({ type: 'integer', nullable: true })
  voucherId?: number | null;

  @Property({ type: 'string', length: 500 })
  description!: string;

  /** The operator, customer or `system` that caused it. */
  @Property({ type: 'string', length: 200 })
  createdBy!: string;

  @Property({ type: 'string', length: 300 })
  idempotencyKey!: string;

  @Property({ type: 'Date', onCreate: () => new Date() })
  createdAt: Opt<Date> = new Date();
}
