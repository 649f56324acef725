import type { Opt } from '@mikro-orm/core';
import { Entity, ManyToOne, PrimaryKey, Property, Unique } from '@mikro-orm/decorators/es';
import { Branch } from './Branch.js';
import { TenantScoped } from './TenantScoped.js';

/** The apps listed in GBFS system_information `rental_apps` (store and discovery URIs). */
export interface FeedRentalApps {
  android?: { storeUri: string; discoveryUri: string } | null;
  ios?: { storeUri: string; discoveryUri: string } | null;
}

/**
 * A published system of the open mobility feeds (docs/feeds.md): a branch subtree the operator exposes as
 * one GBFS system (and, for MDS, one provider scope). Its public feeds exist only while `published` is
 * true; `systemId` is the URL-safe slug in the feeds' paths, unique per tenant.
 */
@Entity({ tableName: 'feed_system' })
@Unique({ properties: ['tenant', 'systemId'] })
export class FeedSystem extends TenantScoped {
  @PrimaryKey({ type: 'integer' })
  id!: number;

  /** URL-safe slug (`^[a-z0-9][a-z0-9-]{0,62}$`), unique in the tenant; the public paths name it. */
  @Property({ type: 'string', length: 64 })
  systemId!: string;

  @Property({ type: 'string', length: 200 })
  name!: string;

  @Property({ type: 'string', length: 100, nullable: true })
  shortName?: string | null;

  /** The branch whose subtree (it and its descendants) the system covers. */
  @ManyToOne({ entity: () => Branch, ref: false })
  rootBranch!: Branch;

  /** Whether the public feeds answer; an unpublished system is not found there. */
  @Property({ type: 'boolean' })
  published: Opt<boolean> = false;

  /** When it was last published (null: never, or unpublished since). */
  @Property({ type: 'Date', nullable: true })
  publishedAt?: Date | null;

  /** The feeds' language (BCP-47 tag, e.g. `de`, `en`). */
  @Property({ type: 'string', length: 35 })
  language!: string;

  /** IANA time zone of the system. */
  @Property({ type: 'string', length: 64 })
  timezone!: string;

  /** OpenStreetMap opening_hours of the system (`24/7` by default). */
  @Property({ type: 'string', length: 500 })
  openingHours: Opt<string> = '24/7';

  /** Name of the operator, as shown to riders. */
  @Property({ type: 'string', length: 200, nullable: true })
  operatorName?: string | null;

  /** The system's public web site. */
  @Property({ type: 'string', length: 500, nullable: true })
  url?: string | null;

  @Property({ type: 'string', length: 500, nullable: true })
  purchaseUrl?: string | null;

  /** Rider support phone (E.164-like text) and e-mail. */
  @Property({ type: 'string', length: 40, nullable: true })
  phoneNumber?: string | null;

  @Property({ type: 'string', length: 254, nullable: true })
  email?: string | null;

  /** Whom consumers of the feeds contact about them (GBFS 3.0 requires it). */
  @Property({ type: 'string', length: 254 })
  feedContactEmail!: string;

  /** Date the system began operations (YYYY-MM-DD). */
  @Property({ type: 'string', length: 10, nullable: true })
  startDate?: string | null;

  @Property({ type: 'string', length: 500, nullable: true })
  licenseUrl?: string | null;

  @Property({ type: 'string', length: 200, nullable: true })
  attributionOrganizationName?: string | null;

  @Property({ type: 'string', length: 500, nullable: true })
  attributionUrl?: string | null;

  @Property({ type: 'string', length: 500, nullable: true })
  privacyUrl?: string | null;

  @Property({ type: 'string', length: 500, nullable: true })
  termsUrl?: string | null;

  @Property({ type: 'json', nullable: true })
  rentalApps?: FeedRentalApps | null;

  /** The operator or API client that created it. */
  @Property({ type: 'string', length: 200 })
  createdBy!: string;

  @Property({ type: 'Date', onCreate: () => new Date() })
  createdAt: Opt<Date> = new Date();

  @Property({ type: 'Date', onUpdate: () => new Date() })
  updatedAt: Opt<Date> = new Date();
}
