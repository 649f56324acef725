// Platform webhook subscriptions (docs/webhooks.md): reading needs WEBHOOK_READ, changing WEBHOOK_MANAGE,
// on the subscription's branch scope, or on every top-level branch for a tenant-wide subscription
// (it receives every branch's events). The signing secret is answered
// only by the create and rotate calls. Creating or activating a subscription starts its dispatcher.
import { Type, type Static } from '@sinclair/typebox';
import { Branch } from '../../../db/entities/Branch.js';
import { WebhookSigningSecret } from '../../../db/entities/WebhookSigningSecret.js';
import { WebhookSubscription } from '../../../db/entities/WebhookSubscription.js';
import { DomainError } from '../../../domain/errors.js';
import {
  WEBHOOK_SECRET_ROTATION_GRACE_MS,
  WEBHOOK_SUBSCRIPTIONS_PER_TENANT,
  webhookEventTypes,
} from '../../../domain/webhooks.js';
import { newWebhookSecret, webhookTargetRefusal } from '../../../platform/webhook-http.js';
import {
  WEBHOOK_DISPATCHER_WORKFLOW_TYPE,
  webhookDispatcherSignalWithStart,
  webhookDispatcherWorkflowId,
} from '../../../workflows/webhooks.messages.js';
import { authorizeTenantWide } from '../../authorization.js';
import { created, defineRoute, noContent, ok, type RouteContext } from '../../kernel/route.js';
import { component, DateTime, Id, Nullable, Str, StringEnum } from '../../kernel/schemas.js';

const tags = ['Webhooks'];

/**
 * Who may read a subscription and its deliveries: WEBHOOK_READ on its branch scope (grants on ancestors
 * count), or over the whole tenant (every top-level branch) for a subscription without a scope.
 */
export const webhookReadAccess = {
  anyCaller:
    "the handler requires WEBHOOK_READ on the subscription's branch, or on every top-level branch for a subscription without branch scope",
};
/** Who may change one: WEBHOOK_MANAGE, scoped the same way. */
export const webhookManageAccess = {
  anyCaller:
    "the handler requires WEBHOOK_MANAGE on the subscription's branch, or on every top-level branch for a subscription without branch scope",
};

/** Refuses (AUTH002) a caller holding `permission` on no branch of the tenant: nothing is shown to them. */
export async function requireAnywhere(ctx: RouteContext, permission: string): Promise<void> {
  if (!(await ctx.holds({ permission })))
    throw new DomainError('AUTH002', `missing permission ${permission}`);
}

/**
 * The permission on a subscription's scope: its branch (ancestors count), or every top-level branch when
 * it has none, since it then receives the events of the whole tenant.
 */
export async function authorizeScope(
  ctx: RouteContext,
  permission: string,
  branchId: number | null | undefined,
): Promise<void> {
  if (branchId == null) await authorizeTenantWide(ctx, permission);
  else await ctx.authorize(permission, { branchId });
}

/** The subscription of the path with `permission` on its scope: WH404 (the caller holds it somewhere) or AUTH002. */
export async function subscriptionFor(
  ctx: RouteContext,
  id: number,
  permission: string,
): Promise<WebhookSubscription> {
  await requireAnywhere(ctx, permission);
  const subscription = await loadSubscription(ctx, id);
  await authorizeScope(ctx, permission, subscription.branchId);
  return subscription;
}

const EventType = StringEnum(webhookEventTypes, { description: 'A platform webhook event type.' });
const WebhookUrl = Str(2000, {
  minLength: 8,
  description:
    'Absolute http or https URL without credentials or fragment; private, loopback and link-local hosts are refused (WH101) unless the deployment sets WEBHOOK_ALLOW_PRIVATE_TARGETS.',
});

export const WebhookSubscriptionSchema = component(
  'WebhookSubscription',
  Type.Object(
    {
      id: Id(),
      url: Type.String(),
      eventTypes: Type.Array(Type.String()),
      branchId: Nullable(Id()),
      active: Type.Boolean(),
      description: Nullable(Type.String()),
      createdBy: Type.String(),
      createdAt: DateTime(),
      updatedAt: DateTime(),
      secretRotatedAt: Nullable(DateTime()),
      dispatcherWorkflowId: Type.String({ description: 'The Temporal workflow delivering its messages.' }),
    },
    { additionalProperties: false },
  ),
);

