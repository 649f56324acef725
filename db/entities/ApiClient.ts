import type { Opt } from '@mikro-orm/core';
import { Entity, PrimaryKey, Property, Unique } from '@mikro-orm/decorators/es';
import { TenantScoped } from './TenantScoped.js';

export type InterfaceScope = 'back' | 'front';

/** An OAuth2 client-credentials client; its secret is stored as a scrypt hash only. */
@Entity({ tableName: 'api_client' })
@Unique({ properties: ['tenant', 'clientId'] })
export class ApiClient extends TenantScoped {
  @PrimaryKey({ type: 'integer' })
  id!: number;

  @Property({ type: 'string', length: 100 })
  clientId!: string;

  @Property({ type: 'string', length: 200 })
  name!: string;

  /** `scrypt$<salt b64>$<hash b64>` */
  @Property({ type: 'string', length: 300, hidden: true })
  secretHash!: string;

  /** Interfaces the client may obtain tokens for. */
  @Property({ type: 'json' })
  scopes: Opt<InterfaceScope[]> = ['back'];

  @Property({ type: 'boolean' })
  active: Opt<boolean> = true;

  @Property({ type: 'Date', onCreate: () => new Date() })
  createdAt: Opt<Date> = new Date();
}
