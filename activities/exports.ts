// Activities of the exports domain: a run's file (permission re-check, CSV stream into the object store
// under the run's fixed key), its result recorded once, each notification attempt (an e-mail, one webhook
// POST) recorded as a delivery row, the runs a schedule's firings create, and the retention deletes.
import { randomBytes } from 'node:crypto';
import { Context } from '@temporalio/activity';
import type { MikroORM } from '@mikro-orm/postgresql';
import { inTenantTransaction, tenantEm, type EntityManager } from '../db/orm.js';
import { DataExport } from '../db/entities/DataExport.js';
import { ExportRun } from '../db/entities/ExportRun.js';
import { ExportWebhookAuthentication } from '../db/entities/ExportWebhookAuthentication.js';
import { Tenant } from '../db/entities/Tenant.js';
import { Branch } from '../db/entities/Branch.js';
import { coveredBranches, lapsedExportFiles, streamReportCsv, unreadableBranch } from '../db/exports.js';
import { DomainError } from '../domain/errors.js';
import {
  exportFileName,
  exportMailSubject,
  exportObjectKey,
  exportWebhookId,
  expirationOf,
  reportQueryById,
  runPeriod,
  webhookTimeoutMs,
  type DeliveryChannel,
  type DeliveryOutcome,
  type ExportWebhookPayload,
} from '../domain/exports.js';
import type { MailSender } from '../platform/mail.js';
import type { ObjectStore } from '../platform/object-store.js';
import { postWebhook, webhookHeaders } from '../platform/standard-webhooks.js';
import { exportRunWorkflowId } from '../workflows/export.messages.js';
import { activityIdempotencyKey, asActivity, withHeartbeat } from './support.js';

export interface ExportActivityDeps {
  orm: MikroORM;
  objectStore: ObjectStore;
  mail: MailSender;
  /** The API's public address, for the download links (`PUBLIC_BASE_URL`). */
  publicBaseUrl: string;
}

/** The download address of a run: the exportUrl of the webhook payload and the e-mail's link. */
export function exportDownloadUrl(
  publicBaseUrl: string,
  tenant: string,
  runId: number,
  downloadKey: string,
): string {
  return `${publicBaseUrl.replace(/\/+$/, '')}/v1/${encodeURIComponent(tenant)}/back/exports/runs/${runId}/download?key=${downloadKey}`;
}

/** A new download key: base64url of 32 random bytes. */
export function newDownloadKey(): string {
  return randomBytes(32).toString('base64url');
}

/** The tenant's time zone: its first top-level branch's. */
export async function tenantTimeZone(em: EntityManager): Promise<string> {
  const root = await em.findOne(Branch, { parent: null }, { orderBy: { id: 'asc' }, fields: ['timeZoneId'] });
  return root?.timeZoneId ?? 'UTC';
}

async function runAndExport(
  em: EntityManager,
  runId: number,
): Promise<{ run: ExportRun; definition: DataExport }> {
  const run = await em.findOneOrFail(ExportRun, runId);
  const definition = await em.findOneOrFail(DataExport, run.exportId);
  return { run, definition };
}

/** The payload of a successful run's webhook (spec "Export webhook payload"); the same on every attempt. */
function payloadOf(deps: ExportActivityDeps, tenant: string, run: ExportRun): ExportWebhookPayload {
  const report = reportQueryById(run.queryId)!;
  return {
    id: run.id,
    queryId: run.queryId,
    queryName: report.name,
    exportUrl: exportDownloadUrl(deps.publicBaseUrl, tenant, run.id, run.downloadKey),
    expirationDate: run.expiresAt!.toISOString(),
  };
}

/** Records the start of one notification attempt once per dispatch key; answers its row id. */
async function openDelivery(
  em: EntityManager,
  tenant: string,
  fields: {
    runId: number;
    channel: DeliveryChannel;
    target: string;
    dispatchKey: string;
    attempt: number;
    manual: boolean;
    webhookId: string | null;
  },
): Promise<number> {
  const rows = await em.execute<{ id: number }[]>(
    `insert into export_delivery (tenant_id, run_id, channel, target, dispatch_key, attempt, manual, webhook_id, outcome, started_at)
     values (?, ?, ?, ?, ?, ?, ?, ?, 'SENDING', now())
     on conflict (tenant_id, dispatch_key) do update set outcome = 'SENDING', started_at = now(), finished_at = null,
       http_status = null, error = null
     returning id`,
    [
      tenant,
      fields.runId,
      fields.channel,
      fields.target,
      fields.dispatchKey,
      fields.attempt,
      fields.manual,
      fields.webhookId,
    ],
  );
  return Number(rows[0]!.id);
}

