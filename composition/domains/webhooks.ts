import { WebhookSubscription } from '../../db/entities/WebhookSubscription.js';
import { WebhookSigningSecret } from '../../db/entities/WebhookSigningSecret.js';
import { WebhookOutbox } from '../../db/entities/WebhookOutbox.js';
import { WebhookDispatch } from '../../db/entities/WebhookDispatch.js';
import { WebhookDelivery } from '../../db/entities/WebhookDelivery.js';
import { Migration20261125035257_webhooks } from '../../db/migrations/Migration20261125035257_webhooks.js';
import { Migration20261125042741_webhooks_notify } from '../../db/migrations/Migration20261125042741_webhooks_notify.js';
import { webhookSubscriptionRoutes } from '../../api/routes/back/webhook-subscriptions.js';
import { webhookDeliveryRoutes } from '../../api/routes/back/webhook-deliveries.js';
import { createWebhookActivities } from '../../activities/webhooks.js';
import { webhookErrors } from '../../domain/webhooks.errors.js';
import { defineDomain } from './domain.js';

/**
 * Platform webhooks (docs/webhooks.md): operators' subscriptions to domain events, a transactional outbox
 * written with the events (db/events.ts), one dispatcher workflow per active subscription delivering
 * each entity's messages in order with HMAC-SHA1 signatures and retries, every attempt listed.
 */
export const webhookDomain = defineDomain({
  name: 'webhooks',
  errors: webhookErrors,
  entities: [WebhookSubscription, WebhookSigningSecret, WebhookOutbox, WebhookDispatch, WebhookDelivery],
  migrations: [Migration20261125035257_webhooks, Migration20261125042741_webhooks_notify],
  permissions: { operational: ['WEBHOOK_READ', 'WEBHOOK_MANAGE'] },
  // The deliveries' paths (/webhook-subscriptions/{id}/deliveries…) are longer than the subscription's.
  routes: [...webhookSubscriptionRoutes, ...webhookDeliveryRoutes],
  activities: createWebhookActivities,
  workflows: new URL('../../workflows/webhooks.ts', import.meta.url),
});
