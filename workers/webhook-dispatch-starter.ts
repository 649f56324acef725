// Keeps the platform webhook dispatchers running and awake. It LISTENs on PostgreSQL's
// `fleetflow_webhook_outbox` channel, which the outbox's trigger notifies when outbox rows commit, and
// wakes the dispatcher workflow of each active subscription of that tenant (signal-with-start, so a
// dispatcher that is not running starts). A sweep every `intervalMs` covers what a lost notification or a
// reset Temporal server would leave waiting, and settles outbox rows no subscription wants.
import type { Client } from '@temporalio/client';
import type { MikroORM } from '@mikro-orm/postgresql';
import {
  activeWebhookSubscriptions,
  settleUnwantedOutboxRows,
  subscriptionsWithWork,
} from '../db/webhooks.js';
import {
  WEBHOOK_DISPATCHER_WORKFLOW_TYPE,
  webhookDispatcherSignalWithStart,
} from '../workflows/webhooks.messages.js';

/** The notification channel of the outbox trigger (db/entities/WebhookOutbox.ts). */
export const WEBHOOK_OUTBOX_CHANNEL = 'fleetflow_webhook_outbox';

/** The little of a `pg` client the listener uses (the project has no @types/pg). */
interface ListeningClient {
  connect(): Promise<void>;
  query(text: string): Promise<unknown>;
  end(): Promise<void>;
  on(event: 'notification', listener: (message: { channel: string; payload?: string }) => void): void;
  on(event: 'error', listener: (error: Error) => void): void;
}

/** Starts (if needed) and wakes the dispatcher of each subscription; returns how many it woke. */
export async function wakeWebhookDispatchers(
  temporal: { client: Client; taskQueue: string },
  subscriptions: readonly { tenant_id: string; id: number }[],
): Promise<number> {
  await Promise.all(
    subscriptions.map((subscription) =>
      temporal.client.workflow.signalWithStart(
        WEBHOOK_DISPATCHER_WORKFLOW_TYPE,
        webhookDispatcherSignalWithStart(
          { tenant: subscription.tenant_id, subscriptionId: subscription.id },
          temporal.taskQueue,
        ),
      ),
    ),
  );
  return subscriptions.length;
}

/** The running starter: `stop()` closes the listener and the sweep. */
export interface WebhookDispatchStarter {
  stop(): Promise<void>;
  /** Resolves once the listener is listening. */
  ready: Promise<void>;
}

/** Runs the listener and the sweep (now and every `intervalMs`). Failures are logged, not thrown. */
export function runWebhookDispatchStarter(
  orm: MikroORM,
  temporal: { client: Client; taskQueue: string },
  options: {
    intervalMs: number;
    /** Only these tenants' subscriptions (WORKER_STARTER_TENANTS); all when absent. */
    tenants?: readonly string[];
    log: (message: string, error?: unknown) => void;
  },
): WebhookDispatchStarter {
  const mine = (tenant: string) => !options.tenants || options.tenants.includes(tenant);
  let stopped = false;
  let listener: ListeningClient | undefined;
  const pendingTenants = new Set<string>();
  let wakeTimer: NodeJS.Timeout | undefined;

  const wakeTenants = async () => {
    wakeTimer = undefined;
    const tenants = [...pendingTenants];
    pendingTenants.clear();
    for (const tenant of tenants) {
      try {
        await wakeWebhookDispatchers(temporal, await activeWebhookSubscriptions(orm.em.fork(), tenant));
      } catch (error) {
        options.log(`waking the webhook dispatchers of ${tenant} failed`, error);
      }
    }
  };
  // Notifications of one burst of commits wake each tenant's dispatchers once.
  const onNotification = (tenant: string | undefined) => {
    if (!tenant || stopped || !mine(tenant)) return;
    pendingTenants.add(tenant);
    wakeTimer ??= setTimeout(() => void wakeTenants(), 20);
  };

  const listen = async (): Promise<void> => {
    const pool = (await orm.em.getConnection().getNativeClient()) as unknown as {
      Client: new (options: unknown) => ListeningClient;
      options: unknown;
    };
    const client = new pool.Client(pool.options);
    client.on('notification', (message) => onNotification(message.payload));
    client.on('error', (error) => {
      options.log('the webhook outbox listener lost its connection; reconnecting', error);
      if (listener === client) listener = undefined;
      void client.end().catch(() => undefined);
      if (!stopped) setTimeout(() => void listen().catch(() => undefined), 2_000).unref();
    });
    await client.connect();
    await client.query(`listen ${WEBHOOK_OUTBOX_CHANNEL}`);
    if (stopped) await client.end();
    else listener = client;
  };
  const ready = listen().catch((error) => {
    options.log('the webhook outbox listener could not start; the sweep still runs', error);
  });

  let running = false;
  let first = true;
  const tick = async () => {
    if (running || stopped) return;
    running = true;
    try {
      const em = orm.em.fork();
      await settleUnwantedOutboxRows(em);
      // At the first pass every active subscription's dispatcher, later those with work waiting.
      const subscriptions = (
        first ? await activeWebhookSubscriptions(em) : await subscriptionsWithWork(em, new Date())
      ).filter((subscription) => mine(subscription.tenant_id));
      first = false;
      const woken = await wakeWebhookDispatchers(temporal, subscriptions);
      if (woken > 0) options.log(`woke ${woken} webhook dispatcher(s)`);
    } catch (error) {
      options.log('the webhook dispatch sweep failed', error);
    } finally {
      running = false;
    }
  };
  void tick();
  const timer = setInterval(() => void tick(), options.intervalMs);
  timer.unref();
  return {
    ready,
    async stop() {
      stopped = true;
      clearInterval(timer);
      if (wakeTimer) clearTimeout(wakeTimer);
      await ready;
      await listener?.end().catch(() => undefined);
      listener = undefined;
    },
  };
}
