import type { Opt } from '@mikro-orm/core';
import { Entity, ManyToOne, PrimaryKey, Property, Unique } from '@mikro-orm/decorators/es';
import { TenantScoped } from './TenantScoped.js';
import { Branch } from './Branch.js';

/**
 * One version of the terms and conditions of a branch (null: tenant-wide). The terms that apply to a
 * branch are the newest version of the branch, else of its nearest ancestor, else the tenant-wide ones.
 */
@Entity({ tableName: 'terms_and_conditions' })
@Unique({ properties: ['tenant', 'branch', 'version'] })
export class TermsAndConditions extends TenantScoped {
  @PrimaryKey({ type: 'integer' })
  id!: number;

  @ManyToOne({ entity: () => Branch, nullable: true, ref: false })
  branch?: Branch | null;

  @Property({ type: 'integer' })
  version!: number;

  @Property({ type: 'string', length: 200 })
  name!: string;

  @Property({ type: 'string', length: 2000 })
  url!: string;

  @Property({ type: 'text', nullable: true })
  content?: string | null;

  @Property({ type: 'Date', onCreate: () => new Date() })
  createdAt: Opt<Date> = new Date();
}