const WebhookSecretSchema = component(
  'WebhookSigningSecret',
  Type.Object(
    {
      signingSecret: Type.String({
        description:
          'The HMAC-SHA1 key (its UTF-8 bytes, prefix included). Shown only here: store it now (docs/webhooks.md).',
      }),
      previousSecretValidUntil: Nullable(
        DateTime({ description: 'Until when messages are also signed with the previous secret.' }),
      ),
    },
    { additionalProperties: false },
  ),
);

const WebhookSubscriptionCreated = component(
  'WebhookSubscriptionCreated',
  Type.Object(
    { ...WebhookSubscriptionSchema.properties, ...WebhookSecretSchema.properties },
    { additionalProperties: false },
  ),
);

type SubscriptionDto = Static<typeof WebhookSubscriptionSchema>;

async function toDto(ctx: RouteContext, subscription: WebhookSubscription): Promise<SubscriptionDto> {
  const secret = await ctx.em.findOne(WebhookSigningSecret, { subscription: subscription.id });
  return {
    id: subscription.id,
    url: subscription.url,
    eventTypes: subscription.eventTypes,
    branchId: subscription.branchId ?? null,
    active: subscription.active,
    description: subscription.description ?? null,
    createdBy: subscription.createdBy,
    createdAt: subscription.createdAt.toISOString(),
    updatedAt: subscription.updatedAt.toISOString(),
    secretRotatedAt: secret?.rotatedAt?.toISOString() ?? null,
    dispatcherWorkflowId: webhookDispatcherWorkflowId(ctx.tenant, subscription.id),
  };
}

/** The subscription of the path, in the caller's tenant (WH404). */
export async function loadSubscription(ctx: RouteContext, id: number): Promise<WebhookSubscription> {
  const subscription = await ctx.em.findOne(WebhookSubscription, id);
  if (!subscription) throw new DomainError('WH404', `webhook subscription ${id} not found`);
  return subscription;
}

function assertTarget(url: string): void {
  const refusal = webhookTargetRefusal(url);
  if (refusal) throw new DomainError(refusal.code, refusal.reason);
}

async function assertBranch(ctx: RouteContext, branchId: number | null | undefined): Promise<void> {
  if (branchId == null) return;
  if (!(await ctx.em.count(Branch, { id: branchId })))
    throw new DomainError('WH102', `branch ${branchId} not found`);
}

/**
 * Starts (or wakes) the subscription's dispatcher. When Temporal cannot be reached the worker's sweep
 * starts it within its interval, so the request still succeeds.
 */
export async function wakeDispatcher(ctx: RouteContext, subscriptionId: number): Promise<void> {
  try {
    await ctx.services.temporal.workflow.signalWithStart(
      WEBHOOK_DISPATCHER_WORKFLOW_TYPE,
      webhookDispatcherSignalWithStart({ tenant: ctx.tenant, subscriptionId }, ctx.services.taskQueue),
    );
  } catch {
    // The sweep (workers/webhook-dispatch-starter.ts) starts every active subscription's dispatcher.
  }
}

const SubscriptionParams = Type.Object({ id: Id() });
const EventTypes = Type.Array(EventType, {
  minItems: 1,
  maxItems: webhookEventTypes.length,
  uniqueItems: true,
});

