// How the export workflows are called: their ids, inputs and start options, and the Temporal Schedules of
// recurring exports and of the retention cleanup. The API, the schedule starter and the tests import
// these without importing workflow code.
import type { ScheduleOptions } from '@temporalio/client';
import type { WorkflowIdReusePolicy } from '@temporalio/common';
import type { DeliveryChannel, DeliveryOutcome, ExportRunState } from '../domain/exports.js';
import { BranchIdKey, EntityStateKey, TenantIdKey } from './search-attributes.js';

/** The run workflow's type name: one per export run. */
export const EXPORT_RUN_WORKFLOW_TYPE = 'exportRunWorkflow';
/** The type started by each firing of a recurring export's schedule: it creates the run and runs it. */
export const EXPORT_SCHEDULE_FIRE_WORKFLOW_TYPE = 'exportScheduleFireWorkflow';
/** The type of a notification an operator replays by hand. */
export const EXPORT_NOTIFICATION_WORKFLOW_TYPE = 'exportNotificationWorkflow';
/** The type the retention schedule starts: deletes the files whose expirationDate passed. */
export const EXPORT_RETENTION_WORKFLOW_TYPE = 'exportRetentionWorkflow';

/** `export:{tenant}:{runId}`: one workflow per export run, readable in the Temporal UI. */
export function exportRunWorkflowId(tenant: string, runId: number): string {
  return `export:${tenant}:${runId}`;
}

/** `export-schedule:{tenant}:{exportId}`: the Temporal Schedule of a recurring export (pausable in the UI). */
export function exportScheduleId(tenant: string, exportId: number): string {
  return `export-schedule:${tenant}:${exportId}`;
}

/**
 * `export-fire:{tenant}:{exportId}`: the prefix of the firing workflows' ids; Temporal appends each
 * firing's scheduled time, and the run created for it records that id, so a firing makes one run.
 */
export function exportScheduleFireWorkflowId(tenant: string, exportId: number): string {
  return `export-fire:${tenant}:${exportId}`;
}

/** `export-retention:{tenant}`: the tenant's retention schedule (hourly). */
export function exportRetentionScheduleId(tenant: string): string {
  return `export-retention:${tenant}`;
}

/** How often the retention schedule deletes lapsed files. */
export const EXPORT_RETENTION_INTERVAL = '1 hour';

/** `export-notify:{tenant}:{runId}:{replayId}`: a notification replayed by hand. */
export function exportNotificationWorkflowId(tenant: string, runId: number, replayId: string): string {
  return `export-notify:${tenant}:${runId}:${replayId}`;
}

/** What the run workflow starts with: the run row exists (RUNNING) before it starts. */
export interface ExportRunInput {
  tenant: string;
  runId: number;
}

/** What a run ended with. */
export interface ExportRunResult {
  state: Exclude<ExportRunState, 'RUNNING'>;
  errorCode?: string;
  rows?: number;
  notifications?: NotificationResult[];
}

/** One notification target's final outcome (the last attempt's). */
export interface NotificationResult {
  channel: DeliveryChannel;
  target: string;
  outcome: DeliveryOutcome;
  attempts: number;
}

/** What one notification (a run's, or a replay) sends: the channel and its target. */
export interface NotificationTarget {
  channel: DeliveryChannel;
  target: string;
}

/** Input of a replayed notification. */
export interface ExportNotificationInput {
  tenant: string;
  runId: number;
  targets: NotificationTarget[];
}

/** Input of a schedule's firing. */
export interface ExportScheduleFireInput {
  tenant: string;
  exportId: number;
}

/** Input of the retention workflow. */
export interface ExportRetentionInput {
  tenant: string;
}

/** How the API and the firing workflow start a run: its id, one per run, and the search attributes. */
export function exportRunStartOptions(input: ExportRunInput, taskQueue: string) {
  return {
    workflowId: exportRunWorkflowId(input.tenant, input.runId),
    taskQueue,
    args: [input] as [ExportRunInput],
    workflowIdReusePolicy: 'REJECT_DUPLICATE' as WorkflowIdReusePolicy,
    typedSearchAttributes: [
      { key: TenantIdKey, value: input.tenant },
      { key: EntityStateKey, value: 'RUNNING' },
    ],
  };
}

/** How the API starts a replayed notification. */
export function exportNotificationStartOptions(
  input: ExportNotificationInput,
  replayId: string,
  taskQueue: string,
) {
  return {
    workflowId: exportNotificationWorkflowId(input.tenant, input.runId, replayId),
    taskQueue,
    args: [input] as [ExportNotificationInput],
    typedSearchAttributes: [{ key: TenantIdKey, value: input.tenant }],
  };
}

/** What a recurring export's schedule needs. */
export interface ExportScheduleTiming {
  cron: string;
  timezone: string;
  /** The export's first branch (a search attribute for the UI). */
  branchId: number;
  paused: boolean;
}

/**
 * The schedule of a recurring export: its cron in its time zone, starting the firing workflow. A firing
 * missed while the cluster was down is caught up within a day; firings do not overlap (a run still going
 * when the next is due makes the next wait: BUFFER_ONE).
 */
export function exportScheduleOptions(
  tenant: string,
  exportId: number,
  timing: ExportScheduleTiming,
  taskQueue: string,
): ScheduleOptions {
  const attributes = [
    { key: TenantIdKey, value: tenant },
    { key: BranchIdKey, value: String(timing.branchId) },
  ];
  return {
    scheduleId: exportScheduleId(tenant, exportId),
    spec: { cronExpressions: [timing.cron], timezone: timing.timezone },
    action: {
      type: 'startWorkflow',
      workflowType: EXPORT_SCHEDULE_FIRE_WORKFLOW_TYPE,
      workflowId: exportScheduleFireWorkflowId(tenant, exportId),
      taskQueue,
      args: [{ tenant, exportId } satisfies ExportScheduleFireInput],
      typedSearchAttributes: attributes,
    },
    policies: { overlap: 'BUFFER_ONE', catchupWindow: '1 day' },
    state: { paused: timing.paused, note: timing.paused ? 'paused through the API' : undefined },
    typedSearchAttributes: attributes,
    memo: { exportId },
  };
}

/** The tenant's retention schedule: every hour, the retention workflow deletes lapsed files. */
export function exportRetentionScheduleOptions(tenant: string, taskQueue: string): ScheduleOptions {
  return {
    scheduleId: exportRetentionScheduleId(tenant),
    spec: { intervals: [{ every: EXPORT_RETENTION_INTERVAL }] },
    action: {
      type: 'startWorkflow',
      workflowType: EXPORT_RETENTION_WORKFLOW_TYPE,
      workflowId: `export-retention:${tenant}`,
      taskQueue,
      args: [{ tenant } satisfies ExportRetentionInput],
      workflowExecutionTimeout: '1 hour',
      typedSearchAttributes: [{ key: TenantIdKey, value: tenant }],
    },
    policies: { overlap: 'SKIP', catchupWindow: '1 hour' },
    typedSearchAttributes: [{ key: TenantIdKey, value: tenant }],
  };
}
