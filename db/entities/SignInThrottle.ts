import type { Opt } from '@mikro-orm/core';
import { Entity, PrimaryKey, Property, Unique } from '@mikro-orm/decorators/es';
import { TenantScoped } from './TenantScoped.js';

/** Failed sign-in attempts of one method and identifier (`password:anna@…`), and the block they caused. */
@Entity({ tableName: 'sign_in_throttle' })
@Unique({ properties: ['tenant', 'key'] })
export class SignInThrottle extends TenantScoped {
  @PrimaryKey({ type: 'integer' })
  id!: number;

  @Property({ type: 'string', length: 400 })
  key!: string;

  @Property({ type: 'integer' })
  failures: Opt<number> = 0;

  @Property({ type: 'Date', nullable: true })
  blockedUntil?: Date | null;
}
