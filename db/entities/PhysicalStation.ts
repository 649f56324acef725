import type { Opt } from '@mikro-orm/core';
import { Entity, Enum, Index, ManyToOne, PrimaryKey, Property } from '@mikro-orm/decorators/es';
import { TenantScoped } from './TenantScoped.js';
import { Branch } from './Branch.js';

export const physicalStationStates = [
  'OPERATIONAL',
  'TEMPORARY_CLOSED',
  'PERMANENTLY_CLOSED',
  'IN_PREPARATION',
] as const;
export type PhysicalStationState = (typeof physicalStationStates)[number];

/** An image of a physical station: a role (icon, mainImage, detailsImage_1, …) and its URL. */
export interface StationImage {
  key: string;
  url: string;
}

/** A built docking station with slots (and optionally a parking area) where vehicles are connected. */
@Entity({ tableName: 'physical_station' })
@Index({ properties: ['tenant', 'branch'] })
export class PhysicalStation extends TenantScoped {
  @PrimaryKey({ type: 'integer' })
  id!: number;

  @ManyToOne({ entity: () => Branch, ref: false })
  branch!: Branch;

  @Property({ type: 'string', length: 200 })
  name!: string;

  @Enum({ items: () => physicalStationStates, type: 'string' })
  state: Opt<PhysicalStationState> = 'IN_PREPARATION';

  @Property({ type: 'double' })
  latitude!: number;

  @Property({ type: 'double' })
  longitude!: number;

  @Property({ type: 'string', length: 300, nullable: true })
  address?: string | null;

  /** Localized description: language tag → text. */
  @Property({ type: 'json' })
  description: Opt<Record<string, string>> = {};

  @Property({ type: 'json' })
  images: Opt<StationImage[]> = [];

  /** Optional per-station icon overrides for apps: role (vehicle, parking, …) → URL. */
  @Property({ type: 'json', nullable: true })
  appIcons?: Record<string, string> | null;
}
