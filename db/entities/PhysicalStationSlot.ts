import type { Opt } from '@mikro-orm/core';
import { Entity, Enum, ManyToOne, OneToOne, PrimaryKey, Property, Unique } from '@mikro-orm/decorators/es';
import { TenantScoped } from './TenantScoped.js';
import { PhysicalStation } from './PhysicalStation.js';
import { Vehicle } from './Vehicle.js';

export const slotStates = ['OCCUPIED', 'VACANT', 'OUT_OF_ORDER'] as const;
export type SlotState = (typeof slotStates)[number];

/** One docking slot of a physical station; holds at most one vehicle, a vehicle is in at most one slot. */
@Entity({ tableName: 'physical_station_slot' })
@Unique({ properties: ['physicalStation', 'number'] })
export class PhysicalStationSlot extends TenantScoped {
  @PrimaryKey({ type: 'integer' })
  id!: number;

  @ManyToOne({ entity: () => PhysicalStation, ref: false, deleteRule: 'cascade' })
  physicalStation!: PhysicalStation;

  /** The slot's number as painted on the station (what devices report). */
  @Property({ type: 'integer' })
  number!: number;

  @Enum({ items: () => slotStates, type: 'string' })
  state: Opt<SlotState> = 'VACANT';

  @OneToOne({
    entity: () => Vehicle,
    nullable: true,
    ref: false,
    owner: true,
    unique: true,
    deleteRule: 'set null',
  })
  vehicle?: Vehicle | null;

  @Property({ type: 'datetime', nullable: true })
  connectedAt?: Date | null;
}
