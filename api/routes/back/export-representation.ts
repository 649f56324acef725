// What the export route files share: the Export, ExportRun and ExportDelivery representations, the
// loaders of the path's export and run (EXPORT_READ / EXPORT_MANAGE on every branch of the export), and
// the start of a run's workflow.
import { Type, type Static } from '@sinclair/typebox';
import { DataExport } from '../../../db/entities/DataExport.js';
import { ExportDelivery } from '../../../db/entities/ExportDelivery.js';
import { ExportRun } from '../../../db/entities/ExportRun.js';
import { DomainError } from '../../../domain/errors.js';
import {
  deliveryChannels,
  deliveryOutcomes,
  exportRunStates,
  exportRunTriggers,
  exportStates,
  reportQueryById,
  retentionDayOptions,
  runPeriod,
  type ExportRunTrigger,
} from '../../../domain/exports.js';
import { exportDownloadUrl, newDownloadKey } from '../../../activities/exports.js';
import { loadConfig } from '../../../platform/config.js';
import {
  EXPORT_RUN_WORKFLOW_TYPE,
  exportRunStartOptions,
  exportRunWorkflowId,
  exportScheduleId,
} from '../../../workflows/export.messages.js';
import type { RouteContext } from '../../kernel/route.js';
import { component, DateTime, Id, Nullable, StringEnum } from '../../kernel/schemas.js';

export const tags = ['Exports'];
export const EXPORT_READ = 'EXPORT_READ';
export const EXPORT_MANAGE = 'EXPORT_MANAGE';

export const RetentionDays = Type.Unsafe<(typeof retentionDayOptions)[number]>({
  type: 'integer',
  enum: [...retentionDayOptions],
  minimum: 1,
  maximum: 31,
  description: 'Days the file is kept: 1, 7, 14, 30 or 31 (the default).',
});

export const ExportSchema = component(
  'Export',
  Type.Object(
    {
      id: Id(),
      name: Type.String(),
      queryId: Type.Integer({ description: 'The report query (GET /report-queries).' }),
      queryName: Type.String(),
      branchIds: Type.Array(Id(), { description: 'Exported branches, each with its descendants.' }),
      period: Type.Object(
        {
          from: Nullable(DateTime()),
          to: Nullable(DateTime()),
          lastDays: Nullable(Type.Integer({ description: 'Each run covers the days before it.' })),
        },
        { additionalProperties: false },
      ),
      format: Type.Literal('CSV'),
      retentionDays: RetentionDays,
      state: StringEnum(exportStates),
      schedule: Nullable(
        Type.Object(
          {
            cron: Type.String({ description: 'Five cron fields, in timezone.' }),
            timezone: Type.String(),
            scheduleId: Type.String({
              description: 'The Temporal Schedule (pausable in the Temporal UI too).',
            }),
          },
          { additionalProperties: false },
        ),
      ),
      notifications: Type.Object(
        { emails: Type.Array(Type.String()), webhookUrl: Nullable(Type.String()) },
        { additionalProperties: false },
      ),
      owner: Type.Object(
        { subjectType: Type.String(), subjectId: Type.String() },
        {
          additionalProperties: false,
          description: 'Whose EXPORT_READ each run re-checks on every branch (the creator).',
        },
      ),
      lastRunId: Nullable(Id()),
      createdBy: Type.String(),
      createdAt: DateTime(),
      updatedAt: DateTime(),
    },
    { additionalProperties: false },
  ),
);

