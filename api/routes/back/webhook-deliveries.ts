// The delivery log of a platform webhook subscription: every HTTP attempt of its messages, newest
// first, and the redelivery of a message by hand (docs/webhooks.md). Access as the subscription's.
import { Type, type Static } from '@sinclair/typebox';
import { WebhookDelivery } from '../../../db/entities/WebhookDelivery.js';
import { webhookDispatchStates } from '../../../db/entities/WebhookDispatch.js';
import { redeliverWebhookMessage } from '../../../db/webhooks.js';
import { DomainError } from '../../../domain/errors.js';
import { defineRoute, ok, type RouteContext } from '../../kernel/route.js';
import { component, DateTime, Id, Int, Nullable, Str, StringEnum } from '../../kernel/schemas.js';
import {
  subscriptionFor,
  wakeDispatcher,
  webhookManageAccess,
  webhookReadAccess,
} from './webhook-subscriptions.js';

const tags = ['Webhooks'];

const MessageState = StringEnum(webhookDispatchStates, {
  description: 'PENDING (waiting, retrying), DELIVERED (a 2xx answer) or FAILED (given up).',
});

const WebhookDeliverySchema = component(
  'WebhookDelivery',
  Type.Object(
    {
      id: Type.Integer({ minimum: 1 }),
      webhookId: Type.String({ description: 'x-webhook-id: the same on every attempt of a message.' }),
      eventId: Type.String(),
      eventType: Type.String(),
      attempt: Type.Integer({ minimum: 1, description: 'x-webhook-dispatch-attempt-count.' }),
      success: Type.Boolean(),
      httpStatus: Nullable(Type.Integer()),
      error: Nullable(Type.String()),
      responseExcerpt: Nullable(Type.String()),
      startedAt: DateTime(),
      durationMs: Type.Integer({ minimum: 0 }),
      nextAttemptAt: Nullable(DateTime({ description: 'When the next attempt is due after this failure.' })),
      manual: Type.Boolean({ description: 'The first attempt after a redelivery by hand.' }),
      messageState: MessageState,
    },
    { additionalProperties: false },
  ),
);

type DeliveryDto = Static<typeof WebhookDeliverySchema>;

interface DeliveryRow {
  id: string;
  webhook_id: string;
  event_id: string;
  event_type: string;
  attempt: number;
  success: boolean;
  http_status: number | null;
  error: string | null;
  response_excerpt: string | null;
  started_at: Date;
  duration_ms: number;
  next_attempt_at: Date | null;
  manual: boolean;
  state: DeliveryDto['messageState'];
}

const toDto = (row: DeliveryRow): DeliveryDto => ({
  id: Number(row.id),
  webhookId: row.webhook_id,
  eventId: String(row.event_id),
  eventType: row.event_type,
  attempt: row.attempt,
  success: row.success,
  httpStatus: row.http_status,
  error: row.error,
  responseExcerpt: row.response_excerpt,
  startedAt: new Date(row.started_at).toISOString(),
  durationMs: row.duration_ms,
  nextAttemptAt: row.next_attempt_at ? new Date(row.next_attempt_at).toISOString() : null,
  manual: row.manual,
  messageState: row.state,
});

const deliverySelect = `select w.id, d.webhook_id, o.event_id, o.event_type, w.attempt, w.success, w.http_status,
       w.error, w.response_excerpt, w.started_at, w.duration_ms, w.next_attempt_at, w.manual, d.state
     from webhook_delivery w
     join webhook_dispatch d on d.id = w.dispatch_id
     join webhook_outbox o on o.id = d.outbox_id`;

