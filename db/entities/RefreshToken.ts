import type { Opt } from '@mikro-orm/core';
import { Entity, Index, ManyToOne, PrimaryKey, Property, Unique } from '@mikro-orm/decorators/es';
import { TenantScoped } from './TenantScoped.js';
import { Customer } from './Customer.js';

/**
 * A customer's refresh token, stored as a keyed digest only. Refreshing rotates it (the old row is
 * revoked, `family` carries over); presenting a revoked token revokes the whole family (theft signal).
 */
@Entity({ tableName: 'refresh_token' })
@Unique({ properties: ['tokenDigest'] })
@Index({ properties: ['tenant', 'customer'] })
export class RefreshToken extends TenantScoped {
  @PrimaryKey({ type: 'integer' })
  id!: number;

  @ManyToOne({ entity: () => Customer, ref: false, deleteRule: 'cascade' })
  customer!: Customer;

  @Property({ type: 'string', length: 64 })
  tokenDigest!: string;

  /** The sign-in this token descends from; all tokens of a family are revoked together. */
  @Property({ type: 'uuid' })
  family!: string;

  @Property({ type: 'Date' })
  expiresAt!: Date;

  @Property({ type: 'Date', nullable: true })
  revokedAt?: Date | null;

  @Property({ type: 'Date', onCreate: () => new Date() })
  createdAt: Opt<Date> = new Date();
}
