import type { Opt } from '@mikro-orm/core';
import { Entity, Enum, Index, PrimaryKey, Property } from '@mikro-orm/decorators/es';
import { TenantScoped } from './TenantScoped.js';
import { exportStates, type ExportState, type RetentionDays } from '../../domain/exports.js';

/**
 * An export definition (docs/exports.md): a report query over branches and a period, written as CSV by
 * each run; one-time (one run at creation) or recurring (its Temporal Schedule
 * `export-schedule:{tenant}:{id}` in `timezone`). Runs notify `emails` and `webhookUrl`. Deleting one keeps
 * its runs (their files lapse with their retention).
 */
@Entity({ tableName: 'data_export' })
@Index({ properties: ['tenant', 'deletedAt'] })
export class DataExport extends TenantScoped {
  @PrimaryKey({ type: 'integer' })
  id!: number;

  @Property({ type: 'string', length: 200 })
  name!: string;

  /** The report query (`reportQueries` in domain/exports.ts). */
  @Property({ type: 'integer' })
  queryId!: number;

  /** The branches exported, each with its descendants. */
  @Property({ type: 'json' })
  branchIds!: number[];

  /** Fixed period [from, to), or the `lastDays` days before each run. */
  @Property({ type: 'Date', nullable: true })
  periodFrom?: Date | null;

  @Property({ type: 'Date', nullable: true })
  periodTo?: Date | null;

  @Property({ type: 'integer', nullable: true })
  periodLastDays?: number | null;

  @Property({ type: 'string', length: 8 })
  format: Opt<'CSV'> = 'CSV';

  /** 1, 7, 14, 30 or 31 days. */
  @Property({ type: 'integer' })
  retentionDays!: RetentionDays;

  /** Five-field cron (normalised); null for a one-time export. */
  @Property({ type: 'string', length: 120, nullable: true })
  cron?: string | null;

  /** IANA time zone of the cron expression. */
  @Property({ type: 'string', length: 64, nullable: true })
  timezone?: string | null;

  @Enum({ items: () => exportStates, type: 'string' })
  state: Opt<ExportState> = 'ACTIVE';

  @Property({ type: 'json' })
  emails: Opt<string[]> = [];

  @Property({ type: 'string', length: 2000, nullable: true })
  webhookUrl?: string | null;

  /** Whose permissions each run re-checks (EXPORT_READ on every branch). */
  @Property({ type: 'string', length: 16 })
  ownerSubjectType!: string;

  @Property({ type: 'string', length: 200 })
  ownerSubjectId!: string;

  @Property({ type: 'string', length: 200 })
  createdBy!: string;

  @Property({ type: 'Date', defaultRaw: 'current_timestamp' })
  createdAt: Opt<Date> = new Date();

  @Property({ type: 'Date', defaultRaw: 'current_timestamp' })
  updatedAt: Opt<Date> = new Date();

  @Property({ type: 'Date', nullable: true })
  deletedAt?: Date | null;
}