export const listWebhookDeliveries = defineRoute({
  operationId: 'listWebhookDeliveries',
  method: 'get',
  path: '/webhook-subscriptions/{id}/deliveries',
  interface: 'back',
  summary: "Every delivery attempt of a subscription's messages, newest first",
  tags,
  params: Type.Object({ id: Id() }),
  query: Type.Object({
    webhookId: Type.Optional(Str(100, { minLength: 1, description: 'Only the attempts of this message.' })),
    eventType: Type.Optional(Str(100, { minLength: 1 })),
    success: Type.Optional(Type.Boolean()),
  }),
  paged: { defaultSize: 50 },
  access: webhookReadAccess,
  responses: { 200: { description: 'One page of attempts', schema: Type.Array(WebhookDeliverySchema) } },
  errors: ['AUTH002', 'WH404'],
  async handler(ctx) {
    const subscription = await subscriptionFor(ctx, ctx.params.id, 'WEBHOOK_READ');
    const { webhookId, eventType, success } = ctx.query;
    const where = `where w.tenant_id = ? and w.subscription_id = ?
       and (?::text is null or d.webhook_id = ?) and (?::text is null or o.event_type = ?)
       and (?::boolean is null or w.success = ?)`;
    const values = [
      ctx.tenant,
      subscription.id,
      webhookId ?? null,
      webhookId ?? null,
      eventType ?? null,
      eventType ?? null,
      success ?? null,
      success ?? null,
    ];
    const [rows, [count]] = await Promise.all([
      ctx.em.execute<DeliveryRow[]>(`${deliverySelect} ${where} order by w.id desc limit ? offset ?`, [
        ...values,
        ctx.page.size,
        ctx.page.offset,
      ]),
      ctx.em.execute<[{ total: string }]>(
        `select count(*) as total from webhook_delivery w
         join webhook_dispatch d on d.id = w.dispatch_id
         join webhook_outbox o on o.id = d.outbox_id ${where}`,
        values,
      ),
    ]);
    return ok(rows.map(toDto), { total: Number(count?.total ?? 0) });
  },
});

const WebhookMessageSchema = component(
  'WebhookMessage',
  Type.Object(
    {
      webhookId: Type.String(),
      eventType: Type.String(),
      state: MessageState,
      attempts: Type.Integer({ minimum: 0 }),
    },
    { additionalProperties: false },
  ),
);

/** The attempt of the path, of the subscription of the path (WHD404 otherwise). */
async function loadDelivery(ctx: RouteContext, subscriptionId: number, deliveryId: number) {
  const delivery = await ctx.em.findOne(WebhookDelivery, { id: String(deliveryId), subscriptionId });
  if (!delivery)
    throw new DomainError(
      'WHD404',
      `delivery ${deliveryId} is not an attempt of subscription ${subscriptionId}`,
    );
  return delivery;
}

export const redeliverWebhook = defineRoute({
  operationId: 'redeliverWebhook',
  method: 'post',
  path: '/webhook-subscriptions/{id}/deliveries/{deliveryId}/redeliver',
  interface: 'back',
  summary: 'Send the message of a delivery attempt again, with a fresh retry budget',
  description:
    'The message keeps its x-webhook-id; its attempt count goes on. A message still pending (retrying, or waiting for an earlier message of its entity) answers WH103. It is delivered in order: later pending messages of its entity wait for it.',
  tags,
  params: Type.Object({ id: Id(), deliveryId: Int(1, Number.MAX_SAFE_INTEGER) }),
  access: webhookManageAccess,
  responses: { 202: { description: 'The message, queued', schema: WebhookMessageSchema } },
  errors: ['AUTH002', 'WH404', 'WHD404', 'WH103'],
  async handler(ctx) {
    const subscription = await subscriptionFor(ctx, ctx.params.id, 'WEBHOOK_MANAGE');
    const delivery = await loadDelivery(ctx, subscription.id, ctx.params.deliveryId);
    const [message] = await ctx.em.execute<
      { id: string; webhook_id: string; event_type: string; attempts: number }[]
    >(
      `select d.id, d.webhook_id, o.event_type, d.attempts from webhook_dispatch d
       join webhook_outbox o on o.id = d.outbox_id where d.tenant_id = ? and d.id = ?`,
      [ctx.tenant, delivery.dispatch.id],
    );
    if (!message || !(await redeliverWebhookMessage(ctx.em, ctx.tenant, message.id)))
      throw new DomainError('WH103', 'the message is still waiting for delivery');
    if (subscription.active) await wakeDispatcher(ctx, subscription.id);
    return {
      status: 202 as const,
      body: {
        webhookId: message.webhook_id,
        eventType: message.event_type,
        state: 'PENDING' as const,
        attempts: message.attempts,
      },
    };
  },
});

export const webhookDeliveryRoutes = [listWebhookDeliveries, redeliverWebhook];
