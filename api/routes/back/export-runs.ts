// The runs of an export (docs/exports.md): the run log (the spec sends nothing when an export fails, so
// this is where an operator notices), a run started by hand, the replay of a run (the same period again,
// a new run), and the download address of the webhook payload and the e-mail: GET answers 303 See Other
// to a pre-signed object-store link valid 7 days, a fresh one on each call until expirationDate.
import { Type } from '@sinclair/typebox';
import { ExportRun } from '../../../db/entities/ExportRun.js';
import { DomainError } from '../../../domain/errors.js';
import { exportFileName, presignedLinkSeconds, reportQueryById } from '../../../domain/exports.js';
import { created, defineRoute, ok, seeOther } from '../../kernel/route.js';
import { Id, Str } from '../../kernel/schemas.js';
import {
  EXPORT_MANAGE,
  EXPORT_READ,
  exportOfPath,
  ExportRunSchema,
  onTheExport,
  onTheRun,
  runOfPath,
  startRun,
  tags,
  toRunDto,
} from './export-representation.js';
import { timingSafeEqual } from 'node:crypto';

const ExportParams = Type.Object({ exportId: Id() });
const RunParams = Type.Object({ runId: Id() });

export const listExportRuns = defineRoute({
  operationId: 'listExportRuns',
  method: 'get',
  path: '/exports/{exportId}/runs',
  interface: 'back',
  summary: 'The run log of an export, newest first',
  tags,
  params: ExportParams,
  paged: { defaultSize: 50 },
  access: onTheExport(EXPORT_READ),
  responses: { 200: { description: 'One page of runs', schema: Type.Array(ExportRunSchema) } },
  errors: ['EX404'],
  async handler(ctx) {
    const definition = await exportOfPath(ctx);
    const [rows, total] = await ctx.em.findAndCount(
      ExportRun,
      { exportId: definition.id },
      { orderBy: { id: 'desc' }, limit: ctx.page.size, offset: ctx.page.offset },
    );
    return ok(
      rows.map((row) => toRunDto(ctx, row)),
      { total },
    );
  },
});

export const startExportRun = defineRoute({
  operationId: 'startExportRun',
  method: 'post',
  path: '/exports/{exportId}/runs',
  interface: 'back',
  summary: 'Run an export now, by hand',
  description: 'A new run (trigger MANUAL) over the export’s period as of now; it notifies like any run.',
  tags,
  params: ExportParams,
  access: onTheExport(EXPORT_MANAGE),
  responses: { 201: { description: 'The run, RUNNING', schema: ExportRunSchema } },
  errors: ['EX404'],
  async handler(ctx) {
    const run = await startRun(ctx, await exportOfPath(ctx), 'MANUAL');
    return created(toRunDto(ctx, run), { Location: `${ctx.baseUrl}/exports/runs/${run.id}` });
  },
});

export const getExportRun = defineRoute({
  operationId: 'getExportRun',
  method: 'get',
  path: '/exports/runs/{runId}',
  interface: 'back',
  summary: 'One export run',
  tags,
  params: RunParams,
  access: onTheRun(EXPORT_READ),
  responses: { 200: { description: 'The run', schema: ExportRunSchema } },
  errors: ['EX405'],
  async handler(ctx) {
    return ok(toRunDto(ctx, (await runOfPath(ctx)).run));
  },
});

export const replayExportRun = defineRoute({
  operationId: 'replayExportRun',
  method: 'post',
  path: '/exports/runs/{runId}/replay',
  interface: 'back',
  summary: 'Replay a run: the same period again, as a new run',
  description:
    'A new run (trigger REPLAY, replayOfRunId) over the replayed run’s period, with its own file, expirationDate and notifications. To resend a successful run’s notifications instead, replay a delivery.',
  tags,
  params: RunParams,
  access: onTheRun(EXPORT_MANAGE),
  responses: { 201: { description: 'The new run, RUNNING', schema: ExportRunSchema } },
  errors: ['EX405', 'EX404'],
  async handler(ctx) {
    const { run, definition } = await runOfPath(ctx);
    if (definition.deletedAt) throw new DomainError('EX404', `export ${definition.id} was deleted`);
    const replay = await startRun(ctx, definition, 'REPLAY', run);
    return created(toRunDto(ctx, replay), { Location: `${ctx.baseUrl}/exports/runs/${replay.id}` });
  },
});

/** Compares the download key in constant time. */
function keyMatches(expected: string, given: string): boolean {
  const a = Buffer.from(expected);
  const b = Buffer.from(given);
  return a.length === b.length && timingSafeEqual(a, b);
}

export const downloadExportRun = defineRoute({
  operationId: 'downloadExportRun',
  method: 'get',
  path: '/exports/runs/{runId}/download',
  interface: 'back',
  summary: 'Download a run’s CSV: 303 See Other to a pre-signed link valid 7 days',
  description:
    'The exportUrl of the webhook payload and the e-mail’s link: the key in the address is the credential (no token), so the link works from a mail client. Each call answers a fresh pre-signed address valid 7 days; after the run’s expirationDate EX410 (the file is deleted by the retention schedule). A wrong key answers EX405, like an unknown run.',
  tags,
  params: RunParams,
  query: Type.Object({
    key: Str(64, { minLength: 1, description: 'The run’s download key (part of exportUrl).' }),
  }),
  access: {
    anonymous:
      'the address carries the run’s download key (32 random bytes), sent only to the export’s notification targets and operators with EXPORT_READ; a wrong key is answered like an unknown run',
  },
  responses: {
    303: {
      description: 'Fetch the CSV from the pre-signed address (valid 7 days)',
      headers: {
        Location: { description: 'The pre-signed address', schema: Type.String() },
        'Cache-Control': { description: '`no-store`: each call signs a new address', schema: Type.String() },
      },
    },
  },
  errors: ['EX405', 'EX410', 'EX411'],
  async handler(ctx) {
    const run = await ctx.em.findOne(ExportRun, ctx.params.runId);
    if (!run || !keyMatches(run.downloadKey, ctx.query.key))
      throw new DomainError('EX405', `export run ${ctx.params.runId} not found`);
    if (run.state !== 'SUCCEEDED' || !run.objectKey)
      throw new DomainError('EX411', `export run ${run.id} is ${run.state}: it has no file`);
    if (run.fileDeletedAt || !run.expiresAt || run.expiresAt <= new Date())
      throw new DomainError(
        'EX410',
        `the file of export run ${run.id} expired at ${run.expiresAt?.toISOString()}`,
      );
    const report = reportQueryById(run.queryId);
    const fileName = exportFileName(report?.key ?? 'export', run.id, run.periodTo?.toISOString() ?? null);
    const url = await ctx.services.objectStore.presignedGetUrl(run.objectKey, {
      expiresInSeconds: presignedLinkSeconds,
      contentDisposition: `attachment; filename="${fileName}"`,
      contentType: 'text/csv; charset=utf-8',
    });
    return seeOther(url, { 'Cache-Control': 'no-store' });
  },
});

export const exportRunRoutes = [
  listExportRuns,
  startExportRun,
  getExportRun,
  replayExportRun,
  downloadExportRun,
];
