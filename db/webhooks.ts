// The platform webhooks' reads and writes (docs/webhooks.md): fanning the outbox out to subscriptions,
// the messages due for delivery (only the oldest pending message of each entity), recording an attempt,
// redelivery, and the sweep's look at what is waiting. Raw SQL names the tenant explicitly.
import type { EntityManager } from '@mikro-orm/postgresql';
import { branchWithDescendants } from './branches.js';
import { preparedRows } from './prepared.js';
import { webhookMessageId } from '../domain/webhooks.js';

/** How many outbox rows one fan-out step takes. */
const FAN_OUT_BATCH = 500;

interface OutboxRow {
  id: string;
  event_id: string;
  event_type: string;
  entity_key: string;
  branch_id: number | null;
  occurred_at: Date;
}

interface SubscriptionRow {
  id: number;
  event_types: string[];
  branch_id: number | null;
  created_at: Date;
}

/**
 * Turns a batch of the tenant's outbox rows not yet fanned out into one message (webhook_dispatch) per
 * matching active subscription — its event type subscribed, its branch inside the scope, the event not
 * older than the subscription — and marks them fanned out, in one transaction; concurrent callers skip
 * each other's rows. Returns the subscriptions that got messages and whether rows are left.
 */
export async function fanOutWebhookOutbox(
  em: EntityManager,
  tenant: string,
  now: Date,
): Promise<{ subscriptionIds: number[]; more: boolean }> {
  return em.transactional(async (tx) => {
    const rows = await tx.execute<OutboxRow[]>(
      `select id, event_id, event_type, entity_key, branch_id, occurred_at from webhook_outbox
       where tenant_id = ? and fanned_out_at is null order by id limit ? for update skip locked`,
      [tenant, FAN_OUT_BATCH],
    );
    if (rows.length === 0) return { subscriptionIds: [], more: false };
    const subscriptions = await tx.execute<SubscriptionRow[]>(
      `select id, event_types, branch_id, created_at from webhook_subscription
       where tenant_id = ? and active order by id`,
      [tenant],
    );
    const scopes = new Map<number, Set<number>>();
    for (const subscription of subscriptions)
      if (subscription.branch_id !== null && !scopes.has(subscription.branch_id))
        scopes.set(
          subscription.branch_id,
          new Set(await branchWithDescendants(tx, tenant, subscription.branch_id)),
        );
    const messages = {
      outbox: [] as string[],
      subscription: [] as number[],
      webhookId: [] as string[],
      entity: [] as string[],
    };
    const reached = new Set<number>();
    for (const row of rows)
      for (const subscription of subscriptions) {
        if (!subscription.event_types.includes(row.event_type)) continue;
        if (new Date(subscription.created_at) > new Date(row.occurred_at)) continue;
        if (subscription.branch_id !== null) {
          if (row.branch_id === null || !scopes.get(subscription.branch_id)!.has(row.branch_id)) continue;
        }
        messages.outbox.push(row.id);
        messages.subscription.push(subscription.id);
        messages.webhookId.push(webhookMessageId(subscription.id, row.event_id));
        messages.entity.push(row.entity_key);
        reached.add(subscription.id);
      }
    if (messages.outbox.length)
      await preparedRows(
        tx,
        `insert into webhook_dispatch
           (tenant_id, outbox_id, subscription_id, webhook_id, entity_key, state, attempts,
            failures_since_redelivery, next_attempt_at, created_at)
         select $1, m.outbox_id, m.subscription_id, m.webhook_id, m.entity_key, 'PENDING', 0, 0, $6, now()
         from unnest($2::bigint[], $3::int[], $4::text[], $5::text[])
           as m(outbox_id, subscription_id, webhook_id, entity_key)
         order by m.outbox_id
         on conflict (outbox_id, subscription_id) do nothing`,
        [tenant, messages.outbox, messages.subscription, messages.webhookId, messages.entity, now],
      );
    await preparedRows(
      tx,
      `update webhook_outbox set fanned_out_at = now() where tenant_id = $1 and id = any($2::bigint[])`,
      [tenant, rows.map((row) => row.id)],
    );
    return { subscriptionIds: [...reached], more: rows.length === FAN_OUT_BATCH };
  });
}

