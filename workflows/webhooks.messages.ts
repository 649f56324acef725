// How a platform webhook subscription's dispatcher is called: its workflow id, input, wake-up signal and
// start options. The API, the worker's starter and the tests import these without importing workflow code.
import { defineSignal } from '@temporalio/workflow';
import type { WorkflowSignalWithStartOptions } from '@temporalio/client';
import { TenantIdKey } from './search-attributes.js';

/** The dispatcher workflow's type name. */
export const WEBHOOK_DISPATCHER_WORKFLOW_TYPE = 'webhookDispatcherWorkflow';

/** `webhook-dispatch:{tenant}:{subscriptionId}`: one dispatcher per subscription, visible in the Temporal UI. */
export function webhookDispatcherWorkflowId(tenant: string, subscriptionId: number): string {
  return `webhook-dispatch:${tenant}:${subscriptionId}`;
}

/** Which subscription a dispatcher serves. */
export interface WebhookDispatcherInput {
  tenant: string;
  subscriptionId: number;
}

/** Wakes a dispatcher: outbox rows committed, a message was redelivered, the subscription changed. */
export const wakeWebhookDispatcherSignal = defineSignal('wakeWebhookDispatcher');

/**
 * Starts the subscription's dispatcher if it does not run, and wakes it (signal-with-start): what the API
 * does when a subscription is created, activated or a message redelivered, and the starter when outbox
 * rows commit.
 */
export function webhookDispatcherSignalWithStart(
  input: WebhookDispatcherInput,
  taskQueue: string,
): WorkflowSignalWithStartOptions<[]> & { args: [WebhookDispatcherInput] } {
  return {
    workflowId: webhookDispatcherWorkflowId(input.tenant, input.subscriptionId),
    taskQueue,
    args: [input],
    signal: wakeWebhookDispatcherSignal,
    signalArgs: [],
    typedSearchAttributes: [{ key: TenantIdKey, value: input.tenant }],
  };
}

/** What one dispatch step reports to the workflow. */
export interface WebhookDispatchResult {
  /** The subscription is gone or inactive: the dispatcher ends. */
  stop: boolean;
  /** More work is due right away (a full batch, more outbox rows). */
  more: boolean;
  /** When the next message falls due (epoch ms), or null when none waits. */
  nextDueAtMs: number | null;
  /** Attempts made in this step. */
  attempts: number;
}
