import type { Opt } from '@mikro-orm/core';
import { Entity, Enum, Index, PrimaryKey, Property, Unique } from '@mikro-orm/decorators/es';
import { TenantScoped } from './TenantScoped.js';
import {
  exportRunStates,
  exportRunTriggers,
  type ExportRunState,
  type ExportRunTrigger,
} from '../../domain/exports.js';

/**
 * One run of an export: its workflow `export:{tenant}:{id}` writes the CSV to `objectKey` (fixed by the
 * id), records the result once, and notifies when it SUCCEEDED. The file lapses at `expiresAt` and is
 * deleted by the retention schedule (`fileDeletedAt`). `downloadKey` makes the download address (the
 * e-mail's link, the webhook's exportUrl) a capability: the address works without a token.
 */
@Entity({ tableName: 'export_run' })
@Index({ properties: ['tenant', 'exportId'] })
@Index({
  name: 'export_run_lapsing',
  properties: ['expiresAt'],
  where: `"file_deleted_at" is null and "expires_at" is not null`,
})
@Unique({ properties: ['tenant', 'scheduleKey'] })
export class ExportRun extends TenantScoped {
  @PrimaryKey({ type: 'integer' })
  id!: number;

  @Property({ type: 'integer' })
  exportId!: number;

  @Property({ type: 'integer' })
  queryId!: number;

  @Enum({ items: () => exportRunTriggers, type: 'string' })
  trigger!: ExportRunTrigger;

  @Enum({ items: () => exportRunStates, type: 'string' })
  state: Opt<ExportRunState> = 'RUNNING';

  /** The schedule firing that created it (its workflow id), so a repeated firing creates no second run. */
  @Property({ type: 'string', length: 300, nullable: true })
  scheduleKey?: string | null;

  @Property({ type: 'integer', nullable: true })
  replayOfRunId?: number | null;

  @Property({ type: 'Date', nullable: true })
  periodFrom?: Date | null;

  @Property({ type: 'Date', nullable: true })
  periodTo?: Date | null;

  @Property({ type: 'string', length: 200 })
  workflowId!: string;

  @Property({ type: 'string', length: 200 })
  createdBy!: string;

  @Property({ type: 'Date', defaultRaw: 'current_timestamp' })
  createdAt: Opt<Date> = new Date();

  @Property({ type: 'Date', nullable: true })
  completedAt?: Date | null;

  @Property({ type: 'integer', nullable: true })
  rowCount?: number | null;

  @Property({ type: 'double', nullable: true })
  byteSize?: number | null;

  @Property({ type: 'string', length: 300, nullable: true })
  objectKey?: string | null;

  /** expirationDate: the file is available until then. */
  @Property({ type: 'Date', nullable: true })
  expiresAt?: Date | null;

  @Property({ type: 'Date', nullable: true })
  fileDeletedAt?: Date | null;

  @Property({ type: 'string', length: 16, nullable: true })
  errorCode?: string | null;

  @Property({ type: 'string', length: 1000, nullable: true })
  errorMessage?: string | null;

  /** base64url of 32 random bytes: the download address's key. */
  @Property({ type: 'string', length: 64, hidden: true })
  downloadKey!: string;
}