/** One message due for delivery, with its event. */
export interface DueWebhookMessage {
  dispatch_id: string;
  webhook_id: string;
  entity_key: string;
  attempts: number;
  failures_since_redelivery: number;
  event_id: string;
  type: string;
  created_at: Date;
  branch_id: number | null;
  vehicle_id: number | null;
  rental_id: number | null;
  booking_id: number | null;
  customer_id: number | null;
  payload: Record<string, unknown> | null;
}

/**
 * Of one subscription's pending messages of each entity the oldest, when due at `now`: the next to send
 * (one pass over the pending rows — `distinct on` — whatever the planner knows of the table).
 */
export function dueWebhookMessages(
  em: EntityManager,
  tenant: string,
  subscriptionId: number,
  now: Date,
  limit: number,
): Promise<DueWebhookMessage[]> {
  return preparedRows<DueWebhookMessage>(
    em,
    `with heads as (
       select distinct on (d.entity_key) d.id, d.outbox_id, d.webhook_id, d.entity_key, d.attempts,
              d.failures_since_redelivery, d.next_attempt_at
       from webhook_dispatch d
       where d.tenant_id = $1 and d.subscription_id = $2 and d.state = 'PENDING'
       order by d.entity_key, d.outbox_id)
     select h.id as dispatch_id, h.webhook_id, h.entity_key, h.attempts, h.failures_since_redelivery,
            e.id as event_id, e.type, e.created_at, e.branch_id, e.vehicle_id, e.rental_id, e.booking_id,
            e.customer_id, e.payload
     from heads h
     join webhook_outbox o on o.id = h.outbox_id
     join event e on e.id = o.event_id and e.created_at = o.event_created_at
     where h.next_attempt_at <= $3
     order by h.outbox_id limit $4`,
    [tenant, subscriptionId, now, limit],
  );
}

/** When the subscription's next message falls due (the oldest pending of each entity), or null when none waits. */
export async function nextWebhookDueAt(
  em: EntityManager,
  tenant: string,
  subscriptionId: number,
): Promise<Date | null> {
  const [row] = await preparedRows<{ due: Date | null }>(
    em,
    `select min(h.next_attempt_at) as due from (
       select distinct on (d.entity_key) d.next_attempt_at from webhook_dispatch d
       where d.tenant_id = $1 and d.subscription_id = $2 and d.state = 'PENDING'
       order by d.entity_key, d.outbox_id) h`,
    [tenant, subscriptionId],
  );
  return row?.due ? new Date(row.due) : null;
}

/** One attempt's outcome, as `recordWebhookAttempt` writes it. */
export interface WebhookAttempt {
  tenant: string;
  subscriptionId: number;
  dispatchId: string;
  attempt: number;
  success: boolean;
  httpStatus: number | null;
  error: string | null;
  responseExcerpt: string | null;
  signedAt: number;
  startedAt: Date;
  durationMs: number;
  /** The message's state after the attempt. */
  state: 'PENDING' | 'DELIVERED' | 'FAILED';
  failuresSinceRedelivery: number;
  nextAttemptAt: Date | null;
  manual: boolean;
}

/**
 * Records one attempt (a webhook_delivery row, unique per message and attempt) and the message's new
 * state in one statement; an attempt recorded before (a retried activity) changes nothing. True when
 * this call recorded it.
 */