export const listWebhookSubscriptions = defineRoute({
  operationId: 'listWebhookSubscriptions',
  method: 'get',
  path: '/webhook-subscriptions',
  interface: 'back',
  summary: "The tenant's platform webhook subscriptions, newest first",
  tags,
  query: Type.Object({ active: Type.Optional(Type.Boolean()) }),
  paged: { defaultSize: 50 },
  access: webhookReadAccess,
  responses: {
    200: { description: 'One page of subscriptions', schema: Type.Array(WebhookSubscriptionSchema) },
  },
  errors: ['AUTH002'],
  async handler(ctx) {
    await requireAnywhere(ctx, 'WEBHOOK_READ');
    // At most WEBHOOK_SUBSCRIPTIONS_PER_TENANT rows: filtered by the caller's grants, then paged.
    const rows = await ctx.em.find(
      WebhookSubscription,
      ctx.query.active === undefined ? {} : { active: ctx.query.active },
      { orderBy: { id: 'desc' } },
    );
    const visible: WebhookSubscription[] = [];
    for (const row of rows) {
      const allowed = await authorizeScope(ctx, 'WEBHOOK_READ', row.branchId).then(
        () => true,
        () => false,
      );
      if (allowed) visible.push(row);
    }
    const page = visible.slice(ctx.page.offset, ctx.page.offset + ctx.page.size);
    return ok(await Promise.all(page.map((row) => toDto(ctx, row))), { total: visible.length });
  },
});

const CreateBody = Type.Object(
  {
    url: WebhookUrl,
    eventTypes: EventTypes,
    branchId: Type.Optional(
      Nullable(Id({ description: 'Only events of this branch and its descendants; null or absent: all.' })),
    ),
    active: Type.Optional(Type.Boolean({ description: 'Default true.' })),
    description: Type.Optional(Nullable(Str(500))),
  },
  { additionalProperties: false },
);

export const createWebhookSubscription = defineRoute({
  operationId: 'createWebhookSubscription',
  method: 'post',
  path: '/webhook-subscriptions',
  interface: 'back',
  summary: 'Subscribe an endpoint to platform webhooks; answers its signing secret once',
  description:
    'The subscription receives events recorded from now on. Its signing secret is in this answer only (rotate it with POST /webhook-subscriptions/{id}/secret/rotate).',
  tags,
  body: component('WebhookSubscriptionCreate', CreateBody),
  access: webhookManageAccess,
  responses: {
    201: { description: 'The subscription and its signing secret', schema: WebhookSubscriptionCreated },
  },
  errors: ['AUTH002', 'B404', 'WH100', 'WH101', 'WH102', 'WH104'],
  async handler(ctx) {
    await requireAnywhere(ctx, 'WEBHOOK_MANAGE');
    assertTarget(ctx.body.url);
    await assertBranch(ctx, ctx.body.branchId);
    await authorizeScope(ctx, 'WEBHOOK_MANAGE', ctx.body.branchId);
    if ((await ctx.em.count(WebhookSubscription, {})) >= WEBHOOK_SUBSCRIPTIONS_PER_TENANT)
      throw new DomainError('WH104', `at most ${WEBHOOK_SUBSCRIPTIONS_PER_TENANT} subscriptions per tenant`);
    const subscription = ctx.em.create(WebhookSubscription, {
      url: ctx.body.url,
      eventTypes: ctx.body.eventTypes,
      branchId: ctx.body.branchId ?? null,
      active: ctx.body.active ?? true,
      description: ctx.body.description ?? null,
      createdBy: ctx.actor,
    });
    const secret = ctx.em.create(WebhookSigningSecret, { subscription, secret: newWebhookSecret() });
    await ctx.em.flush();
    if (subscription.active) await wakeDispatcher(ctx, subscription.id);
    return created(
      { ...(await toDto(ctx, subscription)), signingSecret: secret.secret, previousSecretValidUntil: null },
      { Location: `${ctx.baseUrl}/webhook-subscriptions/${subscription.id}` },
    );
  },
});

export const getWebhookSubscription = defineRoute({
  operationId: 'getWebhookSubscription',
  method: 'get',
  path: '/webhook-subscriptions/{id}',
  interface: 'back',
  summary: 'One platform webhook subscription (without its secret)',
  tags,
  params: SubscriptionParams,
  access: webhookReadAccess,
  responses: { 200: { description: 'The subscription', schema: WebhookSubscriptionSchema } },
  errors: ['AUTH002', 'WH404'],
  async handler(ctx) {
    return ok(await toDto(ctx, await subscriptionFor(ctx, ctx.params.id, 'WEBHOOK_READ')));
  },
});

