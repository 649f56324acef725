// Export definitions (docs/exports.md; the spec shows no configuration endpoints, these are the
// project's): a report query over branches and a period, CSV, a retention, notification targets, and
// either one run at creation (one-time) or a cron schedule in a time zone (recurring: the Temporal
// Schedule `export-schedule:{tenant}:{id}`, pausable here and in the Temporal UI). Defining or changing
// one needs EXPORT_MANAGE and EXPORT_READ on every branch; each run re-checks the owner's EXPORT_READ.
import { ScheduleAlreadyRunning, ScheduleNotFoundError } from '@temporalio/client';
import { Type } from '@sinclair/typebox';
import { DataExport } from '../../../db/entities/DataExport.js';
import { DomainError } from '../../../domain/errors.js';
import {
  assertPeriod,
  defaultRetentionDays,
  isKnownTimeZoneName,
  normaliseCron,
  reportQueryById,
} from '../../../domain/exports.js';
import { tenantTimeZone } from '../../../activities/exports.js';
import {
  exportRetentionScheduleOptions,
  exportScheduleId,
  exportScheduleOptions,
} from '../../../workflows/export.messages.js';
import { webhookTargetRefusal } from '../../../platform/webhook-http.js';
import { created, defineRoute, noContent, ok, type RouteContext } from '../../kernel/route.js';
import {
  component,
  DateTime,
  Id,
  Int,
  Nullable,
  Str,
  StringEnum,
  clampedInstant,
} from '../../kernel/schemas.js';
import {
  authorizeBranches,
  EXPORT_MANAGE,
  EXPORT_READ,
  exportOfPath,
  ExportSchema,
  onTheExport,
  RetentionDays,
  startRun,
  tags,
  toExportDto,
} from './export-representation.js';

const Name = Str(200, { minLength: 1, pattern: '^[^\\u0000]*[^\\s\\u0000][^\\u0000]*$' });
const Email = Type.String({
  maxLength: 320,
  pattern: '^[^\\s@\\u0000]+@[^\\s@\\u0000]+\\.[^\\s@\\u0000]+$',
});

const Period = component(
  'ExportPeriod',
  Type.Object(
    {
      from: Type.Optional(DateTime({ description: 'Fixed period start (inclusive).' })),
      to: Type.Optional(DateTime({ description: 'Fixed period end (exclusive).' })),
      lastDays: Type.Optional(Int(1, 366, { description: 'Each run covers the days before it.' })),
    },
    { additionalProperties: false },
  ),
);

const Schedule = component(
  'ExportScheduleInput',
  Type.Object(
    {
      cron: Str(120, {
        minLength: 1,
        description:
          'Five cron fields (minute hour day-of-month month day-of-week) or @hourly/@daily/@weekly/@monthly; at most one run an hour.',
      }),
      timezone: Type.Optional(
        Str(64, {
          minLength: 1,
          description: 'IANA time zone; default: the tenant’s (its first root branch’s).',
        }),
      ),
    },
    { additionalProperties: false },
  ),
);

const Notifications = component(
  'ExportNotificationsInput',
  Type.Object(
    {
      emails: Type.Optional(Type.Array(Email, { maxItems: 20 })),
      webhookUrl: Type.Optional(Nullable(Str(2000, { minLength: 1 }))),
    },
    { additionalProperties: false },
  ),
);

const BranchIds = Type.Array(Id(), { minItems: 1, maxItems: 50, uniqueItems: true });

