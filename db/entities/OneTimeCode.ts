import type { Opt } from '@mikro-orm/core';
import { Entity, Index, PrimaryKey, Property } from '@mikro-orm/decorators/es';
import { TenantScoped } from './TenantScoped.js';
import type { CodePurpose } from '../../domain/identity.js';

/** A code sent by e-mail or SMS (sign-in, password reset, e-mail verification); stored as a keyed digest. */
@Entity({ tableName: 'one_time_code' })
@Index({ properties: ['tenant', 'purpose', 'target', 'createdAt'] })
export class OneTimeCode extends TenantScoped {
  @PrimaryKey({ type: 'integer' })
  id!: number;

  @Property({ type: 'string', length: 32 })
  purpose!: CodePurpose;

  /** Lower-case e-mail or E.164 phone number the code was sent to. */
  @Property({ type: 'string', length: 320 })
  target!: string;

  @Property({ type: 'string', length: 64 })
  codeDigest!: string;

  @Property({ type: 'Date' })
  expiresAt!: Date;

  @Property({ type: 'Date', nullable: true })
  consumedAt?: Date | null;

  @Property({ type: 'Date', onCreate: () => new Date() })
  createdAt: Opt<Date> = new Date();
}
