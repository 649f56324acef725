import type { Opt } from '@mikro-orm/core';
import { Entity, Index, PrimaryKey, Property, Unique } from '@mikro-orm/decorators/es';
import { TenantScoped } from './TenantScoped.js';

/**
 * An uploaded file (the spec's File; named StoredFile so it never shadows the platform's `File`): its
 * bytes live in the object store under `objectKey`, this row keeps what it is and who uploaded it. An
 * operator's upload names the branch it was made for, a customer's its owner; either may download it
 * before it is linked, everybody else only through an entity it is linked to (FileLink).
 */
@Entity({ tableName: 'file' })
@Unique({ properties: ['uuid'] })
@Unique({ properties: ['objectKey'] })
@Index({ properties: ['tenant', 'customerId'] })
export class StoredFile extends TenantScoped {
  @PrimaryKey({ type: 'integer' })
  id!: number;

  /** The public id clients link and download the file by. */
  @Property({ type: 'uuid' })
  uuid!: string;

  /** The branch an operator uploaded the file for; null for a customer's upload. */
  @Property({ type: 'integer', nullable: true })
  branchId?: number | null;

  /** The customer who uploaded the file in the app; null for an operator's upload. */
  @Property({ type: 'integer', nullable: true })
  customerId?: number | null;

  /** The uploading subject: `operator:{userAuthId}`, `client:{clientId}` or `customer:{id}`. */
  @Property({ type: 'string', length: 200 })
  uploadedBy!: string;

  /** The name the file was uploaded under (last path segment, control characters refused). */
  @Property({ type: 'string', length: 200 })
  fileName!: string;

  /** The media type the upload declared (L406 without one). */
  @Property({ type: 'string', length: 200 })
  contentType!: string;

  /** Size in bytes, at most 2 MiB (L405). */
  @Property({ type: 'integer' })
  size!: number;

  /** SHA-256 of the bytes, hex. */
  @Property({ type: 'string', length: 64 })
  sha256!: string;

  /** The object's key in the bucket (`tenants/{tenant}/files/{uuid}`). */
  @Property({ type: 'string', length: 300 })
  objectKey!: string;

  @Property({ type: 'Date', onCreate: () => new Date() })
  createdAt: Opt<Date> = new Date();
}