/** Checks the notification targets (EX104): absolute http(s) URL without credentials; distinct addresses. */
function assertTargets(emails: readonly string[], webhookUrl: string | null | undefined): void {
  if (new Set(emails.map((email) => email.toLowerCase())).size !== emails.length)
    throw new DomainError('EX104', 'an e-mail address is listed twice');
  if (webhookUrl == null) return;
  let url: URL;
  try {
    url = new URL(webhookUrl);
  } catch {
    throw new DomainError('EX104', 'webhookUrl is not an absolute URL');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    throw new DomainError('EX104', 'webhookUrl must be http or https');
  if (url.username || url.password) throw new DomainError('EX104', 'webhookUrl must not carry credentials');
  const refusal = webhookTargetRefusal(webhookUrl);
  if (refusal) throw new DomainError('EX104', `webhookUrl refused: ${refusal.reason}`);
}

/** The schedule's normalised cron and time zone (EX102, EX103). */
async function scheduleOf(
  ctx: RouteContext,
  schedule: { cron: string; timezone?: string },
): Promise<{ cron: string; timezone: string }> {
  const cron = normaliseCron(schedule.cron);
  const timezone = schedule.timezone ?? (await tenantTimeZone(ctx.em));
  if (!isKnownTimeZoneName(timezone)) throw new DomainError('EX103', `unknown time zone ${timezone}`);
  return { cron, timezone };
}

/** Creates the tenant's hourly retention schedule when it is missing. */
async function ensureRetentionSchedule(ctx: RouteContext): Promise<void> {
  await ctx.services.temporal.schedule
    .create(exportRetentionScheduleOptions(ctx.tenant, ctx.services.taskQueue))
    .catch((error: unknown) => {
      if (!(error instanceof ScheduleAlreadyRunning)) throw error;
    });
}

/** Creates, updates or deletes the export's schedule to match the row. */
async function syncSchedule(ctx: RouteContext, row: DataExport, existed: boolean): Promise<void> {
  const handle = ctx.services.temporal.schedule.getHandle(exportScheduleId(ctx.tenant, row.id));
  if (!row.cron || row.deletedAt) {
    if (existed)
      await handle.delete().catch((error: unknown) => {
        if (!(error instanceof ScheduleNotFoundError)) throw error;
      });
    return;
  }
  const options = exportScheduleOptions(
    ctx.tenant,
    row.id,
    {
      cron: row.cron,
      timezone: row.timezone ?? 'UTC',
      branchId: row.branchIds[0]!,
      paused: row.state === 'PAUSED',
    },
    ctx.services.taskQueue,
  );
  if (existed)
    try {
      await handle.update((previous) => ({ ...previous, spec: options.spec }));
      return;
    } catch (error) {
      // A Temporal server that lost the schedule gets a new one.
      if (!(error instanceof ScheduleNotFoundError)) throw error;
    }
  await ctx.services.temporal.schedule.create(options);
}

export const listExports = defineRoute({
  operationId: 'listExports',
  method: 'get',
  path: '/exports',
  interface: 'back',
  summary: 'Exports covering a branch, newest first',
  description:
    'The exports one of whose branches is branchId (or, with includeChildBranches, a descendant of it) and whose every branch the caller may read (EXPORT_READ).',
  tags,
  query: Type.Object({
    branchId: Id(),
    includeChildBranches: Type.Optional(Type.Boolean({ default: false })),
  }),
  paged: { defaultSize: 50 },
  access: {
    permission: EXPORT_READ,
    branchOf: 'query parameter branchId',
    branch: (ctx) => ctx.query.branchId,
  },
  responses: { 200: { description: 'One page of exports', schema: Type.Array(ExportSchema) } },
  errors: [],
  async handler(ctx) {
    const branches = new Set(
      ctx.query.includeChildBranches
        ? (
            await ctx.em.execute<{ id: number }[]>(
              `with recursive tree(id, depth) as (
                 select id, 0 from branch where id = ? and tenant_id = ?
                 union all
                 select b.id, t.depth + 1 from branch b join tree t on b.parent_id = t.id where b.tenant_id = ? and t.depth < 32
               ) select id from tree`,
              [ctx.query.branchId, ctx.tenant, ctx.tenant],
            )
          ).map((row) => Number(row.id))
        : [ctx.query.branchId],
    );
    const rows = (await ctx.em.find(DataExport, { deletedAt: null }, { orderBy: { id: 'desc' } })).filter(
      (row) => row.branchIds.some((id) => branches.has(id)),
    );
    const visible: DataExport[] = [];
    for (const row of rows) {
      let readable = true;
      for (const branchId of row.branchIds)
        if (!(await ctx.holds({ permission: EXPORT_READ, branchId }).catch(() => false))) readable = false;
      if (readable) visible.push(row);
    }
    const page = visible.slice(ctx.page.offset, ctx.page.offset + ctx.page.size);
    return ok(await Promise.all(page.map((row) => toExportDto(ctx, row))), { total: visible.length });
  },
});

export const createExport = defineRoute({
  operationId: 'createExport',
  method: 'post',
  path: '/exports',
  interface: 'back',
  summary: 'Define an export: one run now (one-time) or a schedule (recurring)',
  description:
    'Without schedule the export runs once, now; with schedule its Temporal Schedule starts a run at each cron time in timezone. period: from and to (fixed), or lastDays (the days before each run); the vehicles report is a snapshot and needs none. Needs EXPORT_MANAGE and EXPORT_READ on every branch; each run re-checks that the creator still holds EXPORT_READ there (else the run FAILS with EX403 and sends nothing).',
  tags,
  body: component(
    'ExportCreate',
    Type.Object(
      {
        name: Name,
        queryId: Int(1, 1000, { description: 'GET /report-queries.' }),
        branchIds: BranchIds,
        period: Type.Optional(Period),
        format: Type.Optional(StringEnum(['CSV'] as const, { description: 'CSV, the one format.' })),
        retentionDays: Type.Optional(RetentionDays),
        schedule: Type.Optional(Schedule),
        notifications: Type.Optional(Notifications),
      },
      { additionalProperties: false },
    ),
  ),
  access: {
    permission: EXPORT_MANAGE,
    branchOf: 'every branch of branchIds (EXPORT_READ too)',
    branch: (ctx) => authorizeBranches(ctx, [EXPORT_MANAGE, EXPORT_READ], ctx.body.branchIds),
  },
  responses: {
    201: { description: 'The export (a one-time export’s run has started)', schema: ExportSchema },
  },
  errors: ['EX100', 'EX101', 'EX102', 'EX103', 'EX104'],
  async handler(ctx) {
    const { body } = ctx;
    const report = reportQueryById(body.queryId);
    if (!report) throw new DomainError('EX100', `report query ${body.queryId} not found`);
    const period = body.period ?? {};
    assertPeriod(period, report.periodColumn === null);
    const emails = [...(body.notifications?.emails ?? [])];
    const webhookUrl = body.notifications?.webhookUrl ?? null;
    assertTargets(emails, webhookUrl);
    const schedule = body.schedule ? await scheduleOf(ctx, body.schedule) : null;
    const principal = ctx.principal!;
    const row = ctx.em.create(DataExport, {
      name: body.name,
      queryId: report.id,
      branchIds: [...body.branchIds],
      periodFrom: period.from ? clampedInstant(period.from) : null,
      periodTo: period.to ? clampedInstant(period.to) : null,
      periodLastDays: period.lastDays ?? null,
      retentionDays: body.retentionDays ?? defaultRetentionDays,
      cron: schedule?.cron ?? null,
      timezone: schedule?.timezone ?? null,
      emails,
      webhookUrl,
      ownerSubjectType: principal.subjectType,
      ownerSubjectId: principal.subjectId,
      createdBy: ctx.actor,
    });
    await ctx.em.flush();
    try {
      await ensureRetentionSchedule(ctx);
      if (schedule) await syncSchedule(ctx, row, false);
      else await startRun(ctx, row, 'ONE_TIME');
    } catch (error) {
      // No recurring export without its schedule.
      if (schedule) {
        row.deletedAt = new Date();
        await ctx.em.flush();
      }
      throw error;
    }
    return created(await toExportDto(ctx, row), { Location: `${ctx.baseUrl}/exports/${row.id}` });
  },
});

const ExportParams = Type.Object({ exportId: Id() });

export const getExport = defineRoute({
  operationId: 'getExport',
  method: 'get',
  path: '/exports/{exportId}',
  interface: 'back',
  summary: 'One export',
  tags,
  params: ExportParams,
  access: onTheExport(EXPORT_READ),
  responses: { 200: { description: 'The export', schema: ExportSchema } },
  errors: ['EX404'],
  async handler(ctx) {
    return ok(await toExportDto(ctx, await exportOfPath(ctx)));
  },
});

export const updateExport = defineRoute({
  operationId: 'updateExport',
  method: 'patch',
  path: '/exports/{exportId}',
  interface: 'back',
  summary: 'Change an export’s name, period, retention, schedule or notification targets',
  description:
    'The report and branches stay (define another export for others). schedule changes a recurring export’s cron or time zone (a one-time export gets none: EX409). The new retention applies to runs completed afterwards.',
  tags,
  params: ExportParams,
  body: component(
    'ExportUpdate',
    Type.Object(
      {
        name: Type.Optional(Name),
        period: Type.Optional(Period),
        retentionDays: Type.Optional(RetentionDays),
        schedule: Type.Optional(Schedule),
        notifications: Type.Optional(Notifications),
      },
      { additionalProperties: false, minProperties: 1 },
    ),
  ),
  access: onTheExport(EXPORT_MANAGE),
  responses: { 200: { description: 'The export', schema: ExportSchema } },
  errors: ['EX404', 'EX101', 'EX102', 'EX103', 'EX104', 'EX409'],
  async handler(ctx) {
    const row = await exportOfPath(ctx);
    const { body } = ctx;
    if (body.period) {
      assertPeriod(body.period, reportQueryById(row.queryId)?.periodColumn === null);
      row.periodFrom = body.period.from ? clampedInstant(body.period.from) : null;
      row.periodTo = body.period.to ? clampedInstant(body.period.to) : null;
      row.periodLastDays = body.period.lastDays ?? null;
    }
    if (body.notifications) {
      const emails = body.notifications.emails ? [...body.notifications.emails] : row.emails;
      const webhookUrl =
        body.notifications.webhookUrl !== undefined
          ? body.notifications.webhookUrl
          : (row.webhookUrl ?? null);
      assertTargets(emails, webhookUrl);
      row.emails = emails;
      row.webhookUrl = webhookUrl;
    }
    if (body.name !== undefined) row.name = body.name;
    if (body.retentionDays !== undefined) row.retentionDays = body.retentionDays;
    if (body.schedule) {
      if (!row.cron) throw new DomainError('EX409', 'a one-time export has no schedule');
      const schedule = await scheduleOf(ctx, body.schedule);
      row.cron = schedule.cron;
      row.timezone = schedule.timezone;
      await syncSchedule(ctx, row, true);
    }
    row.updatedAt = new Date();
    await ctx.em.flush();
    return ok(await toExportDto(ctx, row));
  },
});

export const deleteExport = defineRoute({
  operationId: 'deleteExport',
  method: 'delete',
  path: '/exports/{exportId}',
  interface: 'back',
  summary: 'Delete an export and its schedule (its runs and files stay until their retention lapses)',
  tags,
  params: ExportParams,
  access: onTheExport(EXPORT_MANAGE),
  responses: { 204: { description: 'Deleted' } },
  errors: ['EX404'],
  async handler(ctx) {
    const row = await exportOfPath(ctx);
    const scheduled = Boolean(row.cron);
    row.deletedAt = new Date();
    await syncSchedule(ctx, row, scheduled);
    await ctx.em.flush();
    return noContent();
  },
});

/** Pauses or resumes a recurring export: its row's state and its Temporal Schedule. */
async function setPaused(ctx: RouteContext<{ exportId: number }>, paused: boolean) {
  const row = await exportOfPath(ctx);
  if (!row.cron) throw new DomainError('EX409', 'a one-time export has no schedule');
  row.state = paused ? 'PAUSED' : 'ACTIVE';
  row.updatedAt = new Date();
  const handle = ctx.services.temporal.schedule.getHandle(exportScheduleId(ctx.tenant, row.id));
  try {
    if (paused) await handle.pause(`paused by ${ctx.actor}`);
    else await handle.unpause(`resumed by ${ctx.actor}`);
  } catch (error) {
    if (!(error instanceof ScheduleNotFoundError)) throw error;
    await syncSchedule(ctx, row, false);
  }
  await ctx.em.flush();
  return ok(await toExportDto(ctx, row));
}

export const pauseExport = defineRoute({
  operationId: 'pauseExport',
  method: 'post',
  path: '/exports/{exportId}/pause',
  interface: 'back',
  summary: 'Pause a recurring export’s schedule',
  description:
    'No run starts until it is resumed (here or in the Temporal UI; a firing finds the export PAUSED and creates nothing).',
  tags,
  params: ExportParams,
  access: onTheExport(EXPORT_MANAGE),
  responses: { 200: { description: 'The export, PAUSED', schema: ExportSchema } },
  errors: ['EX404', 'EX409'],
  handler: (ctx) => setPaused(ctx, true),
});

export const resumeExport = defineRoute({
  operationId: 'resumeExport',
  method: 'post',
  path: '/exports/{exportId}/resume',
  interface: 'back',
  summary: 'Resume a paused recurring export',
  tags,
  params: ExportParams,
  access: onTheExport(EXPORT_MANAGE),
  responses: { 200: { description: 'The export, ACTIVE', schema: ExportSchema } },
  errors: ['EX404', 'EX409'],
  handler: (ctx) => setPaused(ctx, false),
});

export const exportRoutes = [
  listExports,
  createExport,
  getExport,
  updateExport,
  deleteExport,
  pauseExport,
  resumeExport,
];