export const ExportRunSchema = component(
  'ExportRun',
  Type.Object(
    {
      id: Id(),
      exportId: Id(),
      queryId: Type.Integer(),
      queryName: Type.String(),
      trigger: StringEnum(exportRunTriggers),
      state: StringEnum(exportRunStates),
      periodFrom: Nullable(DateTime()),
      periodTo: Nullable(DateTime()),
      createdAt: DateTime(),
      completedAt: Nullable(DateTime()),
      rowCount: Nullable(Type.Integer()),
      byteSize: Nullable(Type.Integer()),
      expirationDate: Nullable(DateTime({ description: 'The file is available until then.' })),
      fileDeleted: Type.Boolean({ description: 'The retention schedule deleted the file.' }),
      exportUrl: Nullable(
        Type.String({
          description:
            'The download address (the webhook payload’s exportUrl): GET answers 303 to a pre-signed link valid 7 days; null until SUCCEEDED and after expirationDate.',
        }),
      ),
      errorCode: Nullable(Type.String({ description: 'Why it FAILED (EX403, EX500 …).' })),
      errorMessage: Nullable(
        Type.String({
          description:
            'Why it FAILED; while RUNNING, why the last attempt to write the file failed (`attempt N failed, retrying: …`: the write is retried, then the run FAILS with EX500).',
        }),
      ),
      replayOfRunId: Nullable(Id()),
      workflowId: Type.String(),
    },
    { additionalProperties: false },
  ),
);

export const ExportDeliverySchema = component(
  'ExportDelivery',
  Type.Object(
    {
      id: Id(),
      runId: Id(),
      channel: StringEnum(deliveryChannels),
      target: Type.String({ description: 'The e-mail address or webhook URL.' }),
      attempt: Type.Integer({ description: 'x-webhook-dispatch-attempt-count (e-mail: the SMTP try).' }),
      manual: Type.Boolean({ description: 'Part of a dispatch replayed by hand.' }),
      webhookId: Nullable(Type.String({ description: 'webhook-id: the same for every attempt of the run.' })),
      outcome: StringEnum(deliveryOutcomes),
      httpStatus: Nullable(Type.Integer()),
      error: Nullable(Type.String()),
      startedAt: DateTime(),
      finishedAt: Nullable(DateTime()),
    },
    { additionalProperties: false },
  ),
);

const iso = (date: Date | null | undefined) => (date ? date.toISOString() : null);

