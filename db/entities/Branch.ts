import type { Opt } from '@mikro-orm/core';
import { Entity, Enum, ManyToOne, PrimaryKey, Property, Unique } from '@mikro-orm/decorators/es';
import { TenantScoped } from './TenantScoped.js';
import { BusinessUnit } from './BusinessUnit.js';

export const branchStates = [
  'IN_PREPARATION',
  'OPERATIONAL',
  'MAINTENANCE',
  'HIBERNATION',
  'OUT_OF_BUSINESS',
] as const;
export type BranchState = (typeof branchStates)[number];

export const branchOperationModes = ['ON_DEMAND', 'BOOKING'] as const;
export type BranchOperationMode = (typeof branchOperationModes)[number];

export const branchVisibilities = ['public', 'private'] as const;
export type BranchVisibility = (typeof branchVisibilities)[number];

/** An operational location; branches form a tree and operational permissions are granted on them. */
@Entity({ tableName: 'branch' })
@Unique({ properties: ['tenant', 'code'] })
export class Branch extends TenantScoped {
  @PrimaryKey({ type: 'integer' })
  id!: number;

  @Property({ type: 'string', length: 200 })
  name!: string;

  @Property({ type: 'string', length: 64 })
  code!: string;

  @Enum({ items: () => branchStates, type: 'string' })
  state: Opt<BranchState> = 'OPERATIONAL';

  @ManyToOne({ entity: () => Branch, nullable: true, ref: false })
  parent?: Branch | null;

  /** The billable branch behind this one: the scope of finance permissions. */
  @ManyToOne({ entity: () => BusinessUnit, ref: false })
  businessUnit!: BusinessUnit;

  @Property({ type: 'string', length: 32 })
  operationMode: Opt<BranchOperationMode> = 'ON_DEMAND';

  @Property({ type: 'string', length: 16 })
  visibility: Opt<BranchVisibility> = 'public';

  @Property({ type: 'string', length: 64 })
  timeZoneId!: string;

  /** Location or category scope of the branch (e.g. CITY, DISTRICT, CAMPUS); free text. */
  @Property({ type: 'string', length: 64, nullable: true })
  type?: string | null;

  /** Whether this branch is itself billed (it is the operational face of its business unit). */
  @Property({ type: 'boolean' })
  isBillable: Opt<boolean> = false;

  @Property({ type: 'integer', nullable: true })
  termsAndConditionsId?: number | null;

  /** Overrides of the business unit's currency and tax; null: the unit's values apply. */
  @Property({ type: 'string', length: 3, nullable: true })
  currency?: string | null;

  @Property({ type: 'decimal', precision: 5, scale: 2, nullable: true })
  taxPercentage?: string | null;

  /** Contact details shown to apps (`/front/branches/{id}/intersectable`). */
  @Property({ type: 'json', nullable: true })
  contactInfo?: Record<string, unknown> | null;

  /** Legacy display geometries (GeoJSON); read-only for new tools, areas are the write model. */
  @Property({ type: 'json', nullable: true })
  businessArea?: Record<string, unknown> | null;

  @Property({ type: 'json', nullable: true })
  mapOverlayProhibited?: Record<string, unknown> | null;

  @Property({ type: 'json', nullable: true })
  mapOverlayWarning?: Record<string, unknown> | null;
}