export const updateWebhookSubscription = defineRoute({
  operationId: 'updateWebhookSubscription',
  method: 'patch',
  path: '/webhook-subscriptions/{id}',
  interface: 'back',
  summary: 'Change, pause (active false) or resume a platform webhook subscription',
  description:
    'A paused subscription receives nothing recorded while it is paused; its pending messages wait until it is resumed.',
  tags,
  params: SubscriptionParams,
  body: component(
    'WebhookSubscriptionUpdate',
    Type.Partial(CreateBody, { additionalProperties: false, minProperties: 1 }),
  ),
  access: webhookManageAccess,
  responses: { 200: { description: 'The subscription', schema: WebhookSubscriptionSchema } },
  errors: ['AUTH002', 'B404', 'WH404', 'WH100', 'WH101', 'WH102'],
  async handler(ctx) {
    const subscription = await subscriptionFor(ctx, ctx.params.id, 'WEBHOOK_MANAGE');
    const { body } = ctx;
    if (body.url !== undefined) {
      assertTarget(body.url);
      subscription.url = body.url;
    }
    if (body.branchId !== undefined) {
      await assertBranch(ctx, body.branchId);
      await authorizeScope(ctx, 'WEBHOOK_MANAGE', body.branchId);
      subscription.branchId = body.branchId;
    }
    if (body.eventTypes !== undefined) subscription.eventTypes = body.eventTypes;
    if (body.description !== undefined) subscription.description = body.description;
    if (body.active !== undefined) subscription.active = body.active;
    subscription.updatedAt = new Date();
    await ctx.em.flush();
    // A running dispatcher reads the change at its next step; an activated one starts.
    if (subscription.active) await wakeDispatcher(ctx, subscription.id);
    return ok(await toDto(ctx, subscription));
  },
});

export const deleteWebhookSubscription = defineRoute({
  operationId: 'deleteWebhookSubscription',
  method: 'delete',
  path: '/webhook-subscriptions/{id}',
  interface: 'back',
  summary: 'Delete a platform webhook subscription, its secret, messages and delivery log',
  tags,
  params: SubscriptionParams,
  access: webhookManageAccess,
  responses: { 204: { description: 'Deleted' } },
  errors: ['AUTH002', 'WH404'],
  async handler(ctx) {
    const subscription = await subscriptionFor(ctx, ctx.params.id, 'WEBHOOK_MANAGE');
    // The foreign keys cascade to the secret, the messages and their attempts.
    await ctx.em.nativeDelete(WebhookSubscription, { id: subscription.id });
    // Its dispatcher finds it gone at its next step and ends.
    await wakeDispatcher(ctx, subscription.id);
    return noContent();
  },
});

export const rotateWebhookSecret = defineRoute({
  operationId: 'rotateWebhookSecret',
  method: 'post',
  path: '/webhook-subscriptions/{id}/secret/rotate',
  interface: 'back',
  summary: 'Issue a new signing secret; the previous one keeps signing beside it for 24 hours',
  description:
    'Messages sent in the next 24 hours carry two signatures (new and previous secret) in x-webhook-signature, so a receiver can switch without losing messages. The new secret is in this answer only.',
  tags,
  params: SubscriptionParams,
  access: webhookManageAccess,
  responses: { 200: { description: 'The new secret', schema: WebhookSecretSchema } },
  errors: ['AUTH002', 'WH404'],
  async handler(ctx) {
    const subscription = await subscriptionFor(ctx, ctx.params.id, 'WEBHOOK_MANAGE');
    const secret = await ctx.em.findOneOrFail(WebhookSigningSecret, { subscription: subscription.id });
    const now = new Date();
    secret.previousSecret = secret.secret;
    secret.previousUntil = new Date(now.getTime() + WEBHOOK_SECRET_ROTATION_GRACE_MS);
    secret.secret = newWebhookSecret();
    secret.rotatedAt = now;
    await ctx.em.flush();
    return ok({ signingSecret: secret.secret, previousSecretValidUntil: secret.previousUntil.toISOString() });
  },
});

export const webhookSubscriptionRoutes = [
  listWebhookSubscriptions,
  createWebhookSubscription,
  getWebhookSubscription,
  updateWebhookSubscription,
  deleteWebhookSubscription,
  rotateWebhookSecret,
];