async function closeDelivery(
  em: EntityManager,
  tenant: string,
  id: number,
  outcome: DeliveryOutcome,
  details: { httpStatus?: number; error?: string },
): Promise<void> {
  await em.execute(
    `update export_delivery set outcome = ?, http_status = ?, error = ?, finished_at = now() where tenant_id = ? and id = ?`,
    [outcome, details.httpStatus ?? null, details.error?.slice(0, 1000) ?? null, tenant, id],
  );
}

/** What a recorded result hands the notification steps. */
export interface ExportNotificationPlan {
  emails: string[];
  webhookUrl: string | null;
}

/** The export domain's activities (`ActivityDeps` plus mail and the public address). */
export function createExportActivities(deps: ExportActivityDeps) {
  const { orm, objectStore } = deps;

  /** One e-mail try of a run's notification (the activity's body). */
  async function sendMail(input: {
    tenant: string;
    runId: number;
    to: string;
    manual: boolean;
  }): Promise<void> {
    const em = tenantEm(orm, input.tenant);
    const { run, definition } = await runAndExport(em, input.runId);
    if (run.state !== 'SUCCEEDED') throw new DomainError('EX411', `run ${run.id} has no file`);
    const deliveryId = await openDelivery(em, input.tenant, {
      runId: run.id,
      channel: 'EMAIL',
      target: input.to,
      dispatchKey: `${activityIdempotencyKey()}/try-${Context.current().info.attempt}`,
      attempt: Context.current().info.attempt,
      manual: input.manual,
      webhookId: null,
    });
    const tenant = await em.findOneOrFail(Tenant, input.tenant);
    const report = reportQueryById(run.queryId)!;
    const timeZone = definition.timezone ?? (await tenantTimeZone(em));
    const payload = payloadOf(deps, input.tenant, run);
    try {
      await deps.mail.send({
        to: input.to,
        subject: exportMailSubject(tenant.name, report.name, definition.name, run.completedAt!, timeZone),
        text: [
          `The ${report.name} export "${definition.name}" of ${tenant.name} is ready (${run.rowCount} rows).`,
          '',
          `Download (the link redirects to the file; available until ${payload.expirationDate}):`,
          payload.exportUrl,
          '',
          `Export run ${run.id}, report query ${report.id}.`,
        ].join('\n'),
      });
    } catch (error) {
      await closeDelivery(em, input.tenant, deliveryId, 'SMTP_ERROR', { error: (error as Error).message });
      throw error;
    }
    await closeDelivery(em, input.tenant, deliveryId, 'DELIVERED', {});
  }

  /** Writes a run's CSV under its fixed key (the body of writeExportFile's attempts). */
  async function writeFile(input: {
    tenant: string;
    runId: number;
  }): Promise<{ rows: number; size: number }> {
    const context = Context.current();
    const em = tenantEm(orm, input.tenant);
    const { run, definition } = await runAndExport(em, input.runId);
    if (run.state === 'SUCCEEDED') return { rows: run.rowCount ?? 0, size: run.byteSize ?? 0 };
    const report = reportQueryById(run.queryId);
    if (!report) throw new DomainError('EX100', `report query ${run.queryId} no longer exists`);
    const refused = await unreadableBranch(
      em,
      input.tenant,
      { subjectType: definition.ownerSubjectType, subjectId: definition.ownerSubjectId },
      definition.branchIds,
    );
    if (refused !== undefined)
      throw new DomainError(
        'EX403',
        `the export's owner ${definition.ownerSubjectId} may not read branch ${refused} (EXPORT_READ)`,
      );
    const branchIds = await coveredBranches(em, input.tenant, definition.branchIds);
    const key = exportObjectKey(input.tenant, run.id);
    const fileName = exportFileName(report.key, run.id, run.periodTo?.toISOString() ?? null);
    return streamReportCsv(
      em,
      report.key,
      {
        tenant: input.tenant,
        branchIds,
        from: report.periodColumn ? (run.periodFrom ?? null) : null,
        to: report.periodColumn ? (run.periodTo ?? null) : null,
      },
      (csv) =>
        objectStore.putStream(key, csv, {
          contentType: 'text/csv; charset=utf-8',
          contentDisposition: `attachment; filename="${fileName}"`,
        }),
      // Told from the stream's events, outside the activity's async context: the context taken here.
      (bytes) => context.heartbeat({ bytes }),
    );
  }

  /** Records a failed attempt of a RUNNING run's file: its number and the fault, in errorMessage. */
  async function recordFailedAttempt(
    input: { tenant: string; runId: number },
    error: unknown,
  ): Promise<void> {
    const attempt = Context.current().info.attempt;
    const reason = error instanceof Error ? error.message : String(error);
    try {
      await inTenantTransaction(orm, input.tenant, async (em) => {
        const run = await em.findOne(ExportRun, input.runId);
        if (run?.state !== 'RUNNING') return;
        run.errorMessage = `attempt ${attempt} failed, retrying: ${reason}`.slice(0, 1000);
      });
    } catch {
      // The database refusing too: the attempt's own failure is what the workflow sees.
    }
  }

  return {
    /**
     * Writes a run's CSV: re-checks that the export's owner may read every branch (EX403 otherwise:
     * grants change after the export was defined), then streams the report into the object store under
     * the run's fixed key. A retry overwrites the same object; a run already recorded is not written again.
     */
    async writeExportFile(input: { tenant: string; runId: number }): Promise<{ rows: number; size: number }> {
      return asActivity(() =>
        withHeartbeat(async () => {
          try {
            return await writeFile(input);
          } catch (error) {
            // A fault the workflow retries: the run, still RUNNING, shows why its last attempt failed
            // (an operator sees the store or the database refusing before the run FAILS with EX500).
            if (!(error instanceof DomainError)) await recordFailedAttempt(input, error);
            throw error;
          }
        }),
      );
    },

    /**
     * Records a run's success once (only a RUNNING run changes): the file's key, size, rows and its
     * expirationDate (now + retention). Answers the export's notification targets.
     */
    async completeExportRun(input: {
      tenant: string;
      runId: number;
      rows: number;
      size: number;
    }): Promise<ExportNotificationPlan> {
      return asActivity(() =>
        inTenantTransaction(orm, input.tenant, async (em) => {
          const { run, definition } = await runAndExport(em, input.runId);
          if (run.state === 'RUNNING') {
            const now = new Date();
            Object.assign(run, {
              state: 'SUCCEEDED',
              completedAt: now,
              rowCount: input.rows,
              byteSize: input.size,
              objectKey: exportObjectKey(input.tenant, run.id),
              expiresAt: expirationOf(now, definition.retentionDays),
              // A failed attempt's note (recordFailedAttempt) no longer applies.
              errorMessage: null,
            });
          }
          return { emails: [...definition.emails], webhookUrl: definition.webhookUrl ?? null };
        }),
      );
    },

    /** Records a run's failure once, with its catalogue code (EX403, EX500 …); a failed run notifies nobody. */
    async failExportRun(input: {
      tenant: string;
      runId: number;
      errorCode: string;
      message: string;
    }): Promise<void> {
      return asActivity(() =>
        inTenantTransaction(orm, input.tenant, async (em) => {
          const run = await em.findOneOrFail(ExportRun, input.runId);
          if (run.state !== 'RUNNING') return;
          Object.assign(run, {
            state: 'FAILED',
            completedAt: new Date(),
            errorCode: input.errorCode,
            errorMessage: input.message.slice(0, 1000),
          });
        }),
      );
    },

    /**
     * Mails a successful run's link to one address (subject: organisation, report name, date and time).
     * Each try is one delivery row; an SMTP refusal fails the try and the activity's retry policy retries.
     */
    async sendExportMail(input: {
      tenant: string;
      runId: number;
      to: string;
      manual: boolean;
    }): Promise<void> {
      return asActivity(() => sendMail(input));
    },

    /**
     * One webhook attempt (the workflow disables retries and times the next attempt): POSTs the run's
     * payload with webhook-id (stable for the run), the attempt count and, when the organisation enabled
     * authentication, x-api-key, webhook-timestamp and webhook-signature computed now. Recorded as one
     * delivery row keyed by the workflow, its first run and the attempt.
     */
    async deliverExportWebhook(input: {
      tenant: string;
      runId: number;
      url: string;
      attempt: number;
      dispatchKey: string;
      manual: boolean;
    }): Promise<{ outcome: DeliveryOutcome; httpStatus?: number }> {
      return asActivity(async () => {
        const em = tenantEm(orm, input.tenant);
        const run = await em.findOneOrFail(ExportRun, input.runId);
        if (run.state !== 'SUCCEEDED') throw new DomainError('EX411', `run ${run.id} has no file`);
        const webhookId = exportWebhookId(input.tenant, run.id);
        const deliveryId = await openDelivery(em, input.tenant, {
          runId: run.id,
          channel: 'WEBHOOK',
          target: input.url,
          dispatchKey: input.dispatchKey,
          attempt: input.attempt,
          manual: input.manual,
          webhookId,
        });
        const authentication = await em.findOne(ExportWebhookAuthentication, {});
        const body = JSON.stringify(payloadOf(deps, input.tenant, run));
        const headers = webhookHeaders({
          webhookId,
          attempt: input.attempt,
          body,
          authentication: authentication?.enabled
            ? { apiKey: authentication.apiKey, secret: authentication.signingSecret }
            : undefined,
        });
        const result = await withHeartbeat(
          () => postWebhook(input.url, body, headers, webhookTimeoutMs),
          1_000,
        );
        await closeDelivery(em, input.tenant, deliveryId, result.outcome, {
          httpStatus: 'httpStatus' in result ? result.httpStatus : undefined,
          error: 'error' in result ? result.error : undefined,
        });
        return {
          outcome: result.outcome,
          httpStatus: 'httpStatus' in result ? result.httpStatus : undefined,
        };
      });
    },

    /** Marks an attempt whose activity never reported (its worker died, it timed out) INTERRUPTED. */
    async closeInterruptedDelivery(input: {
      tenant: string;
      dispatchKey: string;
      error: string;
    }): Promise<void> {
      await tenantEm(orm, input.tenant).execute(
        `update export_delivery set outcome = 'INTERRUPTED', error = ?, finished_at = now()
          where tenant_id = ? and dispatch_key = ? and outcome = 'SENDING'`,
        [input.error.slice(0, 1000), input.tenant, input.dispatchKey],
      );
    },

    /**
     * The run of one schedule firing, created once per firing (its workflow id is the run's scheduleKey);
     * null when the export was deleted meanwhile. The period: the export's, or its lastDays
     * before the firing's scheduled time.
     */
    async createScheduledExportRun(input: {
      tenant: string;
      exportId: number;
      scheduleKey: string;
      scheduledAt: string;
    }): Promise<{ runId: number } | null> {
      return asActivity(() =>
        inTenantTransaction(orm, input.tenant, async (em) => {
          const existing = await em.findOne(ExportRun, { scheduleKey: input.scheduleKey });
          if (existing) return { runId: existing.id };
          const definition = await em.findOne(DataExport, { id: input.exportId, deletedAt: null });
          // The schedule's own pause (API or Temporal UI) is what stops firings; a deleted export makes none.
          if (!definition) return null;
          const at = new Date(input.scheduledAt);
          const period = runPeriod(
            {
              from: definition.periodFrom?.toISOString(),
              to: definition.periodTo?.toISOString(),
              lastDays: definition.periodLastDays,
            },
            Number.isNaN(at.getTime()) ? new Date() : at,
          );
          const [{ id }] = await em.execute<{ id: number }[]>(`select nextval('export_run_id_seq') as id`);
          const runId = Number(id);
          em.create(ExportRun, {
            id: runId,
            exportId: definition.id,
            queryId: definition.queryId,
            trigger: 'SCHEDULE',
            scheduleKey: input.scheduleKey,
            periodFrom: period.from,
            periodTo: period.to,
            workflowId: exportRunWorkflowId(input.tenant, runId),
            createdBy: `export-schedule:${definition.id}`,
            downloadKey: newDownloadKey(),
          });
          return { runId };
        }),
      );
    },

    /** Deletes the files whose expirationDate passed (a batch); answers how many. */
    async deleteLapsedExportFiles(input: { tenant: string; limit: number }): Promise<{ deleted: number }> {
      const em = tenantEm(orm, input.tenant);
      const lapsed = await lapsedExportFiles(em, input.tenant, new Date(), input.limit);
      for (const file of lapsed) {
        await objectStore.delete(file.objectKey);
        await em.execute(
          `update export_run set file_deleted_at = now() where tenant_id = ? and id = ? and file_deleted_at is null`,
          [input.tenant, file.id],
        );
        Context.current().heartbeat();
      }
      return { deleted: lapsed.length };
    },
  };
}