/** An export as the API shows it. */
export async function toExportDto(ctx: RouteContext, row: DataExport): Promise<Static<typeof ExportSchema>> {
  const last = await ctx.em.findOne(
    ExportRun,
    { exportId: row.id },
    { orderBy: { id: 'desc' }, fields: ['id'] },
  );
  return {
    id: row.id,
    name: row.name,
    queryId: row.queryId,
    queryName: reportQueryById(row.queryId)?.name ?? 'unknown',
    branchIds: row.branchIds,
    period: { from: iso(row.periodFrom), to: iso(row.periodTo), lastDays: row.periodLastDays ?? null },
    format: 'CSV',
    retentionDays: row.retentionDays,
    state: row.state,
    schedule: row.cron
      ? { cron: row.cron, timezone: row.timezone ?? 'UTC', scheduleId: exportScheduleId(ctx.tenant, row.id) }
      : null,
    notifications: { emails: row.emails, webhookUrl: row.webhookUrl ?? null },
    owner: { subjectType: row.ownerSubjectType, subjectId: row.ownerSubjectId },
    lastRunId: last?.id ?? null,
    createdBy: row.createdBy,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

/** Whether a run's file can be downloaded now. */
export const downloadable = (run: ExportRun, now = new Date()) =>
  run.state === 'SUCCEEDED' && !run.fileDeletedAt && !!run.expiresAt && run.expiresAt > now;

/** A run as the API shows it. */
export function toRunDto(ctx: RouteContext, run: ExportRun): Static<typeof ExportRunSchema> {
  return {
    id: run.id,
    exportId: run.exportId,
    queryId: run.queryId,
    queryName: reportQueryById(run.queryId)?.name ?? 'unknown',
    trigger: run.trigger,
    state: run.state,
    periodFrom: iso(run.periodFrom),
    periodTo: iso(run.periodTo),
    createdAt: run.createdAt.toISOString(),
    completedAt: iso(run.completedAt),
    rowCount: run.rowCount ?? null,
    byteSize: run.byteSize ?? null,
    expirationDate: iso(run.expiresAt),
    fileDeleted: Boolean(run.fileDeletedAt),
    exportUrl: downloadable(run)
      ? exportDownloadUrl(loadConfig().publicBaseUrl, ctx.tenant, run.id, run.downloadKey)
      : null,
    errorCode: run.errorCode ?? null,
    errorMessage: run.errorMessage ?? null,
    replayOfRunId: run.replayOfRunId ?? null,
    workflowId: run.workflowId,
  };
}

/** A delivery attempt as the API shows it. */
export function toDeliveryDto(row: ExportDelivery): Static<typeof ExportDeliverySchema> {
  return {
    id: row.id,
    runId: row.runId,
    channel: row.channel,
    target: row.target,
    attempt: row.attempt,
    manual: row.manual,
    webhookId: row.webhookId ?? null,
    outcome: row.outcome,
    httpStatus: row.httpStatus ?? null,
    error: row.error ?? null,
    startedAt: row.startedAt.toISOString(),
    finishedAt: iso(row.finishedAt),
  };
}

/** Requires the permission on every branch of the list (AUTH002 / B404 otherwise); answers the first. */
export async function authorizeBranches(
  ctx: RouteContext,
  permissions: readonly string[],
  branchIds: readonly number[],
): Promise<number> {
  for (const branchId of branchIds)
    for (const permission of permissions) await ctx.authorize(permission, { branchId });
  return branchIds[0]!;
}

/** The path's export (not deleted), loaded once per request; EX404 otherwise. */
export const exportOfPath = (ctx: RouteContext<{ exportId: number }>) =>
  ctx.once('export', async () => {
    const row = await ctx.em.findOne(DataExport, { id: ctx.params.exportId, deletedAt: null });
    if (!row) throw new DomainError('EX404', `export ${ctx.params.exportId} not found`);
    return row;
  });

/** The path's run and its export, loaded once per request; EX405 otherwise. */
export const runOfPath = (ctx: RouteContext<{ runId: number }>) =>
  ctx.once('run', async () => {
    const run = await ctx.em.findOne(ExportRun, ctx.params.runId);
    if (!run) throw new DomainError('EX405', `export run ${ctx.params.runId} not found`);
    const definition = await ctx.em.findOneOrFail(DataExport, run.exportId);
    return { run, definition };
  });

/** Access: the permission on every branch of the path's export. */
export const onTheExport = (permission: string) => ({
  permission,
  branchOf: 'every branch of the export',
  branch: async (ctx: RouteContext<{ exportId: number }>) =>
    authorizeBranches(ctx, [permission], (await exportOfPath(ctx)).branchIds),
});

/** Access: the permission on every branch of the export of the path's run. */
export const onTheRun = (permission: string) => ({
  permission,
  branchOf: 'every branch of the run’s export',
  branch: async (ctx: RouteContext<{ runId: number }>) =>
    authorizeBranches(ctx, [permission], (await runOfPath(ctx)).definition.branchIds),
});

/**
 * Creates a run of the export (its period: the fixed one, or lastDays before now) and starts its
 * workflow `export:{tenant}:{runId}`; the row and the workflow id are written before the start, so a
 * start that fails leaves a RUNNING row the operator sees and can replay.
 */
export async function startRun(
  ctx: RouteContext,
  definition: DataExport,
  trigger: ExportRunTrigger,
  replayOf?: ExportRun,
): Promise<ExportRun> {
  const period = replayOf
    ? { from: replayOf.periodFrom ?? null, to: replayOf.periodTo ?? null }
    : runPeriod(
        {
          from: definition.periodFrom?.toISOString(),
          to: definition.periodTo?.toISOString(),
          lastDays: definition.periodLastDays,
        },
        new Date(),
      );
  const [{ id }] = await ctx.em.execute<{ id: number }[]>(`select nextval('export_run_id_seq') as id`);
  const runId = Number(id);
  const run = ctx.em.create(ExportRun, {
    id: runId,
    exportId: definition.id,
    queryId: definition.queryId,
    trigger,
    periodFrom: period.from,
    periodTo: period.to,
    replayOfRunId: replayOf?.id ?? null,
    workflowId: exportRunWorkflowId(ctx.tenant, runId),
    createdBy: ctx.actor,
    downloadKey: newDownloadKey(),
  });
  await ctx.em.flush();
  await ctx.services.temporal.workflow.start(
    EXPORT_RUN_WORKFLOW_TYPE,
    exportRunStartOptions({ tenant: ctx.tenant, runId }, ctx.services.taskQueue),
  );
  return run;
}
