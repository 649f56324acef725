import type { Opt } from '@mikro-orm/core';
import { Entity, Enum, Index, ManyToOne, PrimaryKey, Property, Unique } from '@mikro-orm/decorators/es';
import { fileEntityTypes, type FileEntityType } from '../../domain/files.js';
import { TenantScoped } from './TenantScoped.js';
import { StoredFile } from './StoredFile.js';

/**
 * A file linked to an entity (a task, damage, issue, comment, rental, vehicle or user), at most once (L407).
 * The link keeps who may see the entity when it was linked: the entity's branch (operators need the
 * entity's read permission there) and the customer it belongs to, so a download checks the link alone.
 */
@Entity({ tableName: 'file_link' })
@Unique({ properties: ['file', 'entityType', 'entityId'] })
@Index({ properties: ['tenant', 'entityType', 'entityId'] })
export class FileLink extends TenantScoped {
  @PrimaryKey({ type: 'integer' })
  id!: number;

  @ManyToOne({ entity: () => StoredFile, ref: false, deleteRule: 'cascade' })
  file!: StoredFile;

  @Enum({ items: () => fileEntityTypes, type: 'string' })
  entityType!: FileEntityType;

  /** The entity's id as text (integer ids and uuids alike). */
  @Property({ type: 'string', length: 64 })
  entityId!: string;

  /** The entity's branch when linked: operators need its read permission there to download. */
  @Property({ type: 'integer', nullable: true })
  branchId?: number | null;

  /** The customer the entity belongs to (a rental's customer, the user itself), who may download too. */
  @Property({ type: 'integer', nullable: true })
  customerId?: number | null;

  /** The subject that linked it. */
  @Property({ type: 'string', length: 200 })
  linkedBy!: string;

  @Property({ type: 'Date', onCreate: () => new Date() })
  linkedAt: Opt<Date> = new Date();
}
