import type { Opt } from '@mikro-orm/core';
import { Entity, PrimaryKey, Property, Unique } from '@mikro-orm/decorators/es';
import { TenantScoped } from './TenantScoped.js';

/**
 * A regulator's credential for the MDS provider interface (docs/mds.md): OAuth2 client credentials whose
 * tokens (scope `mds`) read the tenant's published systems and nothing else. The secret is stored as a
 * scrypt hash only; a revoked credential gets no token, and tokens issued before are refused (MDS411).
 */
@Entity({ tableName: 'mds_agency' })
@Unique({ properties: ['tenant', 'clientId'] })
export class MdsAgency extends TenantScoped {
  @PrimaryKey({ type: 'integer' })
  id!: number;

  /** The client id the agency authenticates with (a random UUID, `mds-` prefixed). */
  @Property({ type: 'string', length: 100 })
  clientId!: string;

  /** Who the agency is (e.g. `City of Berlin, SenUMVK`). */
  @Property({ type: 'string', length: 200 })
  name!: string;

  /** `scrypt$<salt b64>$<hash b64>` */
  @Property({ type: 'string', length: 300, hidden: true })
  secretHash!: string;

  @Property({ type: 'boolean' })
  active: Opt<boolean> = true;

  /** The operator or API client that created it. */
  @Property({ type: 'string', length: 200 })
  createdBy!: string;

  @Property({ type: 'Date', onCreate: () => new Date() })
  createdAt: Opt<Date> = new Date();

  @Property({ type: 'Date', nullable: true })
  revokedAt?: Date | null;

  @Property({ type: 'string', length: 200, nullable: true })
  revokedBy?: string | null;

  /** When it last obtained a token. */
  @Property({ type: 'Date', nullable: true })
  lastTokenAt?: Date | null;
}
