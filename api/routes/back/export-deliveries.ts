// The notification attempts of an export run (docs/exports.md): every e-mail try and webhook POST with
// its outcome, and a delivery replayed by hand (the same payload and webhook-id; the attempt count
// starts at 1 again and network errors are retried after 10, 20 and 40 s as on the first dispatch).
import { randomUUID } from 'node:crypto';
import { Type } from '@sinclair/typebox';
import { ExportDelivery } from '../../../db/entities/ExportDelivery.js';
import { DomainError } from '../../../domain/errors.js';
import {
  EXPORT_NOTIFICATION_WORKFLOW_TYPE,
  exportNotificationStartOptions,
} from '../../../workflows/export.messages.js';
import { defineRoute, ok } from '../../kernel/route.js';
import { component, Id } from '../../kernel/schemas.js';
import {
  downloadable,
  EXPORT_MANAGE,
  EXPORT_READ,
  ExportDeliverySchema,
  onTheRun,
  runOfPath,
  tags,
  toDeliveryDto,
} from './export-representation.js';

const RunParams = Type.Object({ runId: Id() });

export const listExportDeliveries = defineRoute({
  operationId: 'listExportDeliveries',
  method: 'get',
  path: '/exports/runs/{runId}/deliveries',
  interface: 'back',
  summary: 'Every notification attempt of a run, oldest first',
  tags,
  params: RunParams,
  paged: { defaultSize: 100 },
  access: onTheRun(EXPORT_READ),
  responses: { 200: { description: 'One page of attempts', schema: Type.Array(ExportDeliverySchema) } },
  errors: ['EX405'],
  async handler(ctx) {
    const { run } = await runOfPath(ctx);
    const [rows, total] = await ctx.em.findAndCount(
      ExportDelivery,
      { runId: run.id },
      { orderBy: { id: 'asc' }, limit: ctx.page.size, offset: ctx.page.offset },
    );
    return ok(rows.map(toDeliveryDto), { total });
  },
});

const ReplayStarted = component(
  'ExportDeliveryReplay',
  Type.Object(
    {
      workflowId: Type.String({
        description: 'The notification workflow; its attempts appear in the delivery list.',
      }),
      channel: Type.String(),
      target: Type.String(),
    },
    { additionalProperties: false },
  ),
);

export const replayExportDelivery = defineRoute({
  operationId: 'replayExportDelivery',
  method: 'post',
  path: '/exports/runs/{runId}/deliveries/{deliveryId}/replay',
  interface: 'back',
  summary: 'Send a delivery’s notification again',
  description:
    'Resends the e-mail or webhook of the delivery’s target, with the same payload and webhook-id (receivers that de-duplicate by webhook-id ignore it when they got the first). The run must have its file (EX411, EX410) and the export must still have the target (EX412).',
  tags,
  params: Type.Object({ runId: Id(), deliveryId: Id() }),
  access: onTheRun(EXPORT_MANAGE),
  responses: { 202: { description: 'Sending', schema: ReplayStarted } },
  errors: ['EX405', 'EX406', 'EX410', 'EX411', 'EX412'],
  async handler(ctx) {
    const { run, definition } = await runOfPath(ctx);
    const delivery = await ctx.em.findOne(ExportDelivery, { id: ctx.params.deliveryId, runId: run.id });
    if (!delivery)
      throw new DomainError('EX406', `delivery ${ctx.params.deliveryId} is not one of run ${run.id}'s`);
    if (run.state !== 'SUCCEEDED') throw new DomainError('EX411', `export run ${run.id} is ${run.state}`);
    if (!downloadable(run)) throw new DomainError('EX410', `the file of export run ${run.id} expired`);
    const stillTarget =
      !definition.deletedAt &&
      (delivery.channel === 'EMAIL'
        ? definition.emails.includes(delivery.target)
        : definition.webhookUrl === delivery.target);
    if (!stillTarget) throw new DomainError('EX412', `the export no longer notifies ${delivery.target}`);
    const options = exportNotificationStartOptions(
      {
        tenant: ctx.tenant,
        runId: run.id,
        targets: [{ channel: delivery.channel, target: delivery.target }],
      },
      randomUUID(),
      ctx.services.taskQueue,
    );
    await ctx.services.temporal.workflow.start(EXPORT_NOTIFICATION_WORKFLOW_TYPE, options);
    return {
      status: 202 as const,
      body: { workflowId: options.workflowId, channel: delivery.channel, target: delivery.target },
    };
  },
});

export const exportDeliveryRoutes = [listExportDeliveries, replayExportDelivery];
