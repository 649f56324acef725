// The payment gateway adapters of a process (API and worker alike), from the configuration; the sandbox
// keeps its book in the application's PostgreSQL.
import type { MikroORM } from '@mikro-orm/postgresql';
import type { FleetflowConfig } from '../platform/config.js';
import { createPaymentGateways, type SqlRunner } from '../platform/payment-gateway/index.js';
import type { PaymentGateways } from '../platform/payment-gateway/port.js';

/** The adapters for this configuration. */
export function paymentGatewaysFor(
  orm: MikroORM,
  config: Pick<
    FleetflowConfig,
    | 'stripeSecretKey'
    | 'stripeApiBase'
    | 'stripeWebhookSecret'
    | 'sandboxWebhookSecret'
    | 'sandboxGatewayTimeoutMs'
    | 'publicBaseUrl'
  >,
): PaymentGateways {
  const sql: SqlRunner = async <Row>(text: string, params: readonly unknown[] = []) =>
    (await orm.em.getConnection().execute(text, [...params])) as Row[];
  return createPaymentGateways({
    sql,
    sandboxWebhookSecret: config.sandboxWebhookSecret,
    sandboxTimeoutMs: config.sandboxGatewayTimeoutMs,
    publicBaseUrl: config.publicBaseUrl,
    stripeSecretKey: config.stripeSecretKey,
    stripeApiBase: config.stripeApiBase,
    stripeWebhookSecret: config.stripeWebhookSecret,
  });
}
