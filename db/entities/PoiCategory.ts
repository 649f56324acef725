import type { Opt } from '@mikro-orm/core';
import { Entity, Enum, PrimaryKey, Property } from '@mikro-orm/decorators/es';
import { TenantScoped } from './TenantScoped.js';

export const poiCategoryTypes = [
  'PARKING',
  'DOCKING_STATION',
  'CHARGING_STATION',
  'FUEL_STATION',
  'TOURISTIC_SPOT',
  'BUSINESS',
] as const;
export type PoiCategoryType = (typeof poiCategoryTypes)[number];

/** A kind of point of interest and the defaults its POIs show with. */
@Entity({ tableName: 'poi_category' })
export class PoiCategory extends TenantScoped {
  @PrimaryKey({ type: 'integer' })
  id!: number;

  @Enum({ items: () => poiCategoryTypes, type: 'string' })
  type!: PoiCategoryType;

  @Property({ type: 'string', length: 200 })
  name!: string;

  @Property({ type: 'string', length: 2000, nullable: true })
  description?: string | null;

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

  /** Image role (icon, mainImage, detailsImage_1, …) → URL. */
  @Property({ type: 'json' })
  images: Opt<Record<string, string>> = {};

  /** Translation keys (name, description) the apps resolve. */
  @Property({ type: 'json' })
  defaultTranslationKeys: Opt<Record<string, string>> = {};
}