export async function recordWebhookAttempt(em: EntityManager, attempt: WebhookAttempt): Promise<boolean> {
  const rows = await preparedRows<{ id: string }>(
    em,
    `with delivery as (
       insert into webhook_delivery
         (tenant_id, dispatch_id, subscription_id, attempt, success, http_status, error, response_excerpt,
          signed_at, started_at, duration_ms, next_attempt_at, manual)
       values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)
       on conflict (dispatch_id, attempt) do nothing
       returning id)
     update webhook_dispatch set attempts = $4, state = $14, failures_since_redelivery = $15,
       next_attempt_at = coalesce($12, next_attempt_at),
       finished_at = case when $14 = 'PENDING' then null else now() end
     where tenant_id = $1 and id = $2 and exists (select 1 from delivery)
     returning id`,
    [
      attempt.tenant,
      attempt.dispatchId,
      attempt.subscriptionId,
      attempt.attempt,
      attempt.success,
      attempt.httpStatus,
      attempt.error?.replaceAll('\u0000', '').slice(0, 1000) ?? null,
      attempt.responseExcerpt?.replaceAll('\u0000', '').slice(0, 1000) ?? null,
      attempt.signedAt,
      attempt.startedAt,
      attempt.durationMs,
      attempt.nextAttemptAt,
      attempt.manual,
      attempt.state,
      attempt.failuresSinceRedelivery,
    ],
  );
  return rows.length > 0;
}

/**
 * Queues a delivered or given-up message again with a fresh retry budget (the attempt count goes on):
 * false when it is still pending (WH103).
 */
export async function redeliverWebhookMessage(
  em: EntityManager,
  tenant: string,
  dispatchId: string,
): Promise<boolean> {
  const rows = await em.execute<{ id: string }[]>(
    `update webhook_dispatch set state = 'PENDING', failures_since_redelivery = 0, next_attempt_at = now(),
       finished_at = null
     where tenant_id = ? and id = ? and state <> 'PENDING' returning id`,
    [tenant, dispatchId],
  );
  return rows.length > 0;
}

/** What the sweep finds waiting: active subscriptions whose tenant has outbox rows to fan out or which have messages due. */
export async function subscriptionsWithWork(
  em: EntityManager,
  now: Date,
): Promise<{ tenant_id: string; id: number }[]> {
  return em.execute(
    `select s.tenant_id, s.id from webhook_subscription s
     where s.active and (
       exists (select 1 from webhook_outbox o where o.tenant_id = s.tenant_id and o.fanned_out_at is null)
       or exists (select 1 from webhook_dispatch d
                  where d.subscription_id = s.id and d.state = 'PENDING' and d.next_attempt_at <= ?))
     order by s.id limit 10000`,
    [now],
  );
}

/** Active subscriptions (all tenants, or one): the dispatchers that should run. */
export async function activeWebhookSubscriptions(
  em: EntityManager,
  tenant?: string,
): Promise<{ tenant_id: string; id: number }[]> {
  return em.execute(
    `select tenant_id, id from webhook_subscription where active and (?::text is null or tenant_id = ?)
     order by id limit 10000`,
    [tenant ?? null, tenant ?? null],
  );
}

/**
 * Marks the outbox rows of tenants without an active subscription as fanned out (nothing wants them;
 * a subscription receives only events recorded after it was created), and deletes outbox rows fanned
 * out over `retentionDays` ago that no message refers to. Returns how many rows it touched.
 */
export async function settleUnwantedOutboxRows(em: EntityManager, retentionDays = 7): Promise<number> {
  const settled = await em.execute<{ id: string }[]>(
    `update webhook_outbox o set fanned_out_at = now()
     where o.fanned_out_at is null
       and not exists (select 1 from webhook_subscription s where s.tenant_id = o.tenant_id and s.active)
     returning o.id`,
  );
  const deleted = await em.execute<{ id: string }[]>(
    `delete from webhook_outbox o
     where o.fanned_out_at < now() - make_interval(days => ?)
       and not exists (select 1 from webhook_dispatch d where d.outbox_id = o.id)
     returning o.id`,
    [retentionDays],
  );
  return settled.length + deleted.length;
}
