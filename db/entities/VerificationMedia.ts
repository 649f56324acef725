import type { Opt } from '@mikro-orm/core';
import { Entity, ManyToOne, PrimaryKey, Property, Unique } from '@mikro-orm/decorators/es';
import { TenantScoped } from './TenantScoped.js';
import { Verification } from './Verification.js';

/** A picture sent with a verification attempt (document front/back, selfie), addressed by its file id. */
@Entity({ tableName: 'verification_media' })
@Unique({ properties: ['fileUuid'] })
export class VerificationMedia extends TenantScoped {
  @PrimaryKey({ type: 'integer' })
  id!: number;

  @Property({ type: 'uuid' })
  fileUuid!: string;

  @ManyToOne({ entity: () => Verification, ref: false, deleteRule: 'cascade' })
  verification!: Verification;

  @Property({ type: 'string', length: 32 })
  label!: string;

  @Property({ type: 'string', length: 64 })
  contentType!: string;

  @Property({ type: 'blob', lazy: true })
  data!: Buffer;

  @Property({ type: 'integer' })
  sizeBytes!: number;

  @Property({ type: 'Date', onCreate: () => new Date() })
  createdAt: Opt<Date> = new Date();
}
