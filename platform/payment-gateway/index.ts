// Chooses the payment gateway adapters of a deployment: the sandbox always (the default unless Stripe is
// configured), Stripe when STRIPE_SECRET_KEY is set (then the default for new payments; payments made
// through the sandbox keep using it by name).
import type { PaymentGateway, PaymentGateways } from './port.js';
import { SandboxGateway } from './sandbox-setups.js';
import { StripeGateway } from './stripe.js';
import type { SqlRunner } from './sql-runner.js';

export type { SqlRunner } from './sql-runner.js';

export interface PaymentGatewayOptions {
  sql: SqlRunner;
  /** Secret of the sandbox's signed webhooks (standardwebhooks, `whsec_…`). */
  sandboxWebhookSecret: string;
  /** How long the sandbox's `timeout` token keeps a first call waiting. */
  sandboxTimeoutMs: number;
  /** Where the app is reachable (PUBLIC_BASE_URL): the sandbox's 3-D Secure pages are served there. */
  publicBaseUrl: string;
  stripeSecretKey?: string;
  /** Base URL of the Stripe API: stripe-mock in tests. */
  stripeApiBase?: string;
  stripeWebhookSecret?: string;
}

/** The adapters of a deployment, with the sandbox reachable as such (its challenge page and disputes). */
export interface ConfiguredPaymentGateways extends PaymentGateways {
  readonly sandbox: SandboxGateway;
  readonly stripe: StripeGateway | undefined;
}

/** The adapters for these options: the sandbox always, Stripe when a secret key is set (and then the default). */
export function createPaymentGateways(options: PaymentGatewayOptions): ConfiguredPaymentGateways {
  const sandbox = new SandboxGateway({
    sql: options.sql,
    webhookSecret: options.sandboxWebhookSecret,
    timeoutMs: options.sandboxTimeoutMs,
    publicBaseUrl: options.publicBaseUrl,
  });
  const stripe = options.stripeSecretKey
    ? new StripeGateway({
        secretKey: options.stripeSecretKey,
        apiBase: options.stripeApiBase,
        webhookSecret: options.stripeWebhookSecret,
        returnUrl: options.publicBaseUrl,
      })
    : undefined;
  const adapters = new Map<string, PaymentGateway>([[sandbox.name, sandbox]]);
  if (stripe) adapters.set(stripe.name, stripe);
  return {
    default: stripe ?? sandbox,
    byName: (name) => adapters.get(name),
    sandbox,
    stripe,
  };
}

/** The sandbox adapter of a deployment's gateways, when it runs one (the sandbox's challenge page and disputes). */
export function sandboxOf(gateways: PaymentGateways): SandboxGateway | undefined {
  const adapter = gateways.byName('sandbox');
  return adapter instanceof SandboxGateway ? adapter : undefined;
}
