import type { Opt } from '@mikro-orm/core';
import { Entity, Enum, Index, PrimaryKey, Property } from '@mikro-orm/decorators/es';
import { TenantScoped } from './TenantScoped.js';
import {
  damageLocations,
  damageSeverities,
  damageStates,
  type DamageLocation,
  type DamageSeverity,
  type DamageState,
} from '../../domain/damage.js';

/**
 * A damage found on a vehicle (the spec's Damage): which part, where, how severe, its state from NEW to
 * REPAIRED or IGNORED, where the vehicle (and the reporter) were, the rentals around it and who caused
 * it. Related ids are plain columns like the task's, so a damage survives the rows it mentions.
 */
@Entity({ tableName: 'damage' })
@Index({ properties: ['tenant', 'vehicleId', 'state'] })
@Index({ properties: ['tenant', 'branchId', 'state'] })
@Index({ properties: ['tenant', 'issueId'] })
export class Damage extends TenantScoped {
  @PrimaryKey({ type: 'integer' })
  id!: number;

  @Property({ type: 'integer' })
  vehicleId!: number;

  /** The vehicle's branch when the damage was reported. */
  @Property({ type: 'integer' })
  branchId!: number;

  /** The damaged part, in the operator's words (e.g. "front fender", "left mirror"). */
  @Property({ type: 'string', length: 100 })
  part!: string;

  @Enum({ items: () => damageLocations, type: 'string', nullable: true })
  location?: DamageLocation | null;

  /** Set before approval at the latest (the spec's rule). */
  @Enum({ items: () => damageSeverities, type: 'string', nullable: true })
  severity?: DamageSeverity | null;

  @Enum({ items: () => damageStates, type: 'string' })
  state: Opt<DamageState> = 'NEW';

  @Property({ type: 'string', length: 4000, nullable: true })
  description?: string | null;

  /** Where the vehicle was when the damage was reported (its stored position unless given). */
  @Property({ type: 'json', nullable: true })
  vehiclePosition?: { lat: number; lng: number } | null;

  /** Where the reporter stood, when the reporting app or operator sent it. */
  @Property({ type: 'json', nullable: true })
  userPosition?: { lat: number; lng: number } | null;

  /** The rental the reporter attributes the damage to (one of the vehicle's rentals). */
  @Property({ type: 'integer', nullable: true })
  rentalId?: number | null;

  /** The vehicle's open rental when the damage was reported. */
  @Property({ type: 'integer', nullable: true })
  currentRentalId?: number | null;

  /** The vehicle's last ended rental before the damage was reported (who had it last). */
  @Property({ type: 'integer', nullable: true })
  previousRentalId?: number | null;

  /** The customer who caused it, once known. */
  @Property({ type: 'integer', nullable: true })
  causedByCustomerId?: number | null;

  /** Operator or API client subject that reported it. */
  @Property({ type: 'string', length: 200 })
  reportedBy!: string;

  /** The issue the damage is linked to (POST /issues/{issueId}/damages), if any. */
  @Property({ type: 'integer', nullable: true })
  issueId?: number | null;

  /** The workshop's repair code. */
  @Property({ type: 'string', length: 64, nullable: true })
  repairCode?: string | null;

  @Property({ type: 'Date', onCreate: () => new Date() })
  createdAt: Opt<Date> = new Date();

  @Property({ type: 'Date', onUpdate: () => new Date() })
  updatedAt: Opt<Date> = new Date();

  /** When it became REPAIRED or IGNORED; cleared when an ignored damage is reopened. */
  @Property({ type: 'Date', nullable: true })
  resolvedAt?: Date | null;
}
