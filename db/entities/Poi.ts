import type { Opt } from '@mikro-orm/core';
import { Entity, Index, ManyToOne, PrimaryKey, Property } from '@mikro-orm/decorators/es';
import { TenantScoped } from './TenantScoped.js';
import { Branch } from './Branch.js';
import { PoiCategory } from './PoiCategory.js';

/** A point of interest shown on the app's map (parking, charging, sights, partners). */
@Entity({ tableName: 'poi' })
@Index({ properties: ['tenant', 'branch'] })
export class Poi extends TenantScoped {
  @PrimaryKey({ type: 'integer' })
  id!: number;

  @ManyToOne({ entity: () => PoiCategory, ref: false })
  category!: PoiCategory;

  @ManyToOne({ entity: () => Branch, ref: false })
  branch!: Branch;

  @Property({ type: 'string', length: 200 })
  name!: string;

  @Property({ type: 'string', length: 2000, nullable: true })
  description?: string | null;

  @Property({ type: 'double' })
  latitude!: number;

  @Property({ type: 'double' })
  longitude!: number;

  @Property({ type: 'string', length: 300 })
  address!: string;

  @Property({ type: 'string', length: 100, nullable: true })
  city?: string | null;

  @Property({ type: 'string', length: 500, nullable: true })
  url?: string | null;

  @Property({ type: 'string', length: 32, nullable: true })
  phoneNumber?: string | null;

  @Property({ type: 'boolean' })
  displayOnRental: Opt<boolean> = false;

  @Property({ type: 'boolean' })
  enabled: Opt<boolean> = true;

  @Property({ type: 'integer', nullable: true })
  mapZoomLevel?: number | null;

  @Property({ type: 'double', nullable: true })
  sizeFactor?: number | null;

  @Property({ type: 'boolean' })
  useCustomIcon: Opt<boolean> = false;

  /** Free-form opening information (e.g. `Mo-Fr 08:00-20:00`). */
  @Property({ type: 'string', length: 1000, nullable: true })
  openingInformation?: string | null;

  /** Image role (icon, mainImage, detailsImage_*) → URL. */
  @Property({ type: 'json' })
  images: Opt<Record<string, string>> = {};

  /** Translation keys (name, description) the apps resolve. */
  @Property({ type: 'json' })
  translationKeys: Opt<Record<string, string>> = {};
}
